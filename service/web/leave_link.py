"""The leave link (`/leave?t=...`) in the answer to a `leave` reply: the one-click way to confirm.

Opened from a mail program, which keeps no cookie, so the page keeps none and checks no CSRF token:
the signed link (`leaving.leave_url`), bound to the seat and its holder generation, is the proof.
Opening it (GET) only asks, since mail scanners open links; the button's POST leaves. A link of an
earlier holder, or one whose seat its player left already, shows and does nothing (403).
"""
from __future__ import annotations

from flask import Response, request, url_for

from service import games, leaving, web
from service.mailed_links import seat_key
from service.problems import Problem
from service.web.pages import blueprint, render

bp = blueprint("leave_link", __name__, session=False)


def _opened(signed: str) -> tuple[games.Table, int, int]:
    game_id, seat, holder, key = leaving.open_leave_link(web.links(), signed)
    table = games.load(web.store(), game_id)
    seats = table.meta["seats"]
    if not 0 <= seat < len(seats) or table.holder(seat) != holder or key not in (None, seat_key(seats[seat])):
        raise Problem("bad_link", "this seat is no longer yours (you left it, it was handed to someone else, or "
                                  "you play from another address now), so this link does nothing")
    return table, seat, holder


@bp.route(leaving.PAGE, methods=["GET"])
def confirm() -> Response:
    signed = request.args.get("t", "")[:leaving.TOKEN_CHARS]
    table, seat, _ = _opened(signed)
    return _page(table, seat, signed)


@bp.route(leaving.PAGE, methods=["POST"])
def leave() -> Response:
    signed = request.form.get("t", "")[:leaving.TOKEN_CHARS]
    table, seat, holder = _opened(signed)
    if request.form.get("confirm") != "yes":
        return _page(table, seat, signed, 422, "Press the button below to leave; nothing was changed.")
    name = table.meta["seats"][seat]["name"]
    table = leaving.vacate(web.store(), web.links(), table, seat, games.LEFT, holder=holder)
    return render("leave.html", heading="You have left the game", game_id=table.id, seat=seat, name=name,
                  link=signed, done=True, problem=None)


def _page(table: games.Table, seat: int, signed: str, status: int = 200, problem: str | None = None) -> Response:
    return render("leave.html", status, heading="Leave this game?", game_id=table.id, seat=seat,
                  name=table.meta["seats"][seat]["name"], link=signed, problem=problem, done=False,
                  action=url_for("leave_link.leave"))


@bp.errorhandler(Problem)
def _refused(problem: Problem) -> Response:
    """A forged, foreign or worn-out link, a seat left already, a game over: say so, in a page."""
    return render("oneclick.html", problem.status, heading="This link does not work", message=problem.detail,
                  confirm=None, situation=None)
