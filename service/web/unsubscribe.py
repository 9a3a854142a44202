"""Unsubscribing from a mail's link: GET asks, POST stops the mail (RFC 8058 one-click POSTs too).

The link is signed for its address and purpose, so it stops only that address's mail.
"""
from __future__ import annotations

from flask import Blueprint, render_template, request

from service import preferences, web
from service.links import Links
from service.problems import Problem

bp = Blueprint("unsubscribe_page", __name__, template_folder="templates")
PURPOSE = "unsubscribe"
MAX_AGE = 365 * 24 * 3600


def link(links: Links, email_hash: str) -> str:
    return links.url("/unsubscribe", t=links.sign(PURPOSE, {"e": email_hash}))


@bp.route("/unsubscribe", methods=["GET"])
def confirm() -> str:
    return render_template("unsubscribe.html", token=request.args.get("t", "")[:1000], done=False, error=None)


@bp.route("/unsubscribe", methods=["POST"])
def unsubscribe() -> str | tuple[str, int]:
    signed = (request.args.get("t") or request.form.get("t") or "")[:1000]
    try:
        payload = web.links().open(PURPOSE, signed, MAX_AGE)
    except Problem as problem:
        return render_template("unsubscribe.html", token="", done=False, error=problem.detail), problem.status
    preferences.write(web.store(), payload["e"], {"mail": "none"})
    return render_template("unsubscribe.html", token="", done=True, error=None)
