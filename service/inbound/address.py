"""Reply addresses: ``play+<game>-<seat>-<tag>@<domain>``, one per seat of a game, as long as it lasts.

The tag is a keyed digest of game and seat (`Links.digest`, purpose "reply"), 16 bytes in lowercase
base32: 26 characters, so the local part has 50 of the 64 allowed, and case, which mail systems may
change, does not matter. An address thus names its seat, and nobody can make one for a seat without
the server's secret: a mistyped or forged one names none. It does not expire; replies after the game
ends are answered as such.
"""
from __future__ import annotations

import base64
import hmac
import re
from collections.abc import Iterable

from engine.core import answers, grammar_of
from service.games import Table
from service.links import Links
from service.mail.render import Reply

PURPOSE = "reply"
LOCAL = re.compile(r"^play\+([0-9a-f]{1,32})-(\d{1,2})-([a-z2-7]{26})$")


def tag(links: Links, game_id: str, seat: int) -> str:
    return base64.b32encode(links.digest(PURPOSE, f"{game_id}:{seat}")).decode().rstrip("=").lower()


def address(links: Links, game_id: str, seat: int, domain: str) -> str:
    return f"play+{game_id}-{seat}-{tag(links, game_id, seat)}@{domain}"


def seat_of(links: Links, recipients: Iterable[str]) -> tuple[str, int] | None:
    """(game, seat) of the first recipient that is a genuine reply address, else None."""
    for recipient in recipients:
        match = LOCAL.match(recipient.strip().lower().rpartition("@")[0])
        if match and hmac.compare_digest(match[3], tag(links, match[1], int(match[2]))):
            return match[1], int(match[2])
    return None


def reply_for(links: Links, table: Table, seat: int, domain: str, full: bool = False) -> Reply | None:
    """How the seat answers by mail now: its address and the commands of its own options (more
    examples with `full`, for help); None for a game without a grammar."""
    grammar = grammar_of(table.game)
    found = answers(table.game, table.state, seat, full)
    if grammar is None or found is None:
        return None
    return {"address": address(links, table.id, seat, domain), "commands": found.commands, "notes": found.notes,
            "picture": found.picture, "guide": grammar.guide}
