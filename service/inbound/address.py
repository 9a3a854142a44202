"""Reply addresses: ``play+<game>-<seat>-<holder>-<tag>@<domain>``, one per seat of a game and holder of it.

The tag is a keyed digest of game, seat and holder generation (`Links.digest`, purpose "reply"), 16
bytes in lowercase base32: 26 characters, so the local part has at most 58 of the 64 allowed, and
case, which mail systems may change, does not matter. An address thus names its seat and the player
it was made for, and nobody can make one without the server's secret: a mistyped or forged one names
none. It does not expire (replies after the game ends are answered as such), but once the host hands
the seat to someone else it names an earlier holder, and `replies` plays nothing sent to it.

Addresses made before holders were counted (``play+<game>-<seat>-<tag>``) read as the first holder's:
that holder's tag digests game and seat alone, as theirs did, so a reply to a mail sent before then
still finds its seat while its first player holds it.
"""
from __future__ import annotations

import base64
import hmac
import re
from collections.abc import Iterable
from typing import NamedTuple

from engine.core import answers, grammar_of
from service.games import Table
from service.links import Links
from service.mail.render import Reply

PURPOSE = "reply"
LOCAL = re.compile(r"^play\+([0-9a-f]{1,16})-(\d{1,2})(?:-(\d{1,6}))?-([a-z2-7]{26})$")


class Addressed(NamedTuple):
    """What a genuine reply address names: the game, the seat and the holder generation it was made for."""

    game_id: str
    seat: int
    holder: int


def tag(links: Links, game_id: str, seat: int, holder: int) -> str:
    text = f"{game_id}:{seat}" if holder == 0 else f"{game_id}:{seat}:{holder}"
    return base64.b32encode(links.digest(PURPOSE, text)).decode().rstrip("=").lower()


def address(links: Links, game_id: str, seat: int, holder: int, domain: str) -> str:
    return f"play+{game_id}-{seat}-{holder}-{tag(links, game_id, seat, holder)}@{domain}"


def seat_of(links: Links, recipients: Iterable[str]) -> Addressed | None:
    """What the first recipient that is a genuine reply address names, else None."""
    for recipient in recipients:
        match = LOCAL.match(recipient.strip().lower().rpartition("@")[0])
        if match is None:
            continue
        found = Addressed(match[1], int(match[2]), int(match[3] or 0))
        if hmac.compare_digest(match[4], tag(links, *found)):
            return found
    return None


def reply_for(links: Links, table: Table, seat: int, domain: str, full: bool = False) -> Reply | None:
    """How the seat answers by mail now: the address of its current holder and the commands of its
    own options (more examples with `full`, for help); None for a game without a grammar."""
    grammar = grammar_of(table.game)
    found = answers(table.game, table.state, seat, full)
    if grammar is None or found is None:
        return None
    return {"address": address(links, table.id, seat, table.holder(seat), domain), "commands": found.commands,
            "notes": found.notes, "picture": found.picture, "guide": grammar.guide}
