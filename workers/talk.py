"""Table talk by mail: who gets a message, one by one or in a daily digest (`service.messages` keeps
the messages and decides who may read each).

`posted` runs once per message (queued by `service.followups.Queued.talk`): each seat that may read
it (`messages.shown`), but its writer, whose player has an address and takes mail, gets it as its
player chose for that game: one by one (the default) as a part held for the merge window, so that
it joins a decision mail (or other messages) due meanwhile; in a digest, by making sure a digest
job is scheduled for his address; or not at all. A claim per message and seat holder sends it once.

`digest` runs once a day per address that has a digest coming (scheduled at DIGEST_HOUR of the
player's time zone by the first message after the last digest): one mail listing, per game he
takes as a digest, the messages his seat may read since the last digest. Every part is checked
again when the mail leaves (`service.mail.seats.still_due`): still his seat, still his choice,
not hidden by the host meanwhile.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from service import deadlines, games, messages, preferences, tokens
from service.inbound import address
from service.mail import phrases, render, seats
from service.mail.settings import MailSettings
from service.store import Store, email_key
from workers import context, notify

DIGEST_HOUR = 18  # of the player's own day: the evening's digest of the day's talk
CLAIM_TTL = 30 * 24 * 3600


def _reply_to(table: games.Table, seat: int) -> str | None:
    """The seat's reply address, when replies are taken: a reply to a message mail is a message."""
    settings = MailSettings.from_env()
    return address.address(context.links(), table.id, seat, table.holder(seat), settings.reply_domain) \
        if settings.replies else None


def _part(table: games.Table, seat: int, to: render.Recipient, message: dict, digest: bool = False) -> render.Part:
    frame = seats.frame(table, MailSettings.from_env().domain)
    return render.talk_part(message, frame, to, seats.talk_links(context.links(), table, seat),
                            _reply_to(table, seat), digest, table.meta.get("title") or table.id)


def posted(game_id: str, seq: int) -> int:
    """Mail message `seq` to every seat that takes it one by one, and schedule the digests of those
    who take it daily; returns how many seats it was held (or sent) for."""
    store = context.store()
    table = games.load(store, game_id)
    message = messages.message(store, game_id, seq)
    if message is None or message.get("hidden"):
        return 0
    sent = 0
    for seat in range(len(table.meta["seats"])):
        seen = messages.shown(message, messages.Reader(seat))
        to = seats.recipient(store, table, seat) if seen is not None and seat != message["by"] else None
        if to is None:
            continue
        choice = preferences.talk_choice(store, tokens.email_hash(to.email), game_id)
        if choice == "digest":
            schedule_digest(store, tokens.email_hash(to.email), to.time_zone)
        elif choice == "each" and seats.claim(store, game_id, f"talk:{seq}:{seat}:{to.holder}", CLAIM_TTL):
            notify.send_part(store, _part(table, seat, to, seen), to.email, wait=True)
            sent += 1
    return sent


def next_digest(now: datetime, time_zone: str) -> datetime:
    """The next DIGEST_HOUR o'clock in the player's zone, after `now`."""
    local = now.astimezone(phrases.zone(time_zone))
    due = local.replace(hour=DIGEST_HOUR, minute=0, second=0, microsecond=0)
    return due if due > local else due + timedelta(days=1)


def schedule_digest(store: Store, email_hash: str, time_zone: str) -> bool:
    """Make sure a digest job is coming for the address (one at a time): True when this call scheduled it."""
    when = next_digest(deadlines.now(), time_zone)
    mark = email_key(email_hash, "digest")
    if not store.redis.set(mark, deadlines.stamp(when), nx=True, ex=2 * 24 * 3600):
        return False
    store.followups.queue.enqueue_at(when, "workers.talk.digest", email_hash, description="mail a digest of talk")
    return True


def digest(email_hash: str) -> int:
    """Mail the address the messages of its digest games since the last digest; returns how many."""
    store = context.store()
    store.redis.delete(email_key(email_hash, "digest"))  # the next message schedules the next digest
    chosen = preferences.talk_choices(store, email_hash)
    marks = preferences.digested(store, email_hash)
    parts, to, done = [], None, {}
    for game_id, (seat, _) in sorted(games.seats_held(store, email_hash).items()):
        if chosen.get(game_id) != "digest":
            continue
        table = games.load(store, game_id)
        recipient = seats.recipient(store, table, seat)
        after = marks.get(game_id, messages.count(store, game_id))
        found = messages.since(store, game_id, after)
        if found:
            done[game_id] = found[-1]["seq"]
        if recipient is None:
            continue
        to = to or recipient
        for message in found:
            seen = messages.shown(message, messages.Reader(seat))
            if seen is not None and seen["text"] is not None and message["by"] != seat and not seen["hidden"]:
                parts.append(_part(table, seat, recipient, seen, digest=True))
    if parts and to is not None:
        store.followups.send_mail(store, render.digest(parts, to.email, MailSettings.from_env().domain))
    preferences.mark_digested(store, email_hash, done)
    return len(parts)
