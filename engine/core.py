"""The game-agnostic core: what a turn-based game offers so that Palazzo can host it.

Everything here is plain JSON data (dicts, lists, str, int, bool, None), so that the REST API, the
move log in Redis and third-party clients speak it unchanged. A game is a set of pure functions over
such data; it never mutates its input and never does I/O.

Hidden information follows one convention, so that one function (`redact`) serves every channel:
- a dict with a ``"seat"`` key and a ``"private"`` key: ``"private"`` is seen by that seat alone;
- a dict with a ``"private_to"`` key is seen whole by that seat alone (dropped from lists for others);
- a ``"secret"`` key is seen by nobody (deck orders, the setup).
"""
from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

State = dict[str, Any]
Move = dict[str, Any]
Event = dict[str, Any]
Decision = dict[str, Any]
Fill = dict[str, Any]  # how a listed move's list field may be filled in: see `Fillable`
Viewer = int | None  # a seat number, or None for a spectator


ERROR_CODES = {"unknown_game": "no game of that name is hosted here",
               "unknown_rules": "no such rules version of the game"}  # the core's own IllegalMove codes
FIRST_RULES = 1  # the rules version of a game stored before games kept one


class IllegalMove(Exception):
    """A move (or option, or setup) the rules refuse. `code` is stable and machine-readable."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Game(Protocol):
    """The interface a game implements; `engine.pof.PrincesOfFlorence` is the model."""

    name: str
    min_seats: int
    max_seats: int
    move_types: dict[str, dict[str, Any]]  # move type -> {"doc", "fields": {field: JSON-Schema fragment}, "free"?}
    # JSON Schemas (OpenAPI 3.0 dialect) of what "options" normalize_options accepts, the "setup" make_setup
    # gives, the "view" any viewer gets and the "result" once there is one: typed models for API clients.
    schemas: dict[str, dict]
    decision_kinds: list[str]  # every `kind` that `pending` can give
    deadline_keys: list[str]  # what a per-game deadline setting may name: every decision kind and deadline class
    error_codes: dict[str, str]  # every IllegalMove code of the rules, with what it means
    # The version of the rules and numbers: one more whenever a change makes a move do something else. A
    # game keeps the version it started with (`rules_of`), and the rules keep each version's behaviour
    # behind that number (read `rules_of(state)` where a rule differs) while running games still use it.
    rules_version: int

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults and check values; raises IllegalMove("bad_options")."""

    def make_setup(self, options: dict[str, Any], seed: int) -> dict[str, Any]:
        """All the chance of a game, drawn once from the seed (seat order, deck orders)."""

    def new_state(self, options: dict[str, Any], setup: dict[str, Any], rules: int | None = None) -> State:
        """The first state under rules version `rules` (the current one when None), kept in it as
        ``state["rules"]`` (`started_under`); setup, rules and the moves fully determine every later one."""

    def pending(self, state: State) -> list[Decision]:
        """Who must act now: ``[{"seat", "kind", "deadline"}]`` (several seats when simultaneous)."""

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move the seat may make now (empty when it has nothing to decide), each legal as listed.

        A move with a field the seat fills in with a subset of some items (see `Fillable`) is listed
        once, with one legal filling, not once per subset: that list would grow as 2^items.
        """

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        """The next state and what happened; raises IllegalMove and leaves `state` untouched."""

    def default_move(self, state: State, seat: int) -> Move:
        """The move a deadline makes for a seat that did not act: deterministic and predictable."""

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The state as one viewer may see it (already redacted)."""

    def result(self, state: State) -> dict[str, Any] | None:
        """Scores and ranking once the game is over, else None."""

    def describe(self, move: Move) -> str:
        """A short human-readable label for a move, for emails, web pages and API clients."""


def rules_of(state: State) -> int:
    """The rules version a game's state plays by: the one it started with, or FIRST_RULES for a state
    made before states kept one."""
    return state.get("rules", FIRST_RULES)


def started_under(game: Game, state: State, rules: int | None) -> State:
    """`state` (a game's first) marked with the rules version it plays by: `rules`, else the game's
    current one; raises IllegalMove("unknown_rules") for a version the game does not have."""
    rules = game.rules_version if rules is None else rules
    if isinstance(rules, bool) or not isinstance(rules, int) or not FIRST_RULES <= rules <= game.rules_version:
        raise IllegalMove("unknown_rules", f"{game.name} has rules versions {FIRST_RULES} to {game.rules_version}")
    return {**state, "rules": rules}


class Worded(Protocol):
    """Optional for a game (`word` asks it): the name a person reads for each of its ids, from one
    table, so that no page or mail shows "organ_builder" where it means the organ builder."""

    def words(self, thing: str) -> str:
        """The name of an id of the game (a card, a piece, a decision kind); KeyError for none."""


def word(game: Game, thing: str) -> str:
    """What a person reads for one of the game's ids: its own word, or the id for a game without words."""
    words = getattr(game, "words", None)
    return words(thing) if words is not None else thing


def option_words(game: Game, options: dict[str, Any]) -> list[str]:
    """A game's chosen options as people read them before joining ("bids rise by 100"); [] for a game
    that has no words for them (optional for a game: `describe_options`)."""
    described = getattr(game, "describe_options", None)
    return described(options) if described is not None else []


class Ranked(Protocol):
    """Optional for a game (`standings` asks it): each seat's place in a finished game's result, in
    one shape for every game, for what lists a player's games and his result in each."""

    def standings(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        """``[{"seat", "rank", "score"}]`` from `result` (rank 1 wins; `score` in the game's own points)."""


def standings(game: Game, result: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """Each seat's rank and score in `result`; None before the end or for a game that is not `Ranked`."""
    ranked = getattr(game, "standings", None)
    return ranked(result) if ranked is not None and result is not None else None


class Fillable(Protocol):
    """Optional for a game: listed moves whose list field the seat fills in (`fills` asks a game for them).

    ``fill(state, seat, move)`` takes a move `legal_moves` listed and gives one annotation per such field:
    ``{"field", "choices": [{"value", "adds"}], "base", "least", "measure"}``. The move stays legal with
    `field` set to any subset of the choices' values (each at most once, in any order) whose ``adds``,
    summed with ``base``, reach ``least``; ``measure`` names what is summed, for people. The listed move
    carries one such subset already, so a client may send it as it is. No other field may change.
    ``fill_fields`` names, per move type, the field its annotations are about, so that API clients get
    the field's name and its items' type.
    """

    fill_fields: dict[str, str]  # move type -> the list field that `fill` annotates

    def fill(self, state: State, seat: int, move: Move) -> list[Fill]:
        """The annotations of the listed `move` (empty for a move with nothing to fill in)."""


def fills(game: Game, state: State, seat: int, move: Move) -> list[Fill]:
    """What the game says may be filled in of a listed move; [] for a game that is not `Fillable`."""
    fill = getattr(game, "fill", None)
    return fill(state, seat, move) if fill is not None else []


def filled(move: Move, fill: Fill, values: list[Any]) -> Move | None:
    """The move with its fill field set to `values`, or None if the annotation says that is illegal."""
    adds = {choice["value"]: choice["adds"] for choice in fill["choices"]}
    if len(set(values)) != len(values) or not set(values) <= set(adds):
        return None
    if fill["base"] + sum(adds[value] for value in values) < fill["least"]:
        return None
    return {**move, fill["field"]: list(values)}


class Unreadable(IllegalMove):
    """A written answer (`Grammar`) that cannot be turned into legal moves; `line` is the line at fault."""

    def __init__(self, code: str, message: str, line: str | None = None):
        super().__init__(code, message)
        self.line = line


LEAVE, LEAVE_CONFIRMED = "leave", "leave confirmed"  # what a line asks of the table rather than of the game


@dataclass(frozen=True)
class Command:
    """One line of a written answer as read without the game's state: its move, or None for "help"
    or for a request to the table (`asks`: LEAVE, to be asked to confirm, or LEAVE_CONFIRMED).

    `loose` names the fields the text left to the seat's options ("choose painter": the others go
    back in the order shown), with what the text did say about them; `Grammar.resolve` fills them in.
    """

    text: str
    move: Move | None
    loose: dict[str, Any] = field(default_factory=dict)
    asks: str | None = None


@dataclass(frozen=True)
class Parsed:
    """A written answer's commands, and the lines after them that read as prose (a sign-off)."""

    commands: list[Command]
    ignored: list[str] = field(default_factory=list)

    @property
    def help(self) -> bool:
        """Whether the answer asks for help (then it is answered with the commands, and none is played)."""
        return any(command.move is None and command.asks is None for command in self.commands)

    @property
    def leaving(self) -> str | None:
        """LEAVE or LEAVE_CONFIRMED when a line asks to leave the game (the service's to answer, not
        the game's: a leave line is no move), else None."""
        return next((command.asks for command in self.commands if command.asks in (LEAVE, LEAVE_CONFIRMED)), None)


@dataclass(frozen=True)
class Reading:
    """What a written answer asks of the game: its moves in order (each legal after the ones before),
    the line of each, and the lines that needed no move, with why (`Grammar.settled`)."""

    moves: list[Move]
    lines: list[str]
    settled: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Answers:
    """What a seat may write now: (command, note) lines that read back to legal moves, notes on
    writing others, and a picture of what the commands name (a board with its coordinates)."""

    commands: list[tuple[str, str]]
    notes: list[str]
    picture: str | None = None


class Grammar(Protocol):
    """Optional for a game (its `grammar` attribute): moves as lines of plain text, both ways, for
    answers by mail or chat. Pure, like the rest of the game; `read_commands` and `answers` use it."""

    guide: list[str]  # how commands are written, a few lines for every mail that asks for one

    def parse(self, lines: list[str]) -> Parsed:
        """The commands of a written answer, without the game's state; raises Unreadable. `lines` are
        the ones the player wrote himself: a channel has taken off what it added (a mail's quote,
        headings and signature: `service.inbound.quoting`)."""

    def resolve(self, command: Command, legal: list[Move]) -> Move:
        """The move a command names among the seat's legal moves; raises Unreadable."""

    def settled(self, command: Command, start: State, played: list[Move], state: State, seat: int) -> str | None:
        """Why a command needs no move, the `played` ones before it having done what it asks (`state`
        is what they left of `start`), or None: a line that says what the player meant is no error."""

    def reveals(self, before: State, after: State, seat: int) -> bool:
        """Whether a move showed the seat something it could not know when it wrote (cards drawn)."""

    def answers(self, legal: list[Move], fill: Callable[[Move], list[Fill]], view: dict[str, Any], seat: int,
                full: bool = False) -> Answers:
        """The lines the seat may send now, from its legal moves and its own view; `full` for more examples."""


def grammar_of(game: Game) -> Grammar | None:
    """The game's grammar of written commands, or None for a game that has none."""
    return getattr(game, "grammar", None)


def read_commands(game: Game, parsed: Parsed, state: State, seat: int) -> Reading:
    """The moves of a seat's parsed answer (`grammar_of(game).parse`), each checked on the state the
    ones before leave. An answer that asks for help is the caller's to answer: it reads as no moves.

    Nothing is committed: a caller plays the moves in order. A command after one that showed the seat
    something new (cards drawn) is refused unread, since a refusal would tell him what he has not paid
    to see; one the grammar finds settled by the ones before (an "end" of a turn that has ended) is
    no move, and listed as such. Raises Unreadable, with the engine's own code and words for an
    illegal move.
    """
    grammar = grammar_of(game)
    if grammar is None:
        raise Unreadable("no_grammar", f"{game.name} cannot be played by written commands")
    if parsed.help:
        return Reading([], [command.text for command in parsed.commands])
    if parsed.leaving:
        line = next(command.text for command in parsed.commands if command.asks)
        raise Unreadable("not_a_move", "leaving the game is a reply of its own: write 'leave' alone", line)
    moves: list[Move] = []
    lines: list[str] = []
    settled: list[tuple[str, str]] = []
    start, before = state, None
    for command in parsed.commands:
        if before is not None and grammar.reveals(before, state, seat):
            raise Unreadable("unseen", "the line before shows you new cards: send what follows once you have "
                                       "seen them, in reply to the mail that shows them", command.text)
        why = grammar.settled(command, start, moves, state, seat)
        if why is not None:
            settled.append((command.text, why))
            continue
        move = grammar.resolve(command, game.legal_moves(state, seat))
        try:
            after, _ = game.apply(state, seat, move)
        except IllegalMove as error:
            raise Unreadable(error.code, error.message, command.text) from None
        before, state = state, after
        moves.append(move)
        lines.append(command.text)
    return Reading(moves, lines, settled)


def answers(game: Game, state: State, seat: int, full: bool = False) -> Answers | None:
    """The commands a seat may write now, from its legal moves and its own view; None without a grammar."""
    grammar = grammar_of(game)
    if grammar is None:
        return None
    return grammar.answers(game.legal_moves(state, seat), lambda move: fills(game, state, seat, move),
                           game.view(state, seat), seat, full)


def copy_state(state: State) -> State:
    """A deep copy of plain JSON data; marshal's C round trip is several times faster than deepcopy."""
    return marshal.loads(marshal.dumps(state))


def redact(doc: Any, viewer: Viewer) -> Any:
    """Remove from `doc` every piece the viewer may not see (see the module docstring).

    Returns None for a whole dict the viewer may not see at all. Lists and dicts are new, all the way
    down; scalars are not walked into (a view holds thousands of them: a yard's squares), and a None
    in a list is dropped like a dict the viewer may not see.
    """
    if isinstance(doc, list):
        kept = []
        for item in doc:
            if isinstance(item, _NESTED):
                item = redact(item, viewer)
            if item is not None:
                kept.append(item)
        return kept
    if not isinstance(doc, dict):
        return doc
    if "private_to" in doc and doc["private_to"] != viewer:
        return None
    hidden = _HIDDEN if viewer is None or doc.get("seat") != viewer else _SECRET
    return {key: redact(value, viewer) if isinstance(value, _NESTED) else value
            for key, value in doc.items() if key not in hidden}


_NESTED = (dict, list)
_SECRET, _HIDDEN = frozenset(["secret"]), frozenset(["secret", "private"])


_GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Make a game available by name to the service, the workers and the command line."""
    _GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The game registered under `name`; raises IllegalMove("unknown_game")."""
    try:
        return _GAMES[name]
    except KeyError:
        raise IllegalMove("unknown_game", f"no game called {name!r}; known: {sorted(_GAMES)}") from None


def game_names() -> list[str]:
    return sorted(_GAMES)
