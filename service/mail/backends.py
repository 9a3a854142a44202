"""Where a rendered mail goes: the one call the delivering job makes, whatever the backend."""
from __future__ import annotations

from collections.abc import Callable

from redis import Redis

from service.mail import outbox, sendgrid_api, smtp
from service.mail.errors import MailError, PermanentMailError, RetryableMailError
from service.mail.message import Mail
from service.mail.settings import MailSettings

_BACKENDS: dict[str, Callable[[Mail, MailSettings, Redis], str]] = {
    "outbox": lambda mail, settings, redis: outbox.push(redis, mail),
    "sendgrid": lambda mail, settings, redis: sendgrid_api.send(mail, settings),
    "smtp": lambda mail, settings, redis: smtp.send(mail, settings),
}


def deliver(mail: Mail, settings: MailSettings, redis: Redis) -> str:
    """Deliver once through the configured backend and return its message id.

    Raises RetryableMailError (try again later) or PermanentMailError (give up); no retries here.
    """
    return _BACKENDS[settings.backend](mail, settings, redis)


__all__ = ["MailError", "PermanentMailError", "RetryableMailError", "deliver"]
