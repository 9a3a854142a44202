"""A mail received for play-by-reply, however it came (SendGrid's Inbound Parse post, a mailbox read
over IMAP): checked before anything is kept, kept once, and handed on to be played.

It checks that one of its recipients (envelope, To, Cc) is a genuine reply address of ours
(`address.seat_of`; else it is "ignored" and nothing is kept, not even a key to know it again by, so
that a flood for other addresses costs no memory), and that neither its sender nor its seat has sent
more than their hourly share (else "limited", nothing kept). Only then is it kept (`inbox`: only the
fields a reply needs) under a key of its Message-ID, and handed to the store's followups
(`play_reply`), which queue the job that plays it (`workers.replies`) on a queue of its own, or play it
at once without workers. A mail already kept is handed on again only while it is still waiting (it
was kept but never queued, or its job gave up) and nobody else has just dispatched it; so the same
mail received twice, by a provider's second post or a mailbox read again, is played once.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from service import ratelimit, tokens
from service.inbound import address, bounces, inbox, message
from service.inbound.replies import Replies

log = logging.getLogger(__name__)

MAX_BYTES = 1024 * 1024  # a whole mail; a typed reply with the history it quotes fits many times over
FIELD_BYTES = 256 * 1024  # each field kept; what a reply's commands need is at its start
SEAT_LIMIT = ratelimit.Limit.parse("60 per hour")  # mail to one seat's addresses: a reply a minute, whoever sends
SENDER_LIMIT = ratelimit.Limit.parse("120 per hour")  # mail from one sender, who may play several games
DISPATCH_SECONDS = 60  # a mail found dispatched this recently is a duplicate, whatever its status


@dataclass(frozen=True)
class Receipt:
    """What became of a received mail: `status` (ignored, limited, duplicate, report, or what `play_reply`
    gave), the kept mail's `key`, how long a limited sender waits, and whether it is `settled`: False
    only while another dispatch of it, perhaps by a process since killed, may not have handed it on,
    so that it must be received again later, lest it be lost."""

    status: str
    key: str | None = None
    retry_after: int | None = None
    settled: bool = True


def receive(replies: Replies, post: message.Post) -> Receipt:
    """Check, keep and hand on one mail (an Inbound Parse post's fields, or {"email": its bytes}).
    Raises what keeping or queueing raised; then nothing claims the mail, and receiving it again
    hands it on."""
    if post.get("email") and bounces.is_report(post["email"]):
        return Receipt("report" if bounces.take(replies.store, post["email"]) else "ignored")
    try:
        mail = message.read(post)
    except message.UnreadableMail:
        return Receipt("ignored")  # no recipient can be read, so none is ours
    found = address.seat_of(replies.links, mail.recipients)
    if found is None:
        return Receipt("ignored")
    redis = replies.store.redis
    wait = (ratelimit.hit(redis, SEAT_LIMIT, "inbound-seat", f"{found.game_id}:{found.seat}")
            or ratelimit.hit(redis, SENDER_LIMIT, "inbound-sender", tokens.email_hash(mail.sender)))
    if wait is not None:
        log.warning("inbound mail for %s seat %s from a limited sender or seat: not kept", found.game_id, found.seat)
        return Receipt("limited", retry_after=wait)
    key = inbox.key_of(mail.message_id, post)
    if inbox.keep(redis, key, post) not in inbox.PENDING:
        return Receipt("duplicate", key)
    if not inbox.claim(redis, key, "dispatch", DISPATCH_SECONDS):
        return Receipt("duplicate", key, settled=False)
    try:
        status = replies.store.followups.play_reply(replies, key)
    except Exception:
        inbox.unclaim(redis, key, "dispatch")  # the next receipt of the mail dispatches it
        raise
    return Receipt(status, key)
