"""The headers that make a game's mails one thread and let a player leave with one click.

Every mail gets a fresh Message-ID; a game's mails all answer the game's root id, which no mail
carries, so mail clients gather them into one thread whatever order they arrive in.
"""
from __future__ import annotations

import secrets


def message_id(domain: str) -> str:
    return f"<{secrets.token_hex(16)}@{domain}>"


def root_id(game_id: str, domain: str) -> str:
    return f"<game-{game_id}@{domain}>"


def build(domain: str, game_id: str | None = None, unsubscribe: str | None = None) -> dict[str, str]:
    """A new mail's headers: its Message-ID, the game's thread, and RFC 8058 one-click unsubscribe."""
    headers = {"Message-ID": message_id(domain)}
    if game_id is not None:
        headers["In-Reply-To"] = headers["References"] = root_id(game_id, domain)
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return headers
