"""The one shape a mail has between being rendered and being delivered.

A `Mail` is plain data so that it travels unchanged through an RQ job and the Redis outbox: rendered
once (with its Message-ID), it is the same mail on every retry of its delivery. A mail made for a
seat names what it was made for (game, seat, the seat's holder generation and, for a decision, the
decision's `since`), so that whoever sends it can check, when it leaves, that it is still true. A
merged mail keeps its `parts` (`render.Part`) for the same check, part by part.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str
    html: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    kind: str = "plain"
    game: str | None = None
    seat: int | None = None
    holder: int | None = None
    since: int | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def message_id(self) -> str | None:
        return self.headers.get("Message-ID")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Mail:
        """A mail back from its JSON dict; keys it does not know (a newer sender's) are left out, and
        those an older sender did not write take their defaults."""
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})
