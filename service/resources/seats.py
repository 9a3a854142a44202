"""Open seats: the host's join link, taking a seat by it, and the lobby of public games."""
from __future__ import annotations

from service import seats
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, game_out, host_of, links, load_game, store
from service.schemas import GameOut, JoinIn, JoinLinkOut, LobbyOut, LobbyQuery

blp = blueprint("seats", "Open seats, the join link that fills them, and the lobby of public games.")
HOST_CODES = ("token_required", "host_only", "game_not_found")
JOIN_CODES = ("bad_join_link", "join_link_expired", "join_link_revoked", "game_over", "game_full")


def _hosted(game_id: str):
    table = load_game(game_id)
    host_of(table, caller())
    return table


def _link(table):
    return seats.link_of(links(), table, table.status)


@blp.route("/games/<game_id>/join-link", methods=["GET"])
@blp.response(200, JoinLinkOut)
@documented(blp, *HOST_CODES)
def get_join_link(game_id):
    """The game's join link, for the host to pass on (signed anew for each answer)."""
    return _link(_hosted(game_id))


@blp.route("/games/<game_id>/join-link", methods=["POST"])
@blp.response(200, JoinLinkOut)
@documented(blp, *HOST_CODES, "game_finished", "game_cancelled")
def renew_join_link(game_id):
    """A new join link: every earlier one stops working (a link passed on too widely)."""
    return _link(seats.renew(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/join-link", methods=["DELETE"])
@blp.response(200, JoinLinkOut)
@documented(blp, *HOST_CODES, "game_finished", "game_cancelled")
def revoke_join_link(game_id):
    """Turn the join link off: nobody can join until the host makes a new one."""
    return _link(seats.revoke(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/join", methods=["POST"])
@blp.arguments(JoinIn())
@blp.response(200, GameOut)
@documented(blp, "token_required", "game_not_found", *JOIN_CODES, "already_seated", "seat_not_found",
            "seat_not_open", "name_taken", "address_unproved", "busy", body=True)
def join_game(body, game_id):
    """Take an open seat by the game's join link, with a player token (an address proved by a mailed
    sign-in link: `POST /sign-in` with `join` mails one to an address new here).

    `seat` picks the open seat (0-based), else the first. One address holds one seat of a game;
    names are the table's, so no two seats share one. Answers the game as the new seat sees it;
    a game that starts when full starts when this takes its last open seat.
    """
    who = caller()
    if who.kind != "player" or not who.email:
        raise Problem("token_required", "send a player token (from a sign-in link): joining needs a proved address")
    table, _ = seats.join(store(), links(), body["link"], who.email, body["name"], body["seat"], game_id)
    return game_out(table, who)


@blp.route("/lobby", methods=["GET"])
@blp.arguments(LobbyQuery(), location="query")
@blp.response(200, LobbyOut)
@documented(blp, "invalid_request")
def list_lobby(query):
    """Public games with an open seat, newest first: options, deadlines, who sits where, and the
    join link (public by design). Pages of `limit`; pass `next` as `after` for the next one."""
    listed, after = seats.lobby_page(store(), links(), query["after"], query["limit"])
    return {"games": listed, "next": after}
