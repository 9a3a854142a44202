"""How a delivery failed, told apart so that the job that delivers knows whether to try again."""
from __future__ import annotations


class MailError(Exception):
    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class RetryableMailError(MailError):
    """The mail may go through later: the provider was down, overloaded (5xx, 429) or unreachable."""


class PermanentMailError(MailError):
    """Trying again cannot help: the provider refused this mail or our credentials (other 4xx)."""
