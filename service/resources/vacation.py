"""A player's time off: he spends his vacation bank at a game, and comes back."""
from __future__ import annotations

from typing import Any

from service import games, vacation
from service.resources.common import blueprint, caller, documented, game_out, load_game, seat_of, store
from service.schemas import VacationIn, VacationOut

blp = blueprint("vacation", "A player's vacation bank at a game: time off during which only his deadlines stand "
                            "still.")
SEAT_CODES = ("token_required", "not_a_seat", "wrong_game", "game_not_found", "seat_open", "seat_is_bot", "busy")


def _answer(table: games.Table, seat: int, hours: int | None = None) -> dict[str, Any]:
    return {"seat": seat, "away": table.meta["seats"][seat].get("away"),
            "hours_left": vacation.hours_left(table.meta, seat), "hours": hours, "game": game_out(table, caller())}


@blp.route("/games/<game_id>/vacation", methods=["POST"])
@blp.arguments(VacationIn())
@blp.response(200, VacationOut)
@documented(blp, *SEAT_CODES, "vacation_hours_or_days", "vacation_too_short", "vacation_too_long", "away_already",
            "game_open", "game_paused", "game_finished", "game_cancelled", body=True)
def take_vacation(body, game_id):
    """Go away from the game now, for `{"hours": n}` or `{"days": n}` of the caller's vacation bank (the
    game's `vacation_days`; what is left is each seat's `vacation_left`). Only his deadlines stand still:
    his pending ones move later by the whole time asked, and a decision of his that comes while he is
    away starts after he is due back; the others play on. His decision mails wait until he is back, and
    the table reads a `vacation_started` event and his seat's `away`. It ends when the time runs out, when
    he moves, or by `DELETE /games/{id}/vacation`; ending early refunds the unused part (the time spent
    counts in whole hours, rounded up) and moves his deadlines back by it."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    table = vacation.start(store(), table, seat, body.get("hours"), body.get("days"))
    return _answer(table, seat)


@blp.route("/games/<game_id>/vacation", methods=["DELETE"])
@blp.response(200, VacationOut)
@documented(blp, *SEAT_CODES, "not_away", "game_open", "game_finished", "game_cancelled")
def end_vacation(game_id):
    """Come back before the vacation's time is up: the unused part (the time spent rounded up to whole
    hours) goes back to the bank and the caller's deadlines move back by it; the table reads a
    `vacation_ended` event with the hours it took. Works in a running or paused game."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    table, hours = vacation.end(store(), table, seat)
    return _answer(table, seat, hours)
