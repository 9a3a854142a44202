"""How Princes of Florence is shown (`engine.presentation`): its own seat and spectator pages (the
partials under engine/pof/templates, drawn from `board.facts` and `forms.seat_forms`), the log's
sentences of its events (`story`), what each decision asks (`phrases`), its yard as a picture
(`yard_svg`), the facts of its mails (`mails`), the one-click answers they offer and what the
one-click page shows. Plain data and strings; the service renders."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from engine.core import Event, Move, Viewer
from engine.pof.presentation import board, forms, phrases, placing, story
from engine.pof.presentation.mails import MAILS, own
from engine.pof.view import describe
from engine.pof.words import name


class PrincesOfFlorencePresentation:
    title = "Princes of Florence"
    templates = "templates"
    board = None
    seat_page = "seat.html"
    watch_page = "watch.html"
    archive_board = "archive.html"
    deadlines = [("setup", "keeping professions at the start"), ("auction", "choosing an item to auction"),
                 ("bid", "each bid"), ("turn", "an action turn"), ("choice", "a choice after a purchase")]

    mails = MAILS

    def board_facts(self, view: dict[str, Any], viewer: Viewer, names: list[str]) -> dict[str, Any]:
        return board.facts(view, viewer, names)

    def sentence(self, event: Event, names: list[str], reader: Viewer) -> str | None:
        return story.told(event, names, reader)

    def asking(self, view: dict[str, Any], decision: dict[str, Any]) -> str:
        return phrases.pending(decision, view)

    def seat_forms(self, state: dict[str, Any], view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
                   running: bool, args: Mapping[str, list[str]], href: Callable[..., str]) -> dict[str, Any]:
        from engine.pof import GAME
        return forms.seat_forms(GAME, state, view, seat, decision, running, args, href)

    def unreadable(self, args: Mapping[str, str]) -> list[str]:
        return placing.unreadable(args)

    def glance(self, view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
               names: list[str]) -> dict[str, Any]:
        """The round, the lot of a bid, the seat's cash and everyone's prestige."""
        lot = view["auction"]["lot"] if decision and decision["kind"] == "bid" and view.get("auction") else None
        return {"where": f"round {view['round']}",
                "lines": [f"The {name(lot['item'])} stands at {lot['bid']} ({names[lot['leader']]} leads)."] if lot
                else [],
                "means": [f"Your cash: {phrases.florins(own(view, seat)['private']['cash'])}."],
                "standings": [{"name": names[p["seat"]], "score": f"{p['prestige']} PP", "me": p["seat"] == seat}
                              for p in view["players"]]}

    def answers(self, decision: dict[str, Any], legal: list[Move]) -> list[tuple[str, Move]]:
        """In an auction: step out, or raise by the step."""
        if decision["kind"] != "bid":
            return []
        found = [(describe(STEP_OUT), STEP_OUT)] if STEP_OUT in legal else []
        bids = [move for move in legal if move["type"] == "bid"]
        if bids:
            step = min(bids, key=lambda move: move["amount"])
            found.append((f"{describe(step)} (raise by the step)", step))
        return found


STEP_OUT: Move = {"type": "step_out"}
PRESENTATION = PrincesOfFlorencePresentation()
