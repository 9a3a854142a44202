"""How a player is reached: a channel tells the readers of a game what the game, as it is now, has
for each of them; what is said comes from the game and the reader's own view, never from the channel.

A channel is anything with a `name` and `tell(store, table)`; `workers.channels.CHANNELS` lists them
and `workers.channels.game`, the job queued after each public commit (`service.followups`), loads
the game once and tells every channel. Each channel claims what it tells (a Redis key per thing told
and reader), so telling it again after a retry or a second commit sends nothing twice.

- Mail (`workers.notify`): one mail per decision with its one-click answers, round results, the
  end's scores, reminders, held and merged parts; rendered (`service.mail.render`) from each seat's
  `game.view(state, seat)` only.
- Signed webhooks (`workers.webhooks`, `service.channels.webhooks`): one POST per `Notice`. A notice
  is one thing to tell one reader (his turn, his bid, a message, a round's result, the game's end),
  built by `service.channels.notices` from the game as that reader may see it (`game.view(state,
  seat)`, `messages.shown`; a host without a seat reads the spectator's view), so a webhook tells
  exactly what its owner may see.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from service.games import Table
    from service.store import Store

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
    """One way of reaching a game's readers (a module may be one: `workers.notify`, `workers.webhooks`)."""

    name: str

    def tell(self, store: Store, table: Table) -> int:
        """Send or queue what the game now has for each reader this channel reaches and nobody has told
        him yet (each thing claimed once); how many. A failed send is the channel's to retry."""
