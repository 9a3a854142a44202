"""Sending one mail as an RQ job (queued by `service.followups.Queued.send_mail`, with its retries):
never blocking or losing a move. Each try goes through `service.mail.sending.send`, so a retry
re-checks that the mail is still true and a job run again after its worker died sends nothing twice.

A mail that the provider refuses for good, or that still fails after the last retry, is kept in
the game's list of undelivered mail, which the host can see.
"""
from __future__ import annotations

import logging

from service.mail import sending, undelivered
from service.mail.backends import PermanentMailError
from service.mail.message import Mail
from workers import context

log = logging.getLogger(__name__)


def send(mail: dict) -> str:
    """Deliver the mail (a Mail as JSON); a retryable failure raises, so RQ tries again later."""
    message = Mail.from_json(mail)
    store = context.store()
    try:
        return sending.send(store, message, context.config().mail)
    except PermanentMailError as error:
        keep_undelivered(message, error)
        return ""


def keep_undelivered(mail: Mail, failure: BaseException) -> None:
    reason = undelivered.keep(context.store().redis, mail, failure)  # words that cannot carry the mail
    log.warning("mail to %s not delivered: %s", mail.to, reason)


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback. RQ calls it after every failed try, before it queues the next one; only
    a try with none left keeps the mail as undelivered."""
    if job.retries_left:
        return
    keep_undelivered(Mail.from_json(job.args[0]), exc_value)

