"""How a player is reached: a channel carries notices; what a notice says comes from the game and the
reader's own view, never from the channel.

A `Notice` is one thing to tell one reader of one game (his turn, his bid, a message, a round's
result, the game's end), built from the game as that reader may see it (`game.view(state, seat)`,
`messages.shown`), so that every channel tells exactly what its owner may see. A channel is anything
with `carry(notice)`; it decides only how the words travel. Mail (`service.mail`, chosen per seat by
`service.mail.seats` and sent by `workers.notify`) was the first; signed webhooks
(`service.channels.webhooks`) are the second, fed with the same notices by `workers.webhooks`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

KINDS = ("your_turn", "your_bid", "message", "round_result", "game_over")


@dataclass(frozen=True)
class Notice:
    """`key` names what is told, once per reader (``your_turn:2:41`` for seat 2's decision since version
    41); `data` is already as the reader may see it; `text` is the one line a chat shows."""

    kind: str
    key: str
    game: str
    seat: int | None
    at: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


class Channel(Protocol):
    name: str

    def carry(self, notice: Notice) -> None:
        """Send the notice on its way (or queue it); a failure is the channel's to retry."""
