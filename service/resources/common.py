"""What every resource needs: the store, the caller, his seat at a game, and the game as he sees it."""
from __future__ import annotations

from typing import Any, Callable

from flask import current_app, g, request
from flask_smorest import Blueprint

from service import games
from service.callers import Caller
from service.problems import Problem
from service.store import Store

AUTH = [{}, {"token": []}]
IF_MATCH = {"in": "header", "name": "If-Match", "required": False,
            "schema": {"type": "string"}, "description": "The game version the move was made against."}
IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": False,
                   "schema": {"type": "string", "maxLength": 200},
                   "description": "A retry with the same key returns the first response and moves nothing."}
ETAG = {"ETag": {"description": "The game version, quoted", "schema": {"type": "string"}}}


PROBLEMS = {401: "UNAUTHORIZED", 403: "FORBIDDEN", 404: "NOT_FOUND", 409: "CONFLICT",
            422: "UNPROCESSABLE_ENTITY", 428: "PRECONDITION_REQUIRED"}


def documented(blp: Blueprint, *statuses: int, parameters: list[dict] | None = None) -> Callable:
    """Publish the problem responses a route can give, its token security and extra header parameters."""
    def decorate(view: Callable) -> Callable:
        for status in statuses:
            view = blp.alt_response(status, response=PROBLEMS[status])(view)
        return blp.doc(security=AUTH, **({"parameters": parameters} if parameters else {}))(view)
    return decorate


def blueprint(name: str, description: str) -> Blueprint:
    return Blueprint(name, name, url_prefix="/api/v1", description=description)


def store() -> Store:
    return current_app.extensions["palazzo.store"]


def caller() -> Caller:
    return g.caller


def load_game(game_id: str) -> games.Table:
    """The game named in the path: the copy read with the caller's token (once), else a fresh read.

    Only the first load of a request takes the prefetched copy; a view that loads again (to retry
    after a stale commit, say) reads Redis anew.
    """
    prefetched = g.pop("prefetched_game", None)
    head = prefetched[1] if prefetched is not None and prefetched[0] == game_id else None
    return games.load(store(), game_id, head)


def viewer(table: games.Table, who: Caller) -> tuple[str, int | None]:
    """The caller's role at this game and his seat: seat tokens and player tokens act for a seat."""
    if who.kind == "seat":
        if who.game != table.id:
            raise Problem(403, "wrong_game", "this seat token belongs to another game")
        return "seat", who.seat
    if who.kind == "host":
        if who.game != table.id:
            raise Problem(403, "wrong_game", "this host token belongs to another game")
        return "host", None
    if who.kind == "player":
        seat = table.seat_of_email(who.email)
        return ("seat", seat) if seat is not None else ("spectator", None)
    return "spectator", None


def seat_of(table: games.Table, who: Caller) -> int:
    """The seat the caller acts for; 401 without a token, 403 when he holds no seat here."""
    if who.kind == "anonymous":
        raise Problem(401, "token_required", "send a seat token as 'Authorization: Bearer <token>'")
    role, seat = viewer(table, who)
    if seat is None:
        raise Problem(403, "not_a_seat", "only a player seated at this game may do this")
    return seat


def host_of(table: games.Table, who: Caller) -> None:
    if who.kind == "anonymous":
        raise Problem(401, "token_required", "send the host token as 'Authorization: Bearer <token>'")
    if who.kind != "host" or who.game != table.id:
        raise Problem(403, "host_only", "only this game's host may do this")


def game_out(table: games.Table, who: Caller) -> dict[str, Any]:
    """The game as the caller may see it: the engine's redacted view plus what the service adds."""
    role, seat = viewer(table, who)
    seats = []
    for number, entry in enumerate(table.meta["seats"]):
        out = {"seat": number, "name": entry["name"], "bot": entry.get("bot")}
        if role == "host" or (role == "seat" and seat == number):
            out["email"] = entry.get("email")
        seats.append(out)
    return {
        "id": table.id, "game": table.meta["game"], "status": table.status, "version": table.version,
        "created_at": table.meta["created_at"], "options": table.meta["options"],
        "deadlines": table.meta["deadlines"], "seats": seats, "pending": table.pending,
        "view": table.game.view(table.state, seat), "result": table.game.result(table.state),
        "you": {"role": role, "seat": seat}, "paused_until": table.meta.get("paused_until"),
        "pauses_left": games.MAX_PAUSES - table.meta["pauses_used"],
    }


def expected_version(body_version: int | None) -> int:
    """The version the caller saw: the body's `version` or If-Match ("7", W/"7" or 7)."""
    header = request.headers.get("If-Match")
    if header is not None:
        text = header.strip().removeprefix("W/").strip('"')
        if not text.isdigit() or len(text) > 15:
            raise Problem(422, "bad_if_match", "If-Match must be the game version, e.g. \"7\"")
        if body_version is not None and int(text) != body_version:
            raise Problem(422, "version_mismatch", "If-Match and version disagree")
        return int(text)
    if body_version is None:
        raise Problem(428, "version_required", "name the version you saw: If-Match or a 'version' field")
    return body_version


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}
