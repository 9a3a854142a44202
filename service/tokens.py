"""Secret tokens: 256 random bits, stored only as a SHA-256 hash, checked in constant time.

A token reads ``<id>.<secret>``: the id finds the record, the secret is what proves possession. So
a lookup never compares secrets with a timing that depends on them.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from service import sign_ins
from service.store import Store, dumps, loads, token_key


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def email_hash(email: str) -> str:
    """Emails appear in key names only hashed, and compared case-insensitively."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


def mint(record: dict[str, Any]) -> tuple[str, str, str]:
    """A new token for `record`: (token to hand out once, its id, the record to store)."""
    token_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    return f"{token_id}.{secret}", token_id, dumps({**record, "hash": _digest(secret)})


def issue(store: Store, record: dict[str, Any], pipe=None) -> tuple[str, str]:
    """Mint and store a token; returns (token, token id)."""
    token, token_id, stored = mint(record)
    (pipe or store.redis).set(token_key(token_id), stored)
    return token, token_id


def issue_player(store: Store, email_hash: str, ttl: int, origin: str | None) -> str:
    """A player token for a proved address, ending `ttl` seconds after its last use (service.sign_ins)
    and indexed under the address so that its owner can list and revoke it."""
    token, token_id, stored = mint(sign_ins.stamped({"kind": "player", "email": email_hash}, origin))
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.set(token_key(token_id), stored, ex=ttl)
        sign_ins.enter(pipe, email_hash, f"t:{token_id}")
        pipe.execute()
    return token


def split(token: str) -> tuple[str, str] | None:
    token_id, dot, secret = token.partition(".")
    if not dot or not token_id or not secret or len(token) > 200:
        return None
    return token_id, secret


def check(stored: str | None, secret: str) -> dict[str, Any] | None:
    """The token's record if `secret` matches the stored hash, else None (constant time)."""
    if stored is None:
        hmac.compare_digest(_digest(secret), _digest(""))
        return None
    record = loads(stored)
    return record if hmac.compare_digest(record["hash"], _digest(secret)) else None
