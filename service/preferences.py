"""A player's mail preferences, kept under his address: time zone, which mails he wants, and, per
game, how its table talk reaches him by mail.

`mail` is about the game's own mails (decisions, reminders, round results, scores) and stops all
mail at `none`; table talk follows its own choice per game (`TALK_CHOICES`, one by one unless he
chose otherwise), which `mail: none` (unsubscribing from everything) and a bounce stop too.
A game taken as a daily digest remembers the last message a digest listed (`digested`), set to
the game's latest message when the player chooses the digest, so the first one lists only what
came after.
"""
from __future__ import annotations

import json
from typing import Any

from service.store import Store, dumps, email_key

MAIL_CHOICES = ("all", "decisions", "none")  # decisions: only his decisions and reminders
TALK_CHOICES = ("each", "digest", "none")  # a game's messages: one by one, in a daily digest, or never
TALK_DEFAULT = "each"
DEFAULTS = {"time_zone": "UTC", "mail": "all", "bounced": None}  # bounced: why mail to it stopped


def _parse(raw: str | None) -> dict[str, Any]:
    return {**DEFAULTS, **(json.loads(raw) if raw else {})}


def read(store: Store, email_hash: str) -> dict[str, Any]:
    return _parse(store.redis.get(email_key(email_hash, "settings")))


def read_many(store: Store, email_hashes: list[str]) -> list[dict[str, Any]]:
    """Several addresses' settings in one round trip (a pipeline, not MGET: the keys lie in
    different cluster slots)."""
    if not email_hashes:
        return []
    with store.redis.pipeline(transaction=False) as pipe:
        for email_hash in email_hashes:
            pipe.get(email_key(email_hash, "settings"))
        return [_parse(raw) for raw in pipe.execute()]


def write(store: Store, email_hash: str, changes: dict[str, Any]) -> dict[str, Any]:
    settings = {**read(store, email_hash), **changes}
    store.redis.set(email_key(email_hash, "settings"), dumps(settings))
    return settings


def talk_choices(store: Store, email_hash: str) -> dict[str, str]:
    """How each game's messages reach the address, for the games where it chose (others: TALK_DEFAULT)."""
    return store.redis.hgetall(email_key(email_hash, "talk"))


def talk_choice(store: Store, email_hash: str, game_id: str) -> str:
    return store.redis.hget(email_key(email_hash, "talk"), game_id) or TALK_DEFAULT


def choose_talk(store: Store, email_hash: str, game_id: str, choice: str, latest: int) -> None:
    """Set how the game's messages reach the address; a digest chosen now starts after the game's
    `latest` message (choosing it again keeps what the coming digest is to list)."""
    was = talk_choice(store, email_hash, game_id)
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.hset(email_key(email_hash, "talk"), game_id, choice)
        if choice == "digest" and was != "digest":
            pipe.hset(email_key(email_hash, "digested"), game_id, latest)
        pipe.execute()


def digested(store: Store, email_hash: str) -> dict[str, int]:
    """The last message of each game a digest to the address listed."""
    return {game_id: int(seq) for game_id, seq in store.redis.hgetall(email_key(email_hash, "digested")).items()}


def mark_digested(store: Store, email_hash: str, marks: dict[str, int]) -> None:
    if marks:
        store.redis.hset(email_key(email_hash, "digested"), mapping=marks)
