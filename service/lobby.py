"""The lobby's index: the public games that have an open seat and a join link, newest first.

A sorted set of game ids scored by creation time (milliseconds), in a slot of its own. It is written
after the commit that changes whether a game may be joined (`games.relist`), and read with the games'
heads, so an entry a crash or a finished game left behind is never shown: the reader drops it.
"""
from __future__ import annotations

import re

from service.problems import Problem
from service.store import Store, lobby_key

CURSOR = re.compile(r"^([0-9]{1,16})-([0-9a-f]{1,32})$")


def relist(store: Store, game_id: str, created_ms: int, listed: bool) -> None:
    """Put the game in the lobby, or take it out."""
    if listed:
        store.redis.zadd(lobby_key(), {game_id: created_ms})
    else:
        store.redis.zrem(lobby_key(), game_id)


def drop(store: Store, game_ids: list[str]) -> None:
    if game_ids:
        store.redis.zrem(lobby_key(), *game_ids)


def cursor(game_id: str, created_ms: int) -> str:
    """Where a page ended: the next page starts after this game."""
    return f"{created_ms}-{game_id}"


def parse(text: str | None) -> tuple[int, str] | None:
    if not text:
        return None
    match = CURSOR.match(text)
    if match is None:
        raise Problem("invalid_request", "after must be a cursor the lobby gave (next)",
                      errors={"after": ["Not a lobby cursor."]})
    return int(match[1]), match[2]


def older(store: Store, position: tuple[int, str] | None, start: int, count: int
          ) -> tuple[list[tuple[str, int]], int]:
    """`count` entries of the index from the `start`-th one at or below `position` (newest first),
    as (game id, created ms), and how many were read. Entries of the cursor's own millisecond come in
    descending id order, as Redis gives them, so those at or above its id were on earlier pages and
    are left out."""
    top = position[0] if position else "+inf"
    batch = store.redis.zrevrangebyscore(lobby_key(), top, "-inf", start=start, num=count, withscores=True)
    return [(member, int(score)) for member, score in batch
            if position is None or int(score) < position[0] or member < position[1]], len(batch)
