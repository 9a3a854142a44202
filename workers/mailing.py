"""Sending one mail as an RQ job: retried with backoff, never blocking or losing a move.

A mail that the provider refuses for good, or that still fails after the last retry, is kept in
the game's list of undelivered mail, which the host can see.
"""
from __future__ import annotations

import logging
import os

from rq import Callback, Queue, Retry

from service.mail import undelivered
from service.mail.backends import PermanentMailError, deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from workers import context

log = logging.getLogger(__name__)


def retry() -> Retry:
    """How a failing send is tried again: PALAZZO_MAIL_RETRY_SECONDS, the waits between tries."""
    waits = [int(w) for w in os.environ.get("PALAZZO_MAIL_RETRY_SECONDS", "10,30,120,600,1800").split(",")]
    return Retry(max=len(waits), interval=waits)


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
    undelivered.keep(context.store().redis, mail, reason)


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback: called when a send fails for the last time."""
    keep_undelivered(Mail.from_json(job.args[0]), f"{exc_type.__name__}: {exc_value}")


def queue(into: Queue, mail: Mail) -> None:
    """Queue the mail's sending, with the retries and the last resort above."""
    into.enqueue("workers.mailing.send", mail.to_json(), retry=retry(), on_failure=Callback(gave_up))
