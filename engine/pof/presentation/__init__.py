"""How Princes of Florence is shown (`engine.presentation`): its own seat and spectator pages (the
partials under engine/pof/templates, drawn from `board.facts` and `forms.seat_forms`), the log's
sentences of its events (`story`), what each decision asks (`phrases`), its yard as a picture
(`yard_svg`) and the facts of its mails (`mails`). Plain data and strings; the service renders."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from engine.core import Event, Viewer
from engine.pof.presentation import board, forms, phrases, placing, story


class PrincesOfFlorencePresentation:
    title = "Princes of Florence"
    templates = "templates"
    board = None
    seat_page = "seat.html"
    watch_page = "watch.html"
    deadlines = [("setup", "keeping professions at the start"), ("auction", "choosing an item to auction"),
                 ("bid", "each bid"), ("turn", "an action turn"), ("choice", "a choice after a purchase")]

    @property
    def mails(self) -> Any:
        from engine.pof.presentation.mails import MAILS
        return MAILS

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


PRESENTATION = PrincesOfFlorencePresentation()
