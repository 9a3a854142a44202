"""`/address?t=...`: the link of a change of address (`service.addresses`), one mailed to each end.

Reached from a mail program, so it keeps no session and asks no CSRF token: the signed link is the
proof. A GET only shows a button (mail scanners open links); its POST proves that end.
"""
from __future__ import annotations

from flask import Response, request

from service import addresses
from service.problems import Problem
from service.web import links, store
from service.web.pages import blueprint, render

bp = blueprint("address_page", __name__, session=False)
LINK_CHARS = 1000


@bp.route(addresses.PAGE, methods=["GET"])
def confirm() -> Response:
    return render("address.html", signed=request.args.get("t", "")[:LINK_CHARS], outcome=None, error=None)


@bp.route(addresses.PAGE, methods=["POST"])
def confirmed() -> Response:
    try:
        outcome = addresses.confirm(store(), links(), request.form.get("t", "")[:LINK_CHARS])
    except Problem as problem:
        return render("address.html", problem.status, signed="", outcome=None, error=problem)
    return render("address.html", signed="", outcome=outcome, error=None)
