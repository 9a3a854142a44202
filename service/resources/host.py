"""Host actions: start, pause and resume (bounded), hand a seat to someone else, cancel."""
from __future__ import annotations

from service import games
from service.resources.common import ETAG, blueprint, caller, documented, etag, game_out, host_of, load_game, store
from service.schemas import GameOut, PauseIn, SeatIn, SeatReplacedOut

blp = blueprint("host", "What only the host of a game may do.")
def _hosted(game_id: str) -> games.Table:
    table = load_game(game_id)
    host_of(table, caller())
    return table


@blp.route("/games/<game_id>/start", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, 401, 403, 404, 409)
def start_game(game_id):
    """Start an open game: deadlines begin to run and bot seats move."""
    table = games.start(store(), _hosted(game_id))
    return game_out(table, caller()), etag(table.version)


@blp.route("/games/<game_id>/pause", methods=["POST"])
@blp.arguments(PauseIn())
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, 401, 403, 404, 409, 422)
def pause_game(body, game_id):
    """Pause a running game for 1-168 hours, at most 3 times a game; it resumes by itself."""
    table = games.pause(store(), _hosted(game_id), body["hours"])
    return game_out(table, caller()), etag(table.version)


@blp.route("/games/<game_id>/resume", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, 401, 403, 404, 409)
def resume_game(game_id):
    """Resume a paused game; every deadline moves later by the time it stood still."""
    table = games.resume(store(), _hosted(game_id))
    return game_out(table, caller()), etag(table.version)


@blp.route("/games/<game_id>/cancel", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, 401, 403, 404, 409)
def cancel_game(game_id):
    """Cancel the game for good; nobody can move any more."""
    table = games.cancel(store(), _hosted(game_id))
    return game_out(table, caller()), etag(table.version)


@blp.route("/games/<game_id>/seats/<int:seat>", methods=["PUT"])
@blp.arguments(SeatIn())
@blp.response(200, SeatReplacedOut)
@documented(blp, 401, 403, 404, 409, 422)
def replace_seat(player, game_id, seat):
    """Hand a seat to another player or a bot; the old seat token stops working, a new one is shown once."""
    table, issued = games.replace_seat(store(), _hosted(game_id), seat, player)
    return {**issued, "token": issued.get("token"), "game": game_out(table, caller())}
