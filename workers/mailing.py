"""Sending one mail as an RQ job: retried with backoff, never blocking or losing a move.

A mail that the provider refuses for good, or that still fails after the last retry, is kept in
the game's list of undelivered mail, which the host can see.
"""
from __future__ import annotations

import json
import logging

from rq import Retry

from service.mail.backends import PermanentMailError, deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from service.store import dumps, game_key
from workers import context

log = logging.getLogger(__name__)
RETRY = Retry(max=5, interval=[10, 30, 120, 600, 1800])
UNDELIVERED = "undelivered"


def send(mail: dict) -> str:
    """Deliver the mail (a Mail as JSON); a retryable failure raises, so RQ tries again later."""
    message = Mail.from_json(mail)
    store = context.store()
    try:
        return deliver(message, MailSettings.from_env(), store.redis)
    except PermanentMailError as error:
        keep_undelivered(message, str(error))
        return ""


def keep_undelivered(mail: Mail, reason: str) -> None:
    log.warning("mail to %s not delivered: %s", mail.to, reason)
    if mail.game:
        context.store().redis.rpush(game_key(mail.game, UNDELIVERED),
                                    dumps({"to": mail.to, "kind": mail.kind, "subject": mail.subject, "reason": reason}))


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback: called when a send fails for the last time."""
    keep_undelivered(Mail.from_json(job.args[0]), f"{exc_type.__name__}: {exc_value}")


def undelivered(store, game_id: str) -> list[dict]:
    return [json.loads(item) for item in store.redis.lrange(game_key(game_id, UNDELIVERED), 0, -1)]
