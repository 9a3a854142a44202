"""Moves: the caller's legal moves with labels, and submitting one move at a named version."""
from __future__ import annotations

from flask import current_app, request
from marshmallow import ValidationError

from service import games
from service.problems import Problem
from service.resources.common import (ETAG, IDEMPOTENCY_KEY, IF_MATCH, blueprint, caller, documented, etag,
                                      expected_version, load_game, seat_of, store)
from service.schemas import LegalMovesOut, MoveIn, MoveOut, PendingOut
from service.vocabulary import check_move
from engine.core import redact

blp = blueprint("moves", "The caller's legal moves, and submitting one move.")

PENDING_KEYS = tuple(PendingOut._declared_fields)


@blp.route("/games/<game_id>/moves", methods=["GET"])
@blp.response(200, LegalMovesOut, headers=ETAG)
@documented(blp, 401, 403, 404)
def legal_moves(game_id):
    """Every move the caller's seat may make now, labelled; free moves are listed by type."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    game = table.game
    moves = game.legal_moves(table.state, seat) if table.status == games.RUNNING else []
    return {
        "version": table.version, "seat": seat,
        "pending": [d for d in table.pending if d["seat"] == seat],
        "moves": [{"move": move, "label": game.describe(move)} for move in moves],
        "free": [{"type": t, "doc": spec["doc"]} for t, spec in game.move_types.items() if spec.get("free")],
    }, etag(table.version)


@blp.route("/games/<game_id>/moves", methods=["POST"])
@blp.arguments(MoveIn())
@blp.response(200, MoveOut, headers=ETAG)
@documented(blp, 401, 403, 404, 409, 422, 428, parameters=[IF_MATCH, IDEMPOTENCY_KEY])
def submit_move(body, game_id):
    """Submit one move made against a version; stale gets 409, illegal gets 422 with the engine's code."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    expected = expected_version(body.get("version"))
    try:
        move = check_move(table.game, body["move"])
    except ValidationError as error:
        raise Problem(422, "invalid_move", "the move does not match its type's schema",
                      errors={"move": error.messages}) from None
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 200:
        raise Problem(422, "bad_idempotency_key", "an Idempotency-Key has 1 to 200 characters")
    after, events, version, replayed = games.submit(store(), table, seat, move, expected, key)
    if replayed is not None:
        if "body" not in replayed:
            raise Problem(409, "in_progress", "the first request with this Idempotency-Key is still running")
        return replayed["body"], {**etag(replayed["body"]["game_version"]), "Idempotent-Replayed": "true"}
    answer = move_out(version, table.game.describe(move), [redact(event, seat) for event in events], after)
    if key is not None:
        games.remember_response(store(), game_id, seat, key, move, answer)
    return current_app.json.response(answer), etag(after.version)


def move_out(version: int, label: str, events: list[dict], after: games.Table) -> dict:
    """The MoveOut document exactly as `MoveOut().dump` would give it (tests hold it to that).

    Built directly and returned as a ready Response, which flask-smorest passes through without
    dumping again: this answer is on the hot path and has only already-checked fields. The
    decorator's MoveOut still documents it in the OpenAPI spec.
    """
    return {
        "version": version, "label": label, "events": events, "game_version": after.version,
        "status": after.status,
        "pending": [{k: d[k] for k in PENDING_KEYS if k in d} for d in after.pending],
    }
