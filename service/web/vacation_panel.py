"""What the seat page shows of its player's vacation bank: what is left, the form that spends it (plain
fields, no script needed), and, while he is away, until when, with the button that brings him back."""
from __future__ import annotations

from typing import Any

from flask import url_for

from service import games, vacation
from service.web import tableau


def panel(table: games.Table, seat: int, zone: str) -> dict[str, Any] | None:
    """The panel's context, or None where a vacation means nothing (a game not under way)."""
    if table.status not in (games.RUNNING, games.PAUSED):
        return None
    entry = table.meta["seats"][seat]
    left = vacation.hours_left(table.meta, seat)
    return {
        "bank": vacation.span(vacation.bank_hours(table.meta)), "left": vacation.span(left), "left_hours": left,
        "away": tableau.away(entry, zone), "can_take": table.status == games.RUNNING and left > 0,
        "take_url": url_for("vacation_form.take", game_id=table.id),
        "back_url": url_for("vacation_form.back", game_id=table.id),
        "most_days": left // 24,
    }
