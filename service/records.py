"""A game's portable record: what `palazzo replay` plays (game, options, rules, setup, moves), with
its title, the seats' names and the table talk the caller may read.

The setup (deck orders, a seat's hidden cards) and the moves (standing orders, sealed bids) hide
what the players may not know yet, so a record shows them only once the game is finished; before
that, and for a cancelled game, both are null. Built for whoever may watch the game: no addresses,
no tokens, and only the messages `messages.shown` lets the caller read.
"""
from __future__ import annotations

from typing import Any

from service import games, messages
from service.games import FINISHED
from service.store import Store

FORMAT = "palazzo-record-1"


def record(store: Store, table: games.Table, reader: messages.Reader) -> dict[str, Any]:
    """The record of `table` as `reader` may see it."""
    over = table.status == FINISHED
    talk = [seen for entry in messages.since(store, table.id, 0) if (seen := messages.shown(entry, reader))]
    return {
        "format": FORMAT, "game": table.meta["game"], "rules": games.rules_version(table.meta),
        "options": table.meta["options"], "title": games.title_of(table),
        "seats": [{"seat": number, "name": games.seat_name(entry, number)}
                  for number, entry in enumerate(table.meta["seats"])],
        "setup": table.meta["setup"] if over else None,
        "moves": [{"seat": entry["seat"], "move": entry["move"], "at": entry.get("at")}
                  for entry in store.log(table.id)] if over else None,
        "messages": talk, "status": table.status, "result": table.game.result(table.state) if over else None,
    }
