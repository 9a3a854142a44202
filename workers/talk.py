"""Table talk by mail: who gets a message, one by one or in a daily digest (`service.messages` keeps
the messages and decides who may read each).

`posted` runs once per message (queued by `service.followups.Queued.talk`): each seat that may read
it (`messages.shown`), but its writer, whose player has an address and takes mail, gets it as its
player chose for that game: one by one (the default) as a part held for the merge window, so that
it joins a decision mail (or other messages) due meanwhile; in a digest, by making sure a digest
job is scheduled for his address; or not at all. A claim per message and seat holder sends it once.

A message for a digest makes sure the player's daily digest is coming (`workers.digest`, at his
digest hour in his zone), which lists, per game he takes as a digest, the messages his seat may read
since the last one. Every part is checked again when the mail leaves (`service.mail.seats.still_due`):
still his seat, still his choice, not hidden by the host meanwhile.
"""
from __future__ import annotations

from service import games, logs, messages, preferences, tokens
from service.inbound import address
from service.mail import render, seats
from workers import context
from workers import webhooks as webhook_jobs, notify
from workers import digest as daily_digest

CLAIM_TTL = 30 * 24 * 3600


def _reply_to(table: games.Table, seat: int) -> str | None:
    """The seat's reply address, when replies are taken: a reply to a message mail is a message."""
    settings = context.config().mail
    return address.address(context.links(), table.id, seat, table.holder(seat), settings.reply_domain) \
        if settings.replies else None


def part_of(table: games.Table, seat: int, to: render.Recipient, message: dict, digest: bool = False) -> render.Part:
    frame = seats.frame(table, context.config().mail.domain)
    return render.talk_part(message, frame, to, seats.talk_links(context.links(), table, seat),
                            _reply_to(table, seat), digest, table.meta.get("title") or table.id)


@logs.game_job
def posted(game_id: str, seq: int) -> int:
    """Mail message `seq` to every seat that takes it one by one, and schedule the digests of those
    who take it daily; returns how many seats it was held (or sent) for."""
    store = context.store()
    table = games.load(store, game_id)
    webhook_jobs.tell(store, table)  # the other channel, told of the same message
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
            daily_digest.schedule(store, tokens.email_hash(to.email))
        elif choice == "each" and seats.claim(store, game_id, f"talk:{seq}:{seat}:{to.holder}", CLAIM_TTL):
            notify.send_part(store, part_of(table, seat, to, seen), to.email, wait=True)
            sent += 1
    return sent


def digest(email_hash: str) -> int:
    """The daily digest (`workers.digest.daily`), under the name its jobs were queued by before."""
    return daily_digest.daily(email_hash)
