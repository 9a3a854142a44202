"""The headers that make a game's mails one thread, let a player leave with one click, and let him
answer a decision by replying.

Every mail gets a fresh Message-ID; a game's mails all answer the game's root id, which no mail
carries, so mail clients gather them into one thread whatever order they arrive in. A mail about a
seat's decision names it in its Message-ID (`decision_id`), so that a reply, which quotes that id in
In-Reply-To and References, says which decision it answers (`decision_in`); a mail of table talk
names the seat it went to and its last message (`talk_id`), so that a reply to it answers that
message (`talk_in`).
"""
from __future__ import annotations

import re
import secrets

DECISION_ID = re.compile(r"^<?([0-9a-z]+)\.(\d+)\.(\d+)\.[0-9a-f]+@[^>]+>?$")
TALK_ID = re.compile(r"^<?([0-9a-z]+)\.t(\d+)\.(\d+)\.[0-9a-f]+@[^>]+>?$")


def message_id(domain: str) -> str:
    return f"<{secrets.token_hex(16)}@{domain}>"


def decision_id(domain: str, game_id: str, seat: int, since: int) -> str:
    """A Message-ID for a mail about the seat's decision pending since version `since`."""
    return f"<{game_id}.{seat}.{since}.{secrets.token_hex(8)}@{domain}>"


def decision_in(message: str) -> tuple[str, int, int] | None:
    """(game, seat, since) of a Message-ID made by `decision_id`, else None."""
    match = DECISION_ID.match(message.strip())
    return (match[1], int(match[2]), int(match[3])) if match else None


def talk_id(domain: str, game_id: str, seat: int, seq: int) -> str:
    """A Message-ID for a mail of the game's talk to the seat, whose last message is `seq`."""
    return f"<{game_id}.t{seat}.{seq}.{secrets.token_hex(8)}@{domain}>"


def talk_in(message: str) -> tuple[str, int, int] | None:
    """(game, seat, seq) of a Message-ID made by `talk_id`, else None."""
    match = TALK_ID.match(message.strip())
    return (match[1], int(match[2]), int(match[3])) if match else None


def root_id(game_id: str, domain: str) -> str:
    return f"<game-{game_id}@{domain}>"


def build(domain: str, game_id: str | None = None, unsubscribe: str | None = None, *,
          decision: tuple[int, int] | None = None, talk: tuple[int, int] | None = None,
          reply_to: str | None = None, answering: str | None = None, automatic: bool = False) -> dict[str, str]:
    """A new mail's headers: its Message-ID (naming the seat's decision, as (seat, since), if it is
    about one, or the seat's last message of talk, as (seat, seq)), the game's thread (under the
    player's own mail it is `answering`), where replies go,
    whether it is an `automatic` answer (RFC 3834, so that out-of-office programs leave it alone), and
    RFC 8058 one-click unsubscribe."""
    seat_since = decision if decision is not None and game_id is not None else None
    seat_seq = talk if talk is not None and game_id is not None else None
    headers = {"Message-ID": decision_id(domain, game_id, *seat_since) if seat_since
               else talk_id(domain, game_id, *seat_seq) if seat_seq else message_id(domain)}
    if game_id is not None:
        root = root_id(game_id, domain)
        headers["In-Reply-To"] = answering or root
        headers["References"] = f"{root} {answering}" if answering else root
    if reply_to:
        headers["Reply-To"] = reply_to
    if automatic:
        headers["Auto-Submitted"] = "auto-replied"
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return headers
