"""Signing in from a browser: ask for a link by address, and trade a mailed link for a session.

The link page only shows a button on GET (mail scanners open links, and a link works once); the
POST uses up the link through `signin.redeem_address`, the API's own path, keeps the address it
proved in a new session (service.web.session) and redirects to the player's games, so the link
leaves the address bar and the history at once. No token is ever shown or kept by the browser.
A link asked for from a join page leads back there instead: the page is this site's own, rebuilt
from the game and join id the signed link names, never an address taken from the request.
"""
from __future__ import annotations

from flask import Response, redirect, request, url_for
from marshmallow import ValidationError

from service import signin, web
from service.problems import Problem
from service.schemas import SignInIn
from service.web import join_page, session
from service.web.pages import blueprint, render

bp = blueprint("sign_in_page", __name__)
LINK_CHARS = 1000


@bp.route(signin.PAGE, methods=["GET"])
def confirm() -> Response:
    return render("sign_in.html", link=request.args.get("link", "")[:LINK_CHARS], error=None, mailed=False)


@bp.route(signin.PAGE, methods=["POST"])
def sign_in() -> Response:
    try:
        email, join = signin.redeem_link(web.store(), web.links(), request.form.get("link", "")[:LINK_CHARS])
    except Problem as problem:
        return render("sign_in.html", problem.status, link="", error=problem, mailed=False)
    session.sign_in(email=email)
    session.flash("You are signed in.")
    return redirect(join_page.join_url(*join) if join else url_for("home_page.home"), 303)


@bp.route(f"{signin.PAGE}/mail", methods=["POST"])
def mail_link() -> Response:
    """Mail a sign-in link, as POST /api/v1/sign-in does: the same page whether or not one went out."""
    try:
        email = SignInIn().load({"email": request.form.get("email", "")[:300]})["email"]
    except ValidationError:
        return render("sign_in.html", 422, link="", mailed=False,
                      error=Problem("invalid_request", "that is not an address we can mail"))
    signin.send_link(web.store(), web.links(), email)
    return render("sign_in.html", link="", error=None, mailed=True)
