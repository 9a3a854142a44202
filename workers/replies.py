"""Replies to mails as RQ jobs: one per kept mail, queued with its retries by
`service.followups.Queued.play_reply`.

The job plays the mail through `service.inbound.replies`, which re-reads everything, so a retry or a
second job for the same mail plays nothing twice; after the last retry the mail is marked failed and
stays kept for the host to see.
"""
from __future__ import annotations

from service.inbound.replies import Replies
from workers import context


def replies() -> Replies:
    """What playing a reply needs, from this process's store and settings (the reply jobs', the IMAP reader's)."""
    return Replies(context.store(), context.links(), context.config().mail, context.talk_limit())


def play(key: str) -> str:
    """Play the kept mail `key`; returns what became of it."""
    return replies().handle(key)


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback. RQ calls it after every failed try, before it queues the next one; only
    a try with none left marks the mail failed."""
    if job.retries_left:
        return
    replies().failed(job.args[0], f"{exc_type.__name__}: {exc_value}")
