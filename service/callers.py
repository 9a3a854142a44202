"""Who is calling: one Redis round trip resolves the bearer token and counts the request."""
from __future__ import annotations

from dataclasses import dataclass

from flask import Request

from service import ratelimit, tokens
from service.problems import Problem
from service.store import Store, token_key


@dataclass(frozen=True)
class Caller:
    """`kind` is seat, host, player or anonymous; seat and host tokens belong to one game."""

    kind: str
    identity: str
    game: str | None = None
    seat: int | None = None
    email: str | None = None


def identify(store: Store, request: Request, limit: int, window: int) -> Caller:
    """Resolve the Authorization header; raises 401 for a bad token, 429 over the limit."""
    header = request.headers.get("Authorization", "")
    parts = None
    if header:
        scheme, _, token = header.partition(" ")
        parts = tokens.split(token.strip()) if scheme.lower() == "bearer" else None
        if parts is None:
            raise Problem(401, "bad_token", "send 'Authorization: Bearer <token>' with a token we issued")
    identity = f"t:{parts[0]}" if parts else f"a:{request.remote_addr}"
    counter, retry_after = ratelimit.window_key(identity, window)
    with store.redis.pipeline(transaction=False) as pipe:
        if parts:
            pipe.get(token_key(parts[0]))
        pipe.incr(counter)
        pipe.expire(counter, window + 1, nx=True)
        answers = pipe.execute()
    count = answers[-2]
    if count > limit:
        raise Problem(429, "rate_limited", f"more than {limit} requests in {window} s",
                      headers={"Retry-After": str(retry_after)}, retry_after=retry_after)
    if not parts:
        return Caller("anonymous", identity)
    record = tokens.check(answers[0], parts[1])
    if record is None:
        raise Problem(401, "bad_token", "this token is unknown or revoked")
    return Caller(record["kind"], identity, record.get("game"), record.get("seat"), record.get("email"))
