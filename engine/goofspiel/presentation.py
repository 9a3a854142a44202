"""How Goofspiel is shown (`engine.presentation`): its board partial (templates/board.html) and what it
draws, the lines of its decision mails and the sentences of its log, all from a viewer's own view, so
that they show what `engine.core.redact` lets him see and nothing else (another seat's bid only once
the round is revealed)."""
from __future__ import annotations

from typing import Any

from engine.core import Event, Viewer
from engine.presentation import seat_namer
from engine.goofspiel import words
from engine.goofspiel.data import GAME

View = dict[str, Any]


def _prize(view: View) -> str:
    """The prize showing and what it is worth: "the 7 (7 points)", with the prizes carried to it."""
    carried = view["carried"]
    return f"the {view['prize']} ({words.points(view['stake'])}" + (f", with {words.cards(carried)} carried)"
                                                                   if carried else ")")


class GoofspielPresentation:
    """`engine.presentation.Presentation` for Goofspiel; parts it leaves out are the plain ones."""

    title = words.name(GAME)
    templates = "templates"
    board = "board.html"
    board_moves = True  # the board draws the viewer's hand as his bids: the page lists no moves of its own
    deadlines = [("bid", "each bid")]

    def board_facts(self, view: View, viewer: Viewer, names: list[str]) -> dict[str, Any]:
        """The prize showing, the prizes face down, each seat's points, prizes taken and whether it has
        bid, the viewer's hand (each card with its bid) and the rounds played, as sentences."""
        who = seat_namer(names, viewer)
        me = view["players"][viewer] if viewer is not None else None
        bid = (me.get("private") or {}).get("bid") if me else None
        return {
            "round": view["round"], "over": view["phase"] == "over",
            "prize": _prize(view) if view["prize"] is not None else None,
            "face_down": words.cards(view["prizes_left"]["values"]),
            "ties": words.name(view["options"]["ties"]),
            "seats": [{"name": who(each["seat"]), "points": each["points"], "won": words.cards(each["won"]),
                       "hand": len(each["hand"]), "has_bid": each["has_bid"]} for each in view["players"]],
            "hand": [{"card": card, "move": {"type": "bid", "card": card}, "bid": card == bid}
                     for card in (me["hand"] if me else [])],
            "my_bid": bid,
            "rounds": [words.round_over(entry, who) for entry in reversed(view["history"])],
            "result": words.game_over({"result": view["result"]}, who) if view["result"] else None,
        }

    def decision_lines(self, view: View, seat: int, decision: dict[str, Any], names: list[str]) -> list[str]:
        """The prize, the seat's hand and the prizes to come, and how the last round went."""
        lines = [f"Round {view['round']}: the prize is {_prize(view)}.",
                 f"Your hand: {words.cards(view['players'][seat]['hand'])}.",
                 f"Prizes still face down: {words.cards(view['prizes_left']['values'])}."]
        if view["history"]:
            lines.append(f"Last round: {words.round_over(view['history'][-1], seat_namer(names, seat))}")
        return lines

    def asking(self, view: View, decision: dict[str, Any]) -> str:
        """What a bid asks, for the one-click page and the answers to replies."""
        return "Your move: bid one card of your hand for the prize."

    def sentence(self, event: Event, names: list[str], reader: Viewer) -> str | None:
        """The log's line for one of Goofspiel's events (redacted for `reader` already)."""
        tell = words.SENTENCES.get(event.get("type", ""))
        return tell(event, seat_namer(names, reader)) if tell else None


PRESENTATION = GoofspielPresentation()
