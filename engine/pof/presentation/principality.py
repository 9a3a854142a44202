"""What a page shows of one seat, read from a view: its yard, its public figures, and (in its own
view only) its hand, cash and cards.

Everything comes from `game.view(state, reader)`, the one redaction: a seat's `private` part is in
the view only when the reader is that seat, so a page built here cannot show another seat's hand.
"""
from __future__ import annotations

from typing import Any

from engine.pof import scoring
from engine.pof.presentation import words
from engine.pof.presentation.yard_svg import draw


def figures(view: dict[str, Any], seat: int, names: list[str], reader: int | None, cell: int = 48) -> dict[str, Any]:
    """One seat's picture and figures; `private` is filled only when the view holds its private part."""
    player = view["players"][seat]
    counts = player.get("counts", {})
    own = "private" in player
    least = view.get("min_work_value", 0)
    out: dict[str, Any] = {
        "seat": seat, "name": names[seat], "me": seat == reader,
        "prestige": player["prestige"], "jugglers": player["jugglers"], "architects": player["architects"],
        "freedoms": [words.name(f) for f in player["freedoms"]],
        "played": [words.name(p) for p in player["played"]],
        "works": [{"profession": words.name(w["profession"]), "value": w["value"], "round": w["round"],
                   "bonus_cards": [words.name(c) for c in w.get("bonus_cards", [])]} for w in player["works"]],
        "enticements_received": player.get("enticements_received", 0),
        "counts": {"hand": counts.get("hand", 0), "bonus_cards": counts.get("bonus_cards", 0),
                   "prestige_cards": counts.get("prestige_cards", 0), "enticements": counts.get("enticements", 0)},
        "yard": draw(player, title=f"{names[seat]}'s principality", ident=f"yard-{seat}", cell=cell,
                     labels=cell >= 30),
        "private": None,
    }
    if own:
        private = player["private"]
        out["private"] = {
            "cash": private["cash"],
            "enticements": private["enticements"],
            "hand": [{"id": p, "name": words.name(p), **{k: words.name(v) for k, v in words.preferences(p).items()},
                      "value": scoring.work_value(player, p, []), "least": least,
                      "enough": scoring.work_value(player, p, []) >= least} for p in private["hand"]],
            "bonus_cards": [{"id": c, "name": words.name(c), "text": words.bonus_more(c)}
                            for c in private["bonus_cards"]],
            "prestige_cards": [{"id": c, "name": words.name(c), "text": words.prestige_text(c)}
                               for c in private["prestige_cards"]],
            "orders": private.get("orders"),
        }
    return out
