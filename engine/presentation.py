"""How a game is shown: what the service asks a game for to draw its pages and write its mails.

A sibling of `engine.core`: the core says what a game *is* (its rules), this says how people *see* it.
Everything here is optional. A game without a presentation still gets a working seat page (its view,
its legal moves as buttons), plain decision mails and a create form drawn from its options schema; each
part a game adds replaces one generic part. The service renders; the game gives plain data, strings of
SVG or HTML, and Jinja partials shipped as package data (never a Flask, Jinja or Redis import here).

A game offers it as a ``presentation`` attribute (read by `presentation_of`), any object with some of:

- ``words(thing)`` lives on the game itself (`engine.core.word`): the name of each of its ids.
- ``title``: the game's name as people read it ("Princes of Florence"); by default its registered name.
- ``templates``: the folder, inside the game's package, of its Jinja partials; the service's web and
  mail environments find them as ``games/<game name>/<file>``.
- ``board``: the partial (in ``templates``) drawing the seat and watch pages' board, given
  ``board_facts(view, viewer, names)`` as ``board``; without it the page shows the view as data. On
  the seat page it also has ``moves``, the (label, move) of each move the seat may make now, and may
  draw them as forms with ``_forms.html``'s ``move_form`` (no script needed).
- ``board_moves``: True when the board draws the seat's moves itself (Goofspiel's hand, a button per
  card), so the seat page lists none of its own and draws the board first.
- ``own_pages``: True for a game whose whole seat, watch and mail pages the service still draws with
  its own modules (Princes of Florence, until its board is such a partial); leave it out.
- ``deadlines``: ``[(deadline key, what it is for)]`` the create form asks hours for; by default each
  of the game's `deadline_keys`, in its words.
- ``decision_lines(view, seat, decision, names)``: the lines of a decision mail beyond the generic
  ones (who must do what, by when, the default, a one-click link per legal move): "You hold 3, 5, 9".
- ``sentence(event, names, reader)``: the log's sentence for one of its events, None to let the
  generic one ("Ann: bid") tell it.
- ``picture(view, viewer)``: an SVG or HTML string of the seat's board for mails, or None.

The create page takes the game's options from ``schemas["options"]`` (`option_fields`, then
`options_from_form` reads a submitted form back into options), so a game with a schema needs nothing
more to be created from the browser.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from engine.core import Event, Game, Viewer, word


class Presentation(Protocol):
    """The optional parts of a game's presentation; see the module docstring."""

    title: str | None
    templates: str | None
    board: str | None
    board_moves: bool
    own_pages: bool
    deadlines: list[tuple[str, str]] | None

    def board_facts(self, view: dict[str, Any], viewer: Viewer, names: list[str]) -> dict[str, Any]:
        """What the game's `board` partial draws, from the viewer's own (redacted) view."""

    def decision_lines(self, view: dict[str, Any], seat: int, decision: dict[str, Any],
                       names: list[str]) -> list[str]:
        """The game's own lines in a decision mail, from the seat's own view (`names`: each seat's)."""

    def sentence(self, event: Event, names: list[str], reader: Viewer) -> str | None:
        """The log's sentence for one event (already redacted for `reader`), or None for the generic one."""

    def picture(self, view: dict[str, Any], viewer: Viewer) -> str | None:
        """An SVG or HTML picture of the board for a mail, or None."""


class Plain:
    """The presentation of a game that brings none: every part generic."""

    title: str | None = None
    templates: str | None = None
    board: str | None = None
    board_moves = False
    own_pages = False
    deadlines: list[tuple[str, str]] | None = None

    def board_facts(self, view: dict[str, Any], viewer: Viewer, names: list[str]) -> dict[str, Any]:
        return {}

    def decision_lines(self, view: dict[str, Any], seat: int, decision: dict[str, Any],
                       names: list[str]) -> list[str]:
        return []

    def sentence(self, event: Event, names: list[str], reader: Viewer) -> str | None:
        return None

    def picture(self, view: dict[str, Any], viewer: Viewer) -> str | None:
        return None


PLAIN = Plain()


def presentation_of(game: Game) -> Presentation:
    """The game's presentation, or the plain one; a part the game leaves out is the plain one's."""
    own = getattr(game, "presentation", None)
    return PLAIN if own is None else _Filled(own)


class _Filled:
    """A game's presentation with every part it leaves out taken from `Plain`."""

    def __init__(self, own: Any):
        self._own = own

    def __getattr__(self, part: str) -> Any:
        return getattr(self._own, part, getattr(PLAIN, part))


def title_of(game: Game) -> str:
    """The game's name as people read it."""
    return presentation_of(game).title or game.name


def said(game: Game, thing: str) -> str:
    """The game's word for an id, or the id itself where its table of words has none."""
    try:
        return word(game, thing)
    except KeyError:
        return thing


def deadlines(game: Game) -> list[tuple[str, str]]:
    """The deadlines a create form asks hours for, with what each is for."""
    own = presentation_of(game).deadlines
    return own if own is not None else [(key, said(game, key)) for key in game.deadline_keys]


def sentence(game: Game, event: Event, names: list[str], reader: Viewer) -> str:
    """One log line: the game's own sentence, else who did it and what, in the game's words."""
    told = presentation_of(game).sentence(event, names, reader)
    if told is not None:
        return told
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    what = said(game, event.get("type", "event"))
    details = ", ".join(f"{said(game, key)} {value}" for key, value in event.items()
                        if key not in ("type", "seat", "private", "private_to", "secret") and _plain(value))
    told = f"{what} ({details})" if details else what
    return f"{who}: {told}" if who else told


def _plain(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) or value is None


def option_fields(game: Game) -> list[dict[str, Any]]:
    """The game's options as form fields, from its options schema: ``{"name", "label", "kind", "default",
    "choices"?, "minimum"?, "maximum"?}`` with `kind` one of boolean, integer, choice, text."""
    found = []
    for name, schema in game.schemas["options"].get("properties", {}).items():
        kind = ("choice" if "enum" in schema else "boolean" if schema.get("type") == "boolean"
                else "integer" if schema.get("type") == "integer" else "text")
        field = {"name": name, "label": schema.get("description") or said(game, name), "kind": kind,
                 "default": schema.get("default")}
        if kind == "choice":
            field["choices"] = list(schema["enum"])
        field.update({key: schema[key] for key in ("minimum", "maximum") if key in schema})
        found.append(field)
    return found


def options_from_form(game: Game, form: Mapping[str, str], prefix: str = "option_") -> dict[str, Any]:
    """The options a submitted create form gives (`option_fields` drew it); a blank field is left out,
    so the game's default holds; a number that is not one stays text, for `normalize_options` to refuse."""
    options: dict[str, Any] = {}
    for field in option_fields(game):
        key = prefix + field["name"]
        if field["kind"] == "boolean":
            options[field["name"]] = form.get(key) == "true"
            continue
        text = (form.get(key) or "").strip()
        if not text:
            continue
        options[field["name"]] = int(text) if field["kind"] == "integer" and text.lstrip("-").isdigit() else text
    return options
