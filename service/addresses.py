"""A player's change of address, proved from both ends, after which everything of his follows.

The safer of the two ways: a change asked for by a signed-in player (a player token or a browser
signed in by address) mails a link to the NEW address and another to the OLD one, and happens only
once both are opened (in either order, within `LINK_MAX_AGE`). A stolen token or session alone
cannot move an account to its thief's mailbox, and a mistyped new address moves nothing.

On the second confirmation every seat the old address holds names the new one (a private change:
the version stays), as do the games it hosts, its settings, its table talk choices, its webhooks and
its tokens and browser sessions (`sign_ins.hand_on`). The seat keeps its holder generation: it is the
same player, with the same vacation bank, missed turns and messages. The old address loses its power
all the same: seat links, seat sessions, one-click answers and leave links are bound to the seat's
address (`mailed_links.seat_key`), a reply is taken only from the address the seat names, a mail
queued for it is dropped when it would leave, and it is no longer known here, so no sign-in link goes
to it.

Not one transaction: the address's keys and its games lie in many Redis Cluster slots. The keys are
copied first, then each game is committed, then the old keys go; a crash in between leaves the
change marked as under way, and opening either link again (within its day) finishes it.
"""
from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from redis.exceptions import WatchError

from service import games, ratelimit, seats, sign_ins, tokens
from service.channels import webhooks
from service.links import Links
from service.mail.address_mail import confirm_mail
from service.mail.settings import domain_of
from service.problems import Problem
from service.store import PREFIX, Store, dumps, email_key, loads

PURPOSE = "address-change"
LINK_MAX_AGE = 24 * 3600
PAGE = "/address"
NEW, OLD = "new", "old"
# The parts of an address's keys that follow it; the rest (its rate counts, its held mail, its
# delivery record) belong to the old mailbox.
FOLLOWING = ("settings", "talk", "digested", "rounds", "webhooks", "seats", "hosts")
TRIES = 5
ASKS_PER_PLAYER = ratelimit.Limit.parse("3 per hour")
EVERY_STATUS = (games.OPEN, games.RUNNING, games.PAUSED, games.FINISHED, games.CANCELLED)


def _pending_key(nonce: str) -> str:
    return f"{PREFIX}:address-change:{nonce}"


def taken(store: Store, email_hash: str) -> bool:
    """Whether an address plays here already: known (seated or hosting), or signed in with."""
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.exists(email_key(email_hash, "known"))
        pipe.scard(email_key(email_hash, "seats"))
        pipe.scard(email_key(email_hash, "hosts"))
        pipe.scard(sign_ins.index_key(email_hash))
        return any(pipe.execute())


def ask(store: Store, links: Links, owner: str, new: str) -> None:
    """Mail both ends of a change from the address `owner` (a hash) to `new` (checked for form by the
    caller's schema). Refused, with nothing kept or mailed: the same address (422), one another player
    plays from (409 address_taken), an owner whose own address we never kept (403), or more than
    `ASKS_PER_PLAYER` asks (429)."""
    new_hash = tokens.email_hash(new)
    if new_hash == owner:
        raise Problem("address_unchanged", "that is the address you play from already")
    if taken(store, new_hash):
        raise Problem("address_taken", "another player plays from that address; nothing was changed")
    old = seats.address_of(store, owner)
    if old is None:
        raise Problem("address_unproved", "sign in again by a mailed link, so that we know your address")
    wait = ratelimit.hit(store.redis, ASKS_PER_PLAYER, "address-change", owner)
    if wait is not None:  # each ask mails an address he names: no relay
        raise Problem("rate_limited", f"you asked for a change of address {ASKS_PER_PLAYER.count} times within "
                                      f"the hour; try again in {wait} s", headers={"Retry-After": str(wait)}, retry_after=wait)
    nonce = secrets.token_urlsafe(12)
    store.redis.set(_pending_key(nonce), dumps({"old": owner, "new": new, "proved": []}), ex=LINK_MAX_AGE + 60)
    domain = domain_of(links.base_url)
    for side, to in ((NEW, new), (OLD, old)):
        signed = links.sign(PURPOSE, {"n": nonce, "side": side})
        store.followups.send_mail(store, confirm_mail(to, side, old, new, links.url(PAGE, t=signed), domain))


def confirm(store: Store, links: Links, signed: str) -> str:
    """Open one end's link: "waiting" until the other end is opened too, then "changed" once the change
    is made. A link works once; a forged, expired or used one is refused (403) and changes nothing.

    The second end marks the change `moving` (after checking again that no other player came to play
    from the new address meanwhile: 409, and the change is given up) before anything moves, and the
    mark goes only once everything has: a change a crash cut short is finished by opening either
    link again (`move` may run twice)."""
    payload = links.open(PURPOSE, signed, LINK_MAX_AGE)
    if not isinstance(payload, dict) or set(payload) != {"n", "side"} or payload["side"] not in (NEW, OLD):
        raise Problem("bad_link", "this is not an address change link")
    key = _pending_key(str(payload["n"]))
    for _ in range(TRIES):
        with store.redis.pipeline(transaction=True) as pipe:
            pipe.watch(key)
            stored = pipe.get(key)
            if stored is None:
                raise Problem("link_used", "this change was made or given up already; ask for it again")
            pending = loads(stored)
            if pending.get("moving"):
                break
            if payload["side"] in pending["proved"]:
                raise Problem("link_used", "this link was used already; open the one mailed to the other address")
            pending["proved"].append(payload["side"])
            pending["moving"] = len(pending["proved"]) == 2
            if pending["moving"] and taken(store, tokens.email_hash(pending["new"])):
                store.redis.delete(key)
                raise Problem("address_taken", "another player plays from that address now; nothing was changed")
            pipe.multi()
            pipe.set(key, dumps(pending), keepttl=True)
            try:
                pipe.execute()
            except WatchError:  # the other end was opened meanwhile
                continue
        if not pending["moving"]:
            return "waiting"
        break
    else:
        raise Problem("busy", "this change kept changing; try again")
    move(store, pending["old"], pending["new"])
    store.redis.delete(key)
    return "changed"


def move(store: Store, old: str, new: str) -> None:
    """Make everything of the address hashed `old` the address `new`'s (see the module's docstring);
    run again after a crash, it finishes what is left (every step takes only what the old address
    still has)."""
    new_hash = tokens.email_hash(new)
    held = games.seats_held(store, old)
    _, hosts = games.indexed(store, old)
    hosted = games.hosted_in(games.heads(store, hosts), hosts, old)
    _copy_keys(store, old, new_hash)
    store.redis.set(email_key(new_hash, "address"), new)
    store.redis.set(email_key(new_hash, "known"), "1")
    for game_id in sorted(set(held) | set(hosted)):
        _move_in_game(store, game_id, old, new, new_hash)
    for hook in webhooks.of_owner(store, new_hash):
        if hook.owner == old:
            webhooks.save(store, replace(hook, owner=new_hash))
    sign_ins.hand_on(store, old, new_hash)
    store.redis.delete(*(email_key(old, part) for part in (*FOLLOWING, "known", "address")))


def _copy_keys(store: Store, old: str, new_hash: str) -> None:
    """The following keys, whatever their type, into the new address's slots (a RENAME may not cross
    Redis Cluster slots): DUMP and RESTORE with their TTL."""
    with store.redis.pipeline(transaction=False) as pipe:
        for part in FOLLOWING:
            pipe.dump(email_key(old, part))
            pipe.pttl(email_key(old, part))
        answers = pipe.execute()
    with store.redis.pipeline(transaction=False) as pipe:
        for part, dumped, ttl in zip(FOLLOWING, answers[::2], answers[1::2]):
            if dumped is not None:
                pipe.restore(email_key(new_hash, part), max(ttl, 0), dumped, replace=True)
        pipe.execute()
    settings = store.redis.get(email_key(new_hash, "settings"))
    if settings:  # mail that bounced from the old mailbox says nothing of the new one
        store.redis.set(email_key(new_hash, "settings"), dumps({**loads(settings), "bounced": None}))


def _move_in_game(store: Store, game_id: str, old: str, new: str, new_hash: str) -> None:
    """One game's seat (and host address) from `old` to the new address: a private commit, retried."""
    for _ in range(TRIES):
        table = games.load(store, game_id)
        meta: dict[str, Any] = {**table.meta, "seats": [
            {**entry, "email": new, "email_hash": new_hash} if entry.get("email_hash") == old else entry
            for entry in table.meta["seats"]]}
        if games.host_address_of(table) == old:
            meta["host_email_hash"] = new_hash
        if meta == table.meta:
            return
        outcome = store.commit(table.id, table.rev, statuses=EVERY_STATUS,
                               fields={"meta": dumps(meta)}, public=False, wake=store.wake_at(table.id))
        if outcome.outcome == "ok":
            return
        if outcome.outcome != "stale":
            raise games.refused(outcome)
    raise Problem("busy", "a game kept changing while your address moved; open the link again")
