"""Leaving a game: a player gives up his seat for good, after saying he means it."""
from __future__ import annotations

from service import games, leaving
from service.callers import Caller
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, game_out, links, load_game, seat_of, store
from service.schemas import LeaveIn, SeatLeftAnswerOut

blp = blueprint("leaving", "A player leaves a game; the host may also remove one (see the host's operations).")


@blp.route("/games/<game_id>/leave", methods=["POST"])
@blp.arguments(LeaveIn())
@blp.response(200, SeatLeftAnswerOut)
@documented(blp, "token_required", "not_a_seat", "wrong_game", "game_not_found", "confirm_required", "seat_open",
            "game_finished", "game_cancelled", "busy", body=True)
def leave_game(body, game_id):
    """Leave the game for good, with `{"confirm": true}`: the seat becomes open, a stand-in bot answers its
    decisions at their deadlines until someone takes it over (by the join link or the host's invitation),
    and everyone reads a `seat_left` event. Every token, session, mailed link and reply address of the
    caller stops acting for the seat at once, so the answer shows the game as a spectator sees it. A seat
    token is revoked; a player token keeps acting for the player's other games. Works in an open, running
    or paused game."""
    who = caller()
    table = load_game(game_id)
    seat = seat_of(table, who)
    if body["confirm"] is not True:
        raise Problem("confirm_required", "send {\"confirm\": true} to leave the game; nothing was changed")
    table = leaving.vacate(store(), links(), table, seat, games.LEFT, holder=table.holder(seat))
    return {"seat": seat, "game": game_out(table, Caller("anonymous", who.identity))}
