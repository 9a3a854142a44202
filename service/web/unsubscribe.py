"""Unsubscribing from a mail's link: GET asks, POST stops the mail (RFC 8058 one-click POSTs too).

The link is signed for its address and purpose, so it stops only that address's mail.
"""
from __future__ import annotations

from flask import Response, request

from service import preferences, web
from service.links import Links
from service.problems import Problem
from service.web.pages import blueprint, render

bp = blueprint("unsubscribe_page", __name__, session=False)  # mail providers post here with no cookie
PURPOSE = "unsubscribe"
MAX_AGE = 365 * 24 * 3600


def link(links: Links, email_hash: str) -> str:
    return links.url("/unsubscribe", t=links.sign(PURPOSE, {"e": email_hash}))


@bp.route("/unsubscribe", methods=["GET"])
def confirm() -> Response:
    return render("unsubscribe.html", token=request.args.get("t", "")[:1000], done=False, error=None)


@bp.route("/unsubscribe", methods=["POST"])
def unsubscribe() -> Response:
    signed = (request.args.get("t") or request.form.get("t") or "")[:1000]
    try:
        payload = web.links().open(PURPOSE, signed, MAX_AGE)
    except Problem as problem:
        return render("unsubscribe.html", problem.status, token="", done=False, error=problem.detail)
    preferences.write(web.store(), payload["e"], {"mail": "none"})
    return render("unsubscribe.html", token="", done=True, error=None)
