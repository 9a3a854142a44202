"""A seat link (`/seat?t=...`): the way into one seat from a mail, or from the host for a seat
without an address.

The link is signed for its purpose, names the game and seat and is bound to the seat's holder (its
generation and its key: its address or token), so it stops working when the seat is handed to someone
else; it expires after a week. Opening it (GET) only shows a button, because mail scanners open links
and because a page of another site could otherwise send a browser there and sign it in to a seat of
the other site's choosing (login CSRF). The button posts the link back with the session's CSRF token
(a same-origin POST) and that trades it for a session holding the seat, then redirects to the seat
page, so the token leaves the address bar and the history at once. It plays nothing.
"""
from __future__ import annotations

from typing import Any

from flask import Response, redirect, request, url_for

from service import games
from service.mailed_links import SEAT_PAGE as PAGE
from service.mailed_links import SEAT_PURPOSE as PURPOSE
from service.mailed_links import seat_url  # noqa: F401  (where pages and tests look for it)
from service.problems import Problem
from service.web import access, session
from service.web import links as web_links
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("seat_link", __name__)
MAX_AGE = 7 * 24 * 3600
TOKEN_CHARS = 4000


def _opened(signed: str) -> tuple[games.Table, int, str]:
    """The game, seat and seat key a link opens; 403 when it is not a seat link, or its seat has been
    handed to someone else since it was made."""
    payload: Any = web_links().open(PURPOSE, signed[:TOKEN_CHARS], MAX_AGE)
    if not isinstance(payload, dict) or set(payload) != {"g", "s", "h", "k"} or not isinstance(payload["s"], int):
        raise Problem("bad_link", "this is not a seat link")
    table = games.load(web_store(), payload["g"])
    seats = table.meta["seats"]
    seat, key = payload["s"], payload["k"]
    if not table.held_by(seat, payload["h"]) or not key or access.seat_key(seats[seat]) != key:
        raise Problem("bad_link", "this seat has been handed to someone else, so its old link no longer works")
    return table, seat, key


@bp.route(PAGE, methods=["GET"])
def confirm() -> Response:
    """Ask before signing in: a link opened by a scanner, or by another site, signs nobody in."""
    signed = request.args.get("t", "")[:TOKEN_CHARS]
    table, seat, _ = _opened(signed)
    return render("seat_link.html", link=signed, title=games.title_of(table), seat=seat,
                  name=table.meta["seats"][seat]["name"])


@bp.route(PAGE, methods=["POST"])
def enter() -> Response:
    """The confirm button (a same-origin POST, its CSRF token checked by the blueprint): sign in to the seat."""
    table, seat, key = _opened(request.form.get("t", ""))
    session.sign_in(seat=[table.id, seat, key])
    return redirect(url_for("seat_page.show", game_id=table.id), 303)
