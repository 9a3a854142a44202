"""Delivery reports (RFC 3464: multipart/report; report-type=delivery-status) that come back to the
mailbox Palazzo reads, for mail it sent through SMTP, which has no provider's events to say so.

A report is believed only where it quotes the Message-ID of a mail we sent to the very address it says
failed (`sending.sent`, kept three days): a Message-ID is known only to the mail's recipient and
the servers it crossed, so nobody can stop another player's mail with a forged report, and a player
who forges one for himself only stops his own. A believed permanent failure (Action: failed, Status
5.x.x) marks the address as bounced, as SendGrid's bounce event does (`web.mail_events`), so that
`mail.seats.still_due` stops mailing it, and shows the host the mail as undelivered in the game it was
sent for. Delays (Action: delayed) and 4.x.x change nothing.
"""
from __future__ import annotations

import email
import logging
from dataclasses import dataclass
from email import policy
from email.message import Message
from email.utils import parseaddr

from service import preferences, tokens
from service.inbound.message import MESSAGE_ID
from service.mail import sending, undelivered
from service.store import Store

log = logging.getLogger(__name__)
MAX_RECIPIENTS = 20  # of one report read; ours go to one address each


@dataclass(frozen=True)
class Failure:
    """One recipient a report says the mail `message_id` could not be delivered to, for good."""

    recipient: str
    status: str  # "5.1.1"
    message_id: str


def is_report(raw: bytes) -> bool:
    """Whether a raw mail is a delivery status report (read from its headers alone)."""
    parsed = email.message_from_bytes(raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0], policy=policy.compat32)
    return (parsed.get_content_type() == "multipart/report"
            and str(parsed.get_param("report-type") or "").lower() == "delivery-status")


def failures(raw: bytes) -> list[Failure]:
    """The permanent failures a report gives, for the mail whose Message-ID it quotes; [] if none."""
    report = email.message_from_bytes(raw, policy=policy.compat32)
    status_blocks: list[Message] = []
    quoted: str | None = None
    for part in report.walk():
        kind = part.get_content_type()
        if kind == "message/delivery-status":
            status_blocks += [block for block in part.get_payload() if isinstance(block, Message)]
        elif kind in ("message/rfc822", "text/rfc822-headers") and quoted is None:
            quoted = _quoted_id(part)
    if quoted is None:
        return []
    found = []
    for block in status_blocks[:MAX_RECIPIENTS + 1]:
        action, status = str(block.get("Action", "")).strip().lower(), str(block.get("Status", "")).strip()
        recipient = parseaddr(str(block.get("Final-Recipient", "")).split(";", 1)[-1])[1]
        if action == "failed" and status.startswith("5.") and recipient:
            found.append(Failure(recipient, status.split()[0][:12], quoted))
    return found


def _quoted_id(part: Message) -> str | None:
    """The Message-ID of the returned mail (its whole text, or its headers only)."""
    if part.get_content_type() == "message/rfc822":
        inner = part.get_payload()
        original = inner[0] if isinstance(inner, list) and inner and isinstance(inner[0], Message) else None
    else:
        text = part.get_payload(decode=True)
        original = email.message_from_bytes(text, policy=policy.compat32) if isinstance(text, bytes) else None
    ids = MESSAGE_ID.findall(str(original.get("Message-ID", ""))) if original is not None else []
    return ids[0] if ids else None


def take(store: Store, raw: bytes) -> int:
    """Mark as bounced each address a believed report says failed for good; how many were marked."""
    marked = 0
    for failure in failures(raw):
        address, sent = tokens.email_hash(failure.recipient), sending.sent(store, failure.message_id)
        if sent.get("to") != address:
            log.warning("a delivery report for %s quotes no mail we sent there: ignored", failure.message_id)
            continue
        event = {"event": "bounce", "status": failure.status, "email": failure.recipient}
        preferences.write(store, address, {"bounced": undelivered.event_reason(event)})
        if isinstance(sent.get("game"), str):
            undelivered.stopped(store.redis, {**event, "game": sent["game"], "seat": sent.get("seat"),
                                             "kind": sent.get("kind")})
        marked += 1
    return marked
