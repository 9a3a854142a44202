"""How every mail leaves, whichever way it was queued (the RQ send job and each of its retries,
`Inline`, a flush of held decision mails): once, and only while it is still true.

Right after the provider accepts a mail, a key named by its Message-ID records it as sent, and to whom
(hashed; kept SENT_KEEP); a job that runs again (its worker killed after the provider accepted) finds the record
and sends nothing. Before that, `seats.still_due` checks the mail against the game and the player's
choices as they are now; a mail it drops is no failure (nothing is undelivered), only logged and
counted per kind under DROPPED. A mail of parts leaves with the parts still due (`render.remade`): a
merged mail with one decision left, as that decision's mail; none, not at all.
"""
from __future__ import annotations

import logging
from typing import Any

from service import counters, tokens
from service.mail import render, seats
from service.mail.backends import deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from service.store import PREFIX, Store, dumps, loads

log = logging.getLogger(__name__)

SENT_KEEP = 3 * 24 * 3600  # longer than every retry of a send job, and than RQ takes to re-run an abandoned one
DROPPED = f"{PREFIX}:mail:dropped"


def sent_key(mail: Mail) -> str | None:
    """The key that records the mail as sent; None for a mail without a Message-ID (made by hand)."""
    return f"{PREFIX}:mail:sent:{mail.message_id.strip('<>')}" if mail.message_id else None


def send(store: Store, mail: Mail, settings: MailSettings) -> str:
    """Deliver the mail unless it was sent already or is no longer due: the provider's id, or "" when
    nothing went. Delivery errors (`MailError`) are the caller's to retry or keep."""
    record = sent_key(mail)
    if record is not None and (earlier := store.redis.get(record)) is not None:
        log.info("%s mail %s to %s was sent already (%s): not again", mail.kind, mail.message_id, mail.to, earlier)
        return _sent(earlier).get("id", earlier)
    why = seats.still_due(store, mail)
    outgoing: Mail | None = mail
    if why is None and mail.parts:
        due = seats.due_parts(store, mail)
        if len(due) < len(mail.parts):
            outgoing = render.remade(mail, due, settings.domain)
    if why is not None or outgoing is None:
        log.info("%s mail %s to %s not sent: %s", mail.kind, mail.message_id, mail.to, why)
        store.redis.hincrby(DROPPED, mail.kind, 1)
        return ""
    provider_id = deliver(outgoing, settings, store.redis)
    counters.count(store.redis, counters.MAILS_SENT, mail.kind)
    if record is not None:
        store.redis.set(record, dumps({"id": provider_id or "accepted", "to": tokens.email_hash(mail.to),
                                       "game": mail.game, "seat": mail.seat, "kind": mail.kind}), ex=SENT_KEEP)
    return provider_id


def sent(store: Store, message_id: str) -> dict[str, Any]:
    """What was recorded of the mail sent under `message_id` in the last SENT_KEEP: the provider's `id`,
    the address hash it went `to`, its `game`, `seat` and `kind`; {} for none (or one recorded before these
    were). A delivery report must name that address for us to believe it (`inbound.bounces`)."""
    return _sent(store.redis.get(f"{PREFIX}:mail:sent:{message_id.strip('<>')}"))


def _sent(record: str | None) -> dict[str, Any]:
    try:
        found = loads(record) if record and record.startswith("{") else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
