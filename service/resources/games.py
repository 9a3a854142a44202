"""Games: create one (tokens are shown once) and read one as the caller may see it."""
from __future__ import annotations

from service import games
from service.callers import Caller
from service.resources.common import ETAG, blueprint, caller, documented, etag, game_out, load_game, store
from service.schemas import CreatedOut, GameIn, GameOut

blp = blueprint("games", "Create a game and read it as a seat, the host or a spectator.")


@blp.route("/games", methods=["POST"])
@blp.arguments(GameIn())
@blp.response(201, CreatedOut, headers=ETAG)
@documented(blp, 422)
def create_game(spec):
    """Create a game in status open; the host starts it. Seat, host and player tokens appear only here."""
    table, issued = games.create(store(), spec)
    host_view = game_out(table, Caller("host", "", table.id))
    return {"game": host_view, "tokens": issued}, etag(table.version)


@blp.route("/games/<game_id>", methods=["GET"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, 404)
def read_game(game_id):
    """The game for the caller: the engine's view for his seat, pending decisions, the version."""
    table = load_game(game_id)
    return game_out(table, caller()), etag(table.version)
