"""Games: create one (tokens are shown once) and read one as the caller may see it."""
from __future__ import annotations

from flask import current_app, request

from service import invitations, seats
from service.resources.common import (ETAG, IF_NONE_MATCH, as_host, blueprint, caller, conditional, config, documented,
                                      etag, game_out, links, load_game, store)
from service.schemas import CreatedOut, GameIn, GameOut

blp = blueprint("games", "Create a game and read it as a seat, the host or a spectator.")


@blp.route("/games", methods=["POST"])
@blp.arguments(GameIn())
@blp.response(201, CreatedOut, headers=ETAG)
@documented(blp, "bad_seats", "duplicate_email", "bad_deadlines", "rules", body=True)
def create_game(spec):
    """Create a game in status open; the host starts it, or it starts when full.

    The answer holds, once, the host token and the tokens of seats without an address (to pass on
    by hand). A seat with an address gets its way in by mail only: a single-use sign-in link. An
    open seat (`{"open": true}`) is taken by whoever opens the game's join link (`join` in the answer)
    and signs in; a public game is listed in the lobby while a seat is open.
    Called with a player token, the game is hosted by that player's address as well: his token acts
    as the host, and his pages list the game. Every address the game makes us mail (seats, `host_email`)
    counts against the caller's limit of invitations, by client address and by his own address (429).
    """
    who = caller()
    table, issued = invitations.create(
        store(), links(), spec, min_deadline=config().min_deadline,
        limit=current_app.extensions["palazzo.invite_limit"], client=request.remote_addr or "",
        creator=who.email if who.kind == "player" else None)
    host_view = game_out(table, as_host(table))
    return {"game": host_view, "tokens": issued, "join": seats.link_of(links(), table, table.status)}, \
        etag(table.version)


@blp.route("/games/<game_id>", methods=["GET"])
@blp.response(200, GameOut, headers=ETAG)
@blp.alt_response(304, description="Not Modified: nothing the caller may see has changed since the ETag he sent")
@documented(blp, "game_not_found", "wrong_game", parameters=[IF_NONE_MATCH])
def get_game(game_id):
    """The game for the caller: the engine's view for his seat, pending decisions, the version."""
    table = load_game(game_id)
    return conditional(game_out(table, caller()), table.version)
