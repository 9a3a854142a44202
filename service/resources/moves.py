"""Moves: the caller's legal moves with labels, and submitting one move against the version he saw."""
from __future__ import annotations

from typing import Any, Callable

from flask import jsonify, request
from marshmallow import ValidationError

from engine.core import fills, redact
from service import games, playing
from service.problems import Problem
from service.resources.common import (ETAG, IDEMPOTENCY_KEY, IF_MATCH, IF_NONE_MATCH, blueprint, caller, conditional,
                                      documented, etag, expected_version, load_game, seat_of, store,
                                      uncounted)
from service.schemas import LegalMovesOut, MoveIn, MoveOut, PendingOut
from service.store import Store
from service.vocabulary import check_move

blp = blueprint("moves", "The caller's legal moves, and submitting one move.")

PENDING_KEYS = tuple(PendingOut._declared_fields)


@blp.route("/games/<game_id>/moves", methods=["GET"])
@blp.response(200, LegalMovesOut, headers=ETAG)
@blp.alt_response(304, description="Not Modified: the caller's moves are as in the ETag he sent")
@documented(blp, "token_required", "not_a_seat", "wrong_game", "game_not_found", parameters=[IF_NONE_MATCH])
def list_legal_moves(game_id):
    """Every move the caller's seat may make now, labelled; free moves are listed by type.

    A move with a field to fill in is listed once, legal as it is; its `fill` says what else the field
    may hold (a publish: which bonus cards, and what each adds to the work).
    """
    table = load_game(game_id)
    seat = seat_of(table, caller())
    game = table.game
    moves = game.legal_moves(table.state, seat) if table.status == games.RUNNING else []
    return conditional({
        "version": table.version, "seat": seat,
        "pending": [d for d in table.pending if d["seat"] == seat],
        "moves": [{"move": move, "label": game.describe(move), "fill": fills(game, table.state, seat, move)}
                  for move in moves],
        "free": [{"type": t, "doc": spec["doc"]} for t, spec in game.move_types.items() if spec.get("free")],
    }, table.version)


@blp.route("/games/<game_id>/moves", methods=["POST"])
@blp.arguments(MoveIn())
@blp.response(200, MoveOut, headers=ETAG)
@documented(blp, "token_required", "not_a_seat", "wrong_game", "game_not_found", "stale_version", "busy",
            "game_open", "game_paused", "game_finished", "game_cancelled", "invalid_move", "bad_if_match",
            "version_mismatch", "bad_idempotency_key", "idempotency_key_reused", "rules", "version_required",
            body=True, parameters=[IF_MATCH, IDEMPOTENCY_KEY])
def submit_move(body, game_id):
    """Submit one move against the version you saw (If-Match or `version`).

    The move is checked against your own pending decision, not the whole game: other seats' moves
    since you looked do not make it stale. 409 `stale_version` only when your decision has changed
    or gone; 422 with the rules' code when the move is illegal. With an Idempotency-Key, a retry
    returns the first answer (header Idempotent-Replayed) and moves nothing.
    """
    table = load_game(game_id)
    seat = seat_of(table, caller())
    seen = expected_version(body.get("version"))
    answered, replayed = take(store(), table, seat, body["move"], seen, request.headers.get("Idempotency-Key"),
                              uncounted())
    headers = etag(answered["version"])
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return jsonify(answered), headers  # built as MoveOut dumps it (tests hold it to that): no second dump


def take(store: Store, table: games.Table, seat: int, sent: dict, seen: int, key: str | None,
         also: Callable[[Any], None] | None) -> tuple[dict, bool]:
    """A seat's move as sent, checked against the vocabulary and played: (the MoveOut answer, whether it
    is a replay of an Idempotency-Key's first answer)."""
    try:
        move = check_move(table.game, sent)
    except ValidationError as error:
        raise Problem("invalid_move", "the move does not match its type's schema",
                      errors={"move": error.messages}) from None
    if key is not None and not 0 < len(key) <= 200:
        raise Problem("bad_idempotency_key", "an Idempotency-Key has 1 to 200 characters")

    def answer(after: games.Table, events: list[dict]) -> dict:
        return move_out(table.game.describe(move), [redact(event, seat) for event in events], after)

    return playing.submit(store, table, seat, move, seen, answer, key, also=also)


def move_out(label: str, events: list[dict], after: games.Table) -> dict:
    """The MoveOut document exactly as `MoveOut().dump` would give it (tests hold it to that)."""
    return {
        "version": after.version, "label": label, "events": events, "status": after.status,
        "pending": [{k: d[k] for k in PENDING_KEYS if k in d} for d in after.pending],
    }
