"""Who is calling: one Redis round trip resolves the bearer token and, when the path names a game,
reads that game too, so a request needs no second read before its commit."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from flask import Request

from service import sign_ins, tokens
from service.problems import Problem
from service.store import Store, game_key, head_fields, token_key


@dataclass(frozen=True)
class Caller:
    """`kind` is seat, host, player or anonymous; seat and host tokens belong to one game.

    `identity` keys the caller's rate limit: the token's id once the token is verified, else the
    client address, so forged tokens share their sender's limit instead of each getting a fresh one.
    """

    kind: str
    identity: str
    game: str | None = None
    seat: int | None = None
    email: str | None = None


def claimed_identity(request: Request) -> str:
    """Who the request says it is, before anything is checked: the bearer token's id, or the address."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    parts = tokens.split(token.strip()) if scheme.lower() == "bearer" else None
    return f"t:{parts[0]}" if parts else f"a:{request.remote_addr}"


def identify(store: Store, request: Request, game_id: str | None = None, game_fields: tuple[str, ...] = (),
             also: Callable[[Any], None] | None = None, idle: sign_ins.Idle | None = None
             ) -> tuple[Caller, dict[str, str | None] | None, Problem | None, Any]:
    """Resolve the Authorization header: (caller, the game's head when `game_id`, a 401 to answer,
    the answers to what `also` read in the same round trip).

    A bad token yields an anonymous caller (keyed by address) and the 401 problem, so that the rate
    limit is counted against the address before the refusal. A player token unused for `idle` is
    refused (401 token_expired); a use of one slides its end (`sign_ins.touch`).
    """
    address = f"a:{request.remote_addr}"
    header = request.headers.get("Authorization", "")
    parts = None
    if header:
        scheme, _, token = header.partition(" ")
        parts = tokens.split(token.strip()) if scheme.lower() == "bearer" else None
        if parts is None:
            return Caller("anonymous", address), None, Problem(
                "bad_token", "send 'Authorization: Bearer <token>' with a token we issued"), None
    fields = head_fields(game_fields)
    with store.redis.pipeline(transaction=False) as pipe:
        if parts:
            pipe.get(token_key(parts[0]))
        if game_id is not None:
            pipe.hmget(game_key(game_id, "game"), fields)
        asked = len(pipe)
        if also is not None:
            also(pipe)
        answers = pipe.execute()
    extra = answers[asked:] if also is not None else None
    answers = answers[:asked]
    head = dict(zip(fields, answers[-1])) if game_id is not None else None
    if not parts:
        return Caller("anonymous", address), head, None, extra
    record = tokens.check(answers[0], parts[1])
    if record is None:
        return Caller("anonymous", address), None, Problem("bad_token", "this token is unknown or revoked"), None
    if record["kind"] == "player" and idle is not None:
        if idle.expired(record, sign_ins.now()):
            return Caller("anonymous", address), None, Problem(
                "token_expired", "this token went unused too long and has ended; sign in again by a mailed link"), None
        sign_ins.touch(store, f"t:{parts[0]}", answers[0], record, idle)
    caller = Caller(record["kind"], f"t:{parts[0]}", record.get("game"), record.get("seat"), record.get("email"))
    return caller, head, None, extra
