"""A seat link (`/seat?t=...`): the way into one seat from a mail, or from the host for a seat
without an address.

The link is signed for its purpose, names the game and seat and is bound to the seat's key (its
address or token), so it stops working when the seat is handed to someone else; it expires after a
week. Opening it (GET) trades it for a session that holds that seat alone and redirects to the
seat page, so the token leaves the address bar, the history and any Referer at once. It plays
nothing, so a mail scanner that opens it gains a cookie it throws away and nothing more.
"""
from __future__ import annotations

from flask import Response, redirect, request, url_for

from service import games
from service.links import Links
from service.problems import Problem
from service.web import access, session
from service.web import links as web_links
from service.web import store as web_store
from service.web.pages import blueprint

bp = blueprint("seat_link", __name__)
PURPOSE, PAGE = "seat", "/seat"
MAX_AGE = 7 * 24 * 3600
TOKEN_CHARS = 4000


def seat_url(links: Links, table: games.Table, seat: int) -> str:
    """The seat's way in, for its mail (or for the host to pass on when the seat has no address)."""
    key = access.seat_key(table.meta["seats"][seat])
    return links.url(PAGE, t=links.sign(PURPOSE, {"g": table.id, "s": seat, "k": key}))


@bp.route(PAGE, methods=["GET"])
def enter() -> Response:
    payload = web_links().open(PURPOSE, request.args.get("t", "")[:TOKEN_CHARS], MAX_AGE)
    if not isinstance(payload, dict) or set(payload) != {"g", "s", "k"} or not isinstance(payload["s"], int):
        raise Problem("bad_link", "this is not a seat link")
    table = games.load(web_store(), payload["g"])
    seats = table.meta["seats"]
    if not 0 <= payload["s"] < len(seats) or not payload["k"] or access.seat_key(seats[payload["s"]]) != payload["k"]:
        raise Problem("bad_link", "this seat has been handed to someone else, so its old link no longer works")
    session.sign_in(seat=[table.id, payload["s"], payload["k"]])
    return redirect(url_for("seat_page.show", game_id=table.id), 303)
