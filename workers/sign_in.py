"""Mailing a sign-in link as a job (queued by `service.followups.Queued.sign_in`), so that the request
asking for it does the same work whether or not the address plays here."""
from __future__ import annotations

from service import signin
from workers import context


def mail_link(email: str, join: list[str] | None = None) -> bool:
    """Mail the link if the address plays here (or is to join a game by its link) and is under its
    limit; True when mailed."""
    return signin.mail_link(context.store(), context.links(), email, join)
