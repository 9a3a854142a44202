"""Who is calling: one Redis round trip resolves the bearer token, counts the request and, when the
path names a game, reads that game too, so a request needs no second read before its commit."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Request

from service import ratelimit, tokens
from service.problems import Problem
from service.store import Store, game_key, head_fields, token_key


@dataclass(frozen=True)
class Caller:
    """`kind` is seat, host, player or anonymous; seat and host tokens belong to one game."""

    kind: str
    identity: str
    game: str | None = None
    seat: int | None = None
    email: str | None = None


def identify(store: Store, request: Request, limit: int, window: int, game_id: str | None = None,
             game_fields: tuple[str, ...] = ()) -> tuple[Caller, dict[str, str | None] | None]:
    """Resolve the Authorization header; raises 401 for a bad token, 429 over the limit.

    With `game_id`, the same pipeline also reads the game's head (as `Store.head(game_id, *game_fields)`
    would) and returns it beside the caller; otherwise the second item is None.
    """
    header = request.headers.get("Authorization", "")
    parts = None
    if header:
        scheme, _, token = header.partition(" ")
        parts = tokens.split(token.strip()) if scheme.lower() == "bearer" else None
        if parts is None:
            raise Problem(401, "bad_token", "send 'Authorization: Bearer <token>' with a token we issued")
    identity = f"t:{parts[0]}" if parts else f"a:{request.remote_addr}"
    counter, retry_after = ratelimit.window_key(identity, window)
    fields = head_fields(game_fields)
    with store.redis.pipeline(transaction=False) as pipe:
        if parts:
            pipe.get(token_key(parts[0]))
        pipe.incr(counter)
        pipe.expire(counter, window + 1, nx=True)
        if game_id is not None:
            pipe.hmget(game_key(game_id, "game"), fields)
        answers = pipe.execute()
    count = answers[1 if parts else 0]
    if count > limit:
        raise Problem(429, "rate_limited", f"more than {limit} requests in {window} s",
                      headers={"Retry-After": str(retry_after)}, retry_after=retry_after)
    head = dict(zip(fields, answers[-1])) if game_id is not None else None
    if not parts:
        return Caller("anonymous", identity), head
    record = tokens.check(answers[0], parts[1])
    if record is None:
        raise Problem(401, "bad_token", "this token is unknown or revoked")
    return Caller(record["kind"], identity, record.get("game"), record.get("seat"), record.get("email")), head
