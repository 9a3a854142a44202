"""A player's data deleted at his asking (`DELETE /me`, the settings page): his address goes from every
key, and every game goes on for the others.

What goes: his address and everything kept under it (settings, table talk choices, digests, seat and
host indexes, the mark that lets it sign in), his player tokens and browser sessions, his webhooks,
the mail and sign-in links queued to him, the records of mail sent to him, and his address in every
game that named it (its seats, its host, its host's list of undelivered mail); also a change of
address he asked for and did not finish, and a mailed reply of his kept because it failed. What stays is
what belongs to the others too: each game, its moves, its log and its talk. His seats keep their
names. A seat of a game not over is left as if he had left it (`leaving.vacate`, the one path, without
the mail that would tell him): it is open, its stand-in plays it, a substitute may take it. A finished
or cancelled game keeps his seat's name, result and messages, without the address; a game he hosts
loses its host's address, and its host token still hosts it.

His request-rate windows stay until they end by themselves (twice their period): they hold the hash of
his address and a count, nothing else, and deleting them would let a deletion reset his limits.

Not one transaction: his keys and his games lie in many Redis Cluster slots. The games go first,
each in its own commit, then the keys; run again after a crash, it finishes what is left (each step
takes only what still names him), and his tokens are revoked in the first step, so a half-deleted
player can no longer act.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service import games, leaving, seats, sign_ins
from service.channels import webhooks
from service.links import Links
from service.mail.message import Mail
from service.mail.outbox import OUTBOX
from service.problems import Problem
from service.status import Status
from service.store import PREFIX, Store, dumps, email_key, game_key, loads

TRIES = 5
EVERY_STATUS = tuple(Status)
STILL_PLAYED = (games.OPEN, games.RUNNING, games.PAUSED)
DELETED = Mail(to="", subject="(deleted at its reader's asking)", text="", kind="deleted")


@dataclass(frozen=True)
class Forgotten:
    """What a deletion did: the seats it left, the games it took his address from, what it ended."""

    left: int
    games: int
    sign_ins: int
    webhooks: int
    mail: int


def forget(store: Store, links: Links, owner: str) -> Forgotten:
    """Delete the data of the address hashed `owner` (see the module's docstring)."""
    address = seats.address_of(store, owner)
    ended = sign_ins.revoke_all(store, owner)
    held = games.seats_held(store, owner)
    _, hosts = games.indexed(store, owner)
    hosted = games.hosted_in(games.heads(store, hosts), hosts, owner)
    left = 0
    for game_id, (seat, head) in sorted(held.items()):
        if head.status in STILL_PLAYED and _leave(store, links, game_id, seat, owner):
            left += 1
    touched = sorted(set(held) | set(hosted))
    for game_id in touched:
        _scrub_game(store, game_id, owner, address)
    hooks = webhooks.of_owner(store, owner)
    for hook in hooks:
        webhooks.remove(store, hook)
    dropped = _drop_mail(store, address) if address else 0
    _drop_sent_records(store, owner)
    _drop_asides(store, owner, address)
    keys = list(store.redis.scan_iter(match=email_key(owner, "*"), count=500))
    if keys:
        store.redis.delete(*keys)
    return Forgotten(left, len(touched), ended, len(hooks), dropped)


def _leave(store: Store, links: Links, game_id: str, seat: int, owner: str) -> bool:
    """Leave the seat as a player leaves it, for the generation that holds it now; False when it is not
    his to leave any more (handed on, or the game ended meanwhile: the scrub takes his address then)."""
    table = games.load(store, game_id)
    if table.meta["seats"][seat].get("email_hash") != owner:
        return False
    try:
        leaving.vacate(store, links, table, seat, games.LEFT, holder=table.holder(seat), tell=False)
    except Problem as problem:
        if problem.status != 409 and problem.code != "not_a_seat":
            raise
        return False
    return True


def _scrub_game(store: Store, game_id: str, owner: str, address: str | None) -> None:
    """The game without his address: in its seats (the name stays), as its host's, and in the host's
    list of undelivered mail. A private commit (nobody's version moves), retried on a stale read."""
    for _ in range(TRIES):
        table = games.load(store, game_id)
        meta: dict[str, Any] = {**table.meta, "seats": [
            {key: value for key, value in entry.items() if key not in ("email", "email_hash", "quiet")}
            | {"email": None} if entry.get("email_hash") == owner else entry
            for entry in table.meta["seats"]]}
        if games.host_address_of(table) == owner:
            meta["host_email_hash"] = None
        if meta != table.meta:
            outcome = store.commit(table.id, table.rev, statuses=EVERY_STATUS, fields={"meta": dumps(meta)},
                                   public=False, wake=store.wake_at(table.id))
            if outcome.outcome == "stale":
                continue
            if outcome.outcome != "ok":
                raise games.refused(outcome)
        break
    else:
        raise Problem("busy", "a game kept changing while your data was deleted; ask again")
    if address:
        _without(store, game_key(game_id, "undelivered"), lambda entry: entry.get("to") == address)


def _drop_mail(store: Store, address: str) -> int:
    """The mail to him, or naming him, that has not left yet (queued jobs) or lies in the local outbox: gone."""
    dropped = store.followups.drop_mail(store, address) if store.followups is not None else 0
    named = address.lower()
    return dropped + _without(store, OUTBOX, lambda mail: named in dumps(mail).lower(), tombstone=True)


def _drop_sent_records(store: Store, owner: str) -> None:
    """The records of mail sent to him (kept a few days to believe a delivery report): a report about a
    deleted address has nobody left to tell."""
    keys = list(store.redis.scan_iter(match=f"{PREFIX}:mail:sent:*", count=1000))
    with store.redis.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.get(key)
        records = pipe.execute()
    mine = [key for key, raw in zip(keys, records) if raw and raw.startswith("{") and loads(raw).get("to") == owner]
    if mine:
        store.redis.delete(*mine)


def _drop_asides(store: Store, owner: str, address: str | None) -> None:
    """What lies outside his keys and games: a change of address he asked for and has not finished
    (it names both addresses), and a mailed reply of his kept because it failed (its fields name him)."""
    changes = list(store.redis.scan_iter(match=f"{PREFIX}:address-change:*", count=1000))
    replies = list(store.redis.scan_iter(match=f"{PREFIX}:inbound:*:raw", count=1000)) if address else []
    with store.redis.pipeline(transaction=False) as pipe:
        for key in changes + replies:
            pipe.get(key)
        found = pipe.execute()
    mine = [key for key, raw in zip(changes, found) if raw and loads(raw).get("old") == owner]
    mine += [key for key, raw in zip(replies, found[len(changes):]) if raw and address.lower() in raw.lower()]
    if mine:
        store.redis.delete(*mine)


def _without(store: Store, key: str, matches, tombstone: bool = False) -> int:
    """Take the entries of the list `key` that `matches` out of it; with `tombstone`, an emptied entry
    stays in their place, so the places of the others (the outbox's message ids) do not move."""
    entries = store.redis.lrange(key, 0, -1)
    gone = [index for index, raw in enumerate(entries) if matches(loads(raw))]
    if not gone:
        return 0
    with store.redis.pipeline(transaction=False) as pipe:
        for index in gone:
            pipe.lset(key, index, dumps(DELETED.to_json()) if tombstone else "")
        if not tombstone:
            pipe.lrem(key, 0, "")
        pipe.execute()
    return len(gone)
