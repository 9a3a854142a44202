"""Mail that did not reach its player, kept per game so that the host can see it and act.

The host may see of it what he may see of any seat's mail: when, to whom (the seat and its address,
which he sees anyway), the kind, and why, in words that cannot carry the mail: ours and the provider's
status codes. Never a subject (a reply's answer is headed "Done: Keep jurist, architect, map maker")
nor the provider's own text, which may echo the mail.
"""
from __future__ import annotations

import re
import time
from typing import Any

from redis import Redis

from engine.typed import whole_number
from service import counters
from service.mail.errors import MailError, PermanentMailError
from service.mail.message import Mail
from service.store import dumps, game_key, loads

KEEP = 100  # the newest entries a game keeps
KINDS = {  # what each kind of mail was, as the host reads it
    "your_turn": "your turn", "your_bid": "your bid", "choose": "a choice", "reminder": "a reminder",
    "merged": "several decisions", "round_result": "a round's result", "game_over": "the final scores",
    "sign_in": "a sign-in link", "invitation": "an invitation", "host_link": "a host link",
    "reply_done": "an answer to a reply", "reply_refused": "an answer to a reply", "reply_stale": "an answer to a reply",
    "reply_help": "the commands", "reply_closed": "an answer to a reply", "reply_not_yours": "a notice of a reply",
    "reply_unverified": "a notice of a reply",
}
FIELDS = ("at", "seat", "to", "kind", "reason")
STOPPED = {"bounce": "bounce", "dropped": "dropped", "spamreport": "marked as spam"}  # the provider's events
SMTP_CODES = re.compile(r"^\s*([245]\d\d)?[\s-]*([245]\.\d{1,3}\.\d{1,3})?")  # "550 5.1.1 <text we drop>"


def reason_of(failure: BaseException) -> str:
    """Why a send failed, in our words and the provider's status code."""
    if isinstance(failure, MailError):
        code = f" ({failure.status})" if failure.status else ""
        if isinstance(failure, PermanentMailError):
            return f"the provider refused it{code}"
        return f"the provider kept failing{code}" if code else "the provider could not be reached"
    return f"sending failed ({type(failure).__name__})"


def event_reason(event: dict[str, Any]) -> str:
    """Why the provider stopped mail to an address (its event), as the event's kind and the SMTP codes
    of its answer: "bounce: 550 5.1.1"."""
    codes: list[str] = []
    for text in (str(event.get("reason") or ""), str(event.get("status") or "")):
        codes += [code for code in SMTP_CODES.match(text).groups() if code and code not in codes]
    words = STOPPED.get(str(event.get("event")), "stopped")
    return f"{words}: {' '.join(codes)}" if codes else words


def keep(redis: Redis, mail: Mail, failure: BaseException) -> str:
    """Keep a mail that could not be sent; the reason kept, for the log."""
    reason = reason_of(failure)
    counters.count(redis, counters.MAILS_FAILED, mail.kind)
    if mail.game:
        _push(redis, mail.game, {"seat": mail.seat, "to": mail.to, "kind": mail.kind, "reason": reason})
    return reason


def stopped(redis: Redis, event: dict[str, Any]) -> None:
    """Keep what the provider's event says of a game's mail it could not deliver (a bounce, say)."""
    seat = whole_number(str(event.get("seat", "")), 2)
    _push(redis, str(event["game"]), {"seat": seat, "to": str(event["email"]),
                                      "kind": str(event.get("kind") or "")[:40], "reason": event_reason(event)})


def _push(redis: Redis, game_id: str, entry: dict[str, Any]) -> None:
    key = game_key(game_id, "undelivered")
    with redis.pipeline(transaction=False) as pipe:
        pipe.rpush(key, dumps({"at": int(time.time()), **entry}))
        pipe.ltrim(key, -KEEP, -1)
        pipe.execute()


def kind_words(kind: str | None) -> str:
    """A mail's kind in words ("your bid"); "a mail" for a kind this service no longer sends."""
    return KINDS.get(kind or "", "a mail")


def listed(redis: Redis, game_id: str) -> list[dict[str, Any]]:
    """The game's undelivered mail, oldest first. Entries kept before there was a time on them also
    kept a subject and the provider's text: only their address and kind are shown."""
    entries = [loads(item) for item in redis.lrange(game_key(game_id, "undelivered"), 0, -1)]
    return [{name: entry.get(name) for name in FIELDS} if "at" in entry else
            {"at": None, "seat": None, "to": entry.get("to"), "kind": entry.get("kind"), "reason": "not delivered"}
            for entry in entries]
