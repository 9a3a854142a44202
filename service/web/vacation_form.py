"""The seat page's vacation forms: take time off (a number and hours or days), and come back early.

Both are same-origin POSTs with the session's CSRF token (checked by the blueprint), spent through
`service.vacation`, the path the API and replies take too. Success redirects to the seat page (303)
with a line saying what was done; a refusal draws the seat page again with why, and changes nothing.
"""
from __future__ import annotations

from flask import Response, redirect, request, url_for

from engine.typed import whole_number
from service import vacation
from service.problems import Problem
from service.resources.common import load_game
from service.web import access, seat_page, session, tableau
from service.web import store as web_store
from service.web.pages import blueprint

bp = blueprint("vacation_form", __name__)
UNITS = ("hours", "days")


@bp.route("/games/<game_id>/vacation", methods=["POST"])
def take(game_id: str) -> Response:
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    unit = request.form.get("unit", "days")
    amount = whole_number(request.form.get("amount"), 4)
    if unit not in UNITS or amount is None:
        return seat_page.draw(table, seat, 422, "Say how long you will be away as a whole number of hours or days; "
                                                "nothing was changed.")
    try:
        table = vacation.start(web_store(), table, seat, **{unit: amount})
    except Problem as problem:
        return seat_page.draw(load_game(game_id), seat, problem.status, f"{_sentence(problem.detail)} Nothing was "
                                                                         "changed.")
    until = tableau.away(table.meta["seats"][seat], tableau.time_zone(web_store(), table, seat))
    session.flash(f"You are away until {until['clock']}: your deadlines stand still until then, and your decision "
                  f"mails wait. {vacation.span(vacation.hours_left(table.meta, seat))} of vacation left.")
    return redirect(url_for("seat_page.show", game_id=game_id) + "#top", 303)


@bp.route("/games/<game_id>/vacation/back", methods=["POST"])
def back(game_id: str) -> Response:
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    try:
        table, hours = vacation.end(web_store(), table, seat)
    except Problem as problem:
        return seat_page.draw(load_game(game_id), seat, problem.status, f"{_sentence(problem.detail)} Nothing was "
                                                                         "changed.")
    session.flash(f"Welcome back: your vacation took {vacation.span(hours)}; "
                  f"{vacation.span(vacation.hours_left(table.meta, seat))} of vacation left.")
    return redirect(url_for("seat_page.show", game_id=game_id) + "#top", 303)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
