"""The page a sign-in link lands on: GET only shows a button (mail scanners open links), POST signs in.

The POST trades the single-use link for a player token and shows it once, for the player to paste
into his client. (The web issue replaces this with a session cookie and his games.)
"""
from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from service import signin, web
from service.problems import Problem

bp = Blueprint("sign_in_page", __name__, template_folder="templates")


@bp.route(signin.PAGE, methods=["GET"])
def confirm() -> str:
    return render_template("sign_in.html", link=request.args.get("link", "")[:1000], token=None, error=None)


@bp.route(signin.PAGE, methods=["POST"])
def sign_in() -> Response | tuple[str, int]:
    try:
        token = signin.redeem(web.store(), web.links(), request.form.get("link", "")[:1000])
    except Problem as problem:
        return render_template("sign_in.html", link="", token=None, error=problem.detail), problem.status
    return web.private(current_app.make_response(render_template("sign_in.html", link="", token=token, error=None)))
