"""How a game is shown: what the service asks a game for to draw its pages and write its mails.

A sibling of `engine.core`: the core says what a game *is* (its rules), this says how people *see* it.
Everything here is optional. A game without a presentation still gets a working seat page (its view,
its legal moves as buttons), every mail kind (`PlainMails`) and a create form drawn from its options
schema; each part a game adds replaces one generic part. The service renders; the game gives plain data, strings of
SVG or HTML, and Jinja partials shipped as package data (never a Flask, Jinja or Redis import here).

A game offers it as a ``presentation`` attribute (read by `presentation_of`), any object with some of:

- ``words(thing)`` lives on the game itself (`engine.core.word`): the name of each of its ids.
- ``title``: the game's name as people read it ("Princes of Florence"); by default its word for its
  registered name (`said`), else that name.
- ``templates``: the folder, inside the game's package, of its Jinja partials; the service's web and
  mail environments find them as ``games/<game name>/<file>``.
- ``board``: the partial (in ``templates``) drawing the seat and watch pages' board, given
  ``board_facts(view, viewer, names)`` as ``board``; without it the page shows the view as data. On
  the seat page it also has ``moves``, the (label, move) of each move the seat may make now, and may
  draw them as forms with ``_forms.html``'s ``move_form`` (no script needed).
- ``board_moves``: True when the board draws the seat's moves itself (Goofspiel's hand, a button per
  card), so the seat page lists none of its own and draws the board first.
- ``deadlines``: ``[(deadline key, what it is for)]`` the create form asks hours for; by default each
  of the game's `deadline_keys`, in its words.
- ``decision_lines(view, seat, decision, names)``: the lines of a decision mail beyond the generic
  ones (who must do what, by when, the default, a one-click link per legal move): "You hold 3, 5, 9".
- ``sentence(event, names, reader)``: the log's sentence for one of its events, None to let the
  generic one ("Ann: bid") tell it.
- ``picture(view, viewer)``: an SVG or HTML string of the seat's board for mails, or None.
- ``asking(view, decision)``: what a decision asks of its seat, in a sentence or two, for its pages,
  its one-click page and its mails (`decision` merged with the view's details, `asked`); by default
  "You have a decision to make: bid."
- ``seat_page``, ``watch_page``: a game drawing its whole seat or spectator page names its template (in
  ``templates``); the page gets ``table`` (the service's facts of the table, the log and the waiting
  decisions, with ``board_facts`` merged in) and, on the seat page, what ``seat_forms`` gives.
- ``archive_board``: the partial (in ``templates``) drawing the board at one step of a finished game's
  replay on its archive page, given ``table``: the service's facts of that step (whose decision it
  was, the game's status then) with ``board_facts(view, None, names)`` merged in, as a game's own
  spectator page gets them; without it the page draws ``board`` as the watch page does, else the view.
- ``seat_forms(state, view, seat, decision, running, args, href)``: for a game with its own
  ``seat_page``, the forms of its seat's `decision` (None when none waits) and whatever else the page
  posts (Princes of Florence's standing orders): a dict merged into the page's context. `args` is the
  page's query (name -> its values), `href(**step)` the page's address with a preview's steps in it.
- ``answers(decision, legal)``: ``[(label, move)]``, the answers to a decision most players want, among
  its `legal` moves, offered as one-click links in mails (the default a deadline plays is always
  offered besides); an empty label is the move's `describe`; by default each legal move when there
  are at most EVERY_ANSWER_MOST (a hand of cards: a link per card).
- ``glance(view, seat, decision, names)``: what the one-click page shows of the game beside the
  decision's words (`decision` None when none waits): ``{"where": "round 2" or None, "lines": [under
  the decision], "means": [the seat's own], "standings": [{"name", "score", "me"}]}``, each key
  optional; by default its ``lines`` are the game's `decision_lines`.
- ``unreadable(args)``: the steps of a preview in the seat page's query that no link of the game's
  writes (the page says so, 400, rather than guess); by default none.
- ``mails``: a game whose mails the service writes with its full mail kinds (each decision, its
  reminders, a welcome, round results, the final scores) gives the object that makes their facts
  (see `Mails`); without it, `PlainMails` (`mails_of`): the same mail kinds, told with the generic
  parts (`asking`, `decision_lines`, the `game_over` sentence) in the service's plain templates,
  without round results (a game's decision mails tell its last round). A game with mails ships,
  under ``templates``/mail, the mails that are all its own (``welcome``, ``round_result``,
  ``game_over``, .txt and .html) and ``_mail.txt``/``_mail.html``, the macros the service's mails
  import for what only the game says: ``ask(f)`` and ``facts(f)`` of a decision, ``board(f)`` (html),
  ``where(standing)`` and ``means(standing)`` in the answer to a reply, ``round(r)`` in the digest.

The create page takes the game's options from ``schemas["options"]`` (`option_fields`, then
`options_from_form` reads a submitted form back into options), so a game with a schema needs nothing
more to be created from the browser.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from engine.core import Event, Game, Move, Viewer, word


EVERY_ANSWER_MOST = 16  # legal moves a decision may have for the plain answers to offer each one


class Presentation(Protocol):
    """The optional parts of a game's presentation; see the module docstring."""

    title: str | None
    templates: str | None
    board: str | None
    board_moves: bool
    seat_page: str | None
    watch_page: str | None
    archive_board: str | None
    mails: Mails | None
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

    def asking(self, view: dict[str, Any], decision: dict[str, Any]) -> str | None:
        """What the decision asks of its seat, or None for the generic sentence."""

    def seat_forms(self, state: dict[str, Any], view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
                   running: bool, args: Mapping[str, list[str]], href: Callable[..., str]) -> dict[str, Any]:
        """The forms of the game's own seat page."""

    def unreadable(self, args: Mapping[str, str]) -> list[str]:
        """The steps in a seat page's query that no link of the game writes."""

    def answers(self, decision: dict[str, Any], legal: list[Move]) -> list[tuple[str, Move]]:
        """The answers most players want to the decision, as (label, move), among its legal moves; an
        empty label is the move's `describe`. By default each legal move, when there are at most
        EVERY_ANSWER_MOST (a hand of cards: a link per card)."""

    def glance(self, view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
               names: list[str]) -> dict[str, Any]:
        """What the one-click page shows of the game, from the seat's own view."""


class Mails(Protocol):
    """The facts of a game's own mails, each from the reader's own (redacted) view; `names` are the
    seats' names. Every mail's frame (greeting, links, deadline in his zone, the default, the reply
    commands) is the service's; these give what only the game knows, for its templates' fields."""

    def kind(self, decision_kind: str) -> str:
        """The mail kind a decision gets: one of your_turn, your_bid, choose."""

    def summary(self, mail: str, facts: dict[str, Any]) -> str:
        """The line heading a decision mail of that kind (and its subject), from its facts."""

    def decision(self, view: dict[str, Any], seat: int, decision: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """A decision mail's own facts (the round, the seat's means, its board as a mail draws it)."""

    def standing(self, view: dict[str, Any], seat: int) -> dict[str, Any]:
        """Where the seat stands, for the answer to a reply (its round and means)."""

    def welcome(self, view: dict[str, Any], seat: int, names: list[str]) -> dict[str, Any]:
        """What a player taking over a seat under way is told of the game."""

    def round_result(self, view: dict[str, Any], names: list[str], finished: int | None) -> dict[str, Any] | None:
        """A finished round's facts (with ``finished``, its number, and ``summary``, its heading), or
        None when the game mails no round results."""

    def game_over(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """The final scores' facts (with ``summary``, its heading)."""


class Plain:
    """The presentation of a game that brings none: every part generic (its `mails` None: the service
    writes them with `PlainMails`, through `mails_of`)."""

    title: str | None = None
    templates: str | None = None
    board: str | None = None
    board_moves = False
    seat_page: str | None = None
    watch_page: str | None = None
    archive_board: str | None = None
    mails: Mails | None = None
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

    def asking(self, view: dict[str, Any], decision: dict[str, Any]) -> str | None:
        return None

    def seat_forms(self, state: dict[str, Any], view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
                   running: bool, args: Mapping[str, list[str]], href: Callable[..., str]) -> dict[str, Any]:
        return {}

    def unreadable(self, args: Mapping[str, str]) -> list[str]:
        return []

    def answers(self, decision: dict[str, Any], legal: list[Move]) -> list[tuple[str, Move]]:
        return [("", move) for move in legal] if len(legal) <= EVERY_ANSWER_MOST else []

    def glance(self, view: dict[str, Any], seat: int, decision: dict[str, Any] | None,
               names: list[str]) -> dict[str, Any]:
        return {}


PLAIN = Plain()

PLAIN_MAILS = "plain"  # the service's folder of the generic mail templates `PlainMails` fills


class PlainMails:
    """The mails of a game that brings none (`Mails`), told with the parts every game has: what a
    decision asks (`asking`) and the game's `decision_lines`, each from the reader's own view, and the
    end as the log tells its ``game_over`` event. No round results: without the game's own words a
    round's mail would only repeat its log, and the next decision mail tells the last round (Goofspiel's
    "Last round: ..." line), so a game of many short rounds does not mail each one to everyone."""

    def __init__(self, game: Game):
        self._game = game

    def kind(self, decision_kind: str) -> str:
        return "your_turn"

    def summary(self, mail: str, facts: dict[str, Any]) -> str:
        return f"Your move: {facts['asked']}"

    def decision(self, view: dict[str, Any], seat: int, decision: dict[str, Any], names: list[str]) -> dict[str, Any]:
        return {"game_title": title_of(self._game), "asked": said(self._game, decision["kind"]),
                "lines": presentation_of(self._game).decision_lines(view, seat, decision, names)}

    def standing(self, view: dict[str, Any], seat: int) -> dict[str, Any]:
        return {}

    def welcome(self, view: dict[str, Any], seat: int, names: list[str]) -> dict[str, Any]:
        return {"game_title": title_of(self._game)}

    def round_result(self, view: dict[str, Any], names: list[str], finished: int | None) -> dict[str, Any] | None:
        return None

    def game_over(self, view: dict[str, Any], names: list[str]) -> dict[str, Any]:
        if view.get("result") is None:
            raise ValueError("the game is not over")
        return {"summary": "Game over", "game_title": title_of(self._game)}


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


def mails_of(game: Game) -> Mails:
    """The facts of the game's mails: its own (`mails`), else the generic `PlainMails`."""
    own = presentation_of(game).mails
    return own if own is not None else PlainMails(game)


def title_of(game: Game) -> str:
    """The game's name as people read it: its presentation's title, else its word for its own id."""
    return presentation_of(game).title or said(game, game.name)


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


def asked(view: dict[str, Any], decision: dict[str, Any]) -> dict[str, Any]:
    """A seat's pending decision with what its own view adds (the cards dealt, the payout)."""
    details = next((d for d in view.get("pending", []) if d.get("seat") == decision["seat"]), {})
    return {**details, **decision}


def asking(game: Game, view: dict[str, Any], decision: dict[str, Any]) -> str:
    """What the seat's pending decision asks of it, in the game's words (see `asked`)."""
    own = presentation_of(game).asking(view, asked(view, decision))
    return own if own is not None else f"You have a decision to make: {said(game, decision['kind'])}."


def seat_namer(names: list[str], reader: int | None) -> Callable[[int], str]:
    """A seat's name as one reader's log says it, his own seat marked "(you)"."""
    def who(seat: int) -> str:
        return f"{names[seat]} (you)" if seat == reader else names[seat]

    return who


def listing(words: Iterable[str]) -> str:
    """"Ann, Bob and Cid": names read as a sentence; names that hold commas themselves ("Four
    buildings, two freedoms, four works") are kept apart by semicolons."""
    words = list(words)
    if len(words) < 2:
        return "".join(words)
    between = "; " if any("," in word for word in words) else ", "
    return f"{between.join(words[:-1])} and {words[-1]}"


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


def squares_value(squares: list[list[int]]) -> str:
    """One form value holding a whole placement ("r,c r,c"), as the seat page's forms read it back."""
    return " ".join(f"{r},{c}" for r, c in squares)


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
