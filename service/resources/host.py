"""Host actions: start, pause and resume (bounded), hand a seat to someone else, remove a player, cancel."""
from __future__ import annotations

from flask import current_app, request

from service import games, invitations, leaving, signin
from service.resources.common import (ETAG, blueprint, caller, documented, etag, game_out, host_of, links, load_game,
                                      store)
from service.schemas import (AcceptedOut, GameOut, HostLinkIn, PauseIn, RemoveIn, SeatIn, SeatLeftAnswerOut,
                             SeatReplacedOut)

blp = blueprint("host", "What only the host of a game may do.")
HOST_CODES = ("token_required", "host_only", "game_not_found")


def _hosted(game_id: str) -> games.Table:
    table = load_game(game_id)
    host_of(table, caller())
    return table


def _answer(table: games.Table):
    return game_out(table, caller()), etag(table.version)


@blp.route("/games/<game_id>/start", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "game_running", "game_paused", "game_finished", "game_cancelled")
def start_game(game_id):
    """Start an open game: deadlines begin to run and bot seats move."""
    return _answer(games.start(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/pause", methods=["POST"])
@blp.arguments(PauseIn())
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "pause_limit", "game_open", "game_paused", "game_finished", "game_cancelled",
            body=True)
def pause_game(body, game_id):
    """Pause a running game for 1-168 hours, at most 3 times a game; it resumes by itself."""
    return _answer(games.pause(store(), _hosted(game_id), body["hours"]))


@blp.route("/games/<game_id>/resume", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "game_open", "game_running", "game_finished", "game_cancelled")
def resume_game(game_id):
    """Resume a paused game; every deadline moves later by the time it stood still."""
    return _answer(games.resume(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/cancel", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "game_finished", "game_cancelled")
def cancel_game(game_id):
    """Cancel the game for good; nobody can move any more."""
    return _answer(games.cancel(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/seats/<int:seat>", methods=["PUT"])
@blp.arguments(SeatIn())
@blp.response(200, SeatReplacedOut)
@documented(blp, *HOST_CODES, "seat_not_found", "duplicate_email", "game_finished", "game_cancelled", body=True)
def replace_seat(player, game_id, seat):
    """Hand a seat to another player or a bot; the old seat token stops working at once.

    A seat without an address gets a new token here, once, for the host to pass on; a seat with an
    address gets a sign-in link by mail instead.
    """
    table = _hosted(game_id)
    if player.get("email") and not player.get("bot"):
        _count_invitation()
    table, token, invitation = games.replace_seat(store(), table, seat, player)
    if invitation:
        signin.invite(store(), links(), invitation)
    return {"seat": seat, "token": token, "game": game_out(table, caller())}


@blp.route("/games/<game_id>/seats/<int:seat>/remove", methods=["POST"])
@blp.arguments(RemoveIn())
@blp.response(200, SeatLeftAnswerOut)
@documented(blp, *HOST_CODES, "seat_not_found", "reason_required", "seat_open", "seat_is_bot", "game_finished",
            "game_cancelled", "busy", body=True)
def remove_player(body, game_id, seat):
    """Remove the seat's player at once, with a `reason` everyone reads in the game's log: as if he had
    left (see `leaveGame`), he is told by mail, the seat becomes open for a substitute, and a stand-in
    plays it at its deadlines meanwhile. To remove players who stop playing without watching, create
    the game with `remove_after`."""
    table = _hosted(game_id)
    table = leaving.vacate(store(), links(), table, seat, games.REMOVED, body.get("reason"))
    return {"seat": seat, "game": game_out(table, caller())}


@blp.route("/games/<game_id>/host-link", methods=["POST"])
@blp.arguments(HostLinkIn())
@blp.response(202, AcceptedOut)
@documented(blp, *HOST_CODES, body=True)
def mail_host_link(body, game_id):
    """Mail the host a link that proves his address: opening it (or trading it at /sign-in/redeem) makes
    that address the game's host's, so he can come back to the game from any browser or with a player
    token, after signing out or losing the host token. Counts as an invitation."""
    table = _hosted(game_id)
    _count_invitation()
    signin.mail_host_link(store(), links(), body["email"], table)
    return {"status": "accepted"}


def _count_invitation() -> None:
    """One more address mailed at the host's request, counted like a new game's invitations."""
    who = caller()
    invitations.allow(store(), current_app.extensions["palazzo.invite_limit"], request.remote_addr or "",
                      who.email if who.kind == "player" else None, 1)
