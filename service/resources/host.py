"""Host actions: start, pause and resume (bounded), rename, hand a seat to someone else, remove a player, cancel."""
from __future__ import annotations

from typing import Any

from flask import current_app, request

from service import games, invitations, leaving
from service.resources.common import (ETAG, blueprint, caller, documented, etag, game_out, host_of, links, load_game,
                                      store)
from service.schemas import (AcceptedOut, GameOut, HostLinkIn, PauseIn, RemoveIn, SeatIn, SeatLeftAnswerOut,
                             SeatReplacedOut, TitleIn)

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
@documented(blp, *HOST_CODES, "seats_open", "game_running", "game_paused", "game_finished", "game_cancelled")
def start_game(game_id):
    """Start an open game: deadlines begin to run and bot seats move. Refused while a seat is open
    (fill it with a bot, invite an address into it, or wait for the join link to fill it)."""
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


@blp.route("/games/<game_id>/title", methods=["PUT"])
@blp.arguments(TitleIn())
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "game_finished", "game_cancelled", body=True)
def rename_game(body, game_id):
    """Give the game another title (an open, running or paused one): every later mail and page names it so,
    and the feed says it was renamed."""
    return _answer(games.rename(store(), _hosted(game_id), body["title"]))


@blp.route("/games/<game_id>/cancel", methods=["POST"])
@blp.response(200, GameOut, headers=ETAG)
@documented(blp, *HOST_CODES, "game_finished", "game_cancelled")
def cancel_game(game_id):
    """Cancel the game for good; nobody can move any more."""
    return _answer(games.cancel(store(), _hosted(game_id)))


@blp.route("/games/<game_id>/seats/<int:seat>", methods=["PUT"])
@blp.arguments(SeatIn())
@blp.response(200, SeatReplacedOut)
@documented(blp, *HOST_CODES, "seat_not_found", "duplicate_email", "game_running", "game_paused", "game_finished",
            "game_cancelled", body=True)
def replace_seat(player, game_id, seat):
    """Hand a seat to another player or a bot, or open it; the old seat token stops working at once.

    A seat without an address gets a new token here, once, for the host to pass on; a seat with an
    address gets a sign-in link by mail instead (an invitation, counted against the host's limit).
    This fills an open seat too. `{"open": true}` removes the seat's player before the start (409
    once started): the seat is open again and his links stop working. A game that starts when full
    starts when this takes its last open seat.
    """
    table, token = invitations.replace_seat(store(), links(), _hosted(game_id), seat, player, **_asker())
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
    invitations.host_link(store(), links(), _hosted(game_id), body["email"], **_asker())
    return {"status": "accepted"}


def _asker() -> dict[str, Any]:
    """Whom a mail sent at the host's request counts against (`invitations.allow`)."""
    who = caller()
    return {"limit": current_app.extensions["palazzo.invite_limit"], "client": request.remote_addr or "",
            "creator": who.email if who.kind == "player" else None}
