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
from typing import Any, Protocol

State = dict[str, Any]
Move = dict[str, Any]
Event = dict[str, Any]
Decision = dict[str, Any]
Viewer = int | None  # a seat number, or None for a spectator


ERROR_CODES = {"unknown_game": "no game of that name is hosted here"}  # the core's own IllegalMove codes


class IllegalMove(Exception):
    """A move (or option, or setup) the rules refuse. `code` is stable and machine-readable."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class Game(Protocol):
    """The interface a game implements; `engine.pof.PrincesOfFlorence` is the model."""

    name: str
    min_seats: int
    max_seats: int
    move_types: dict[str, dict[str, Any]]  # move type -> {"doc", "fields": {field: JSON-Schema fragment}, "free"?}
    # JSON Schemas (OpenAPI 3.0 dialect) of what "options" normalize_options accepts, the "setup" make_setup
    # gives, the "view" any viewer gets and the "result" once there is one: typed models for API clients.
    schemas: dict[str, dict]
    deadline_keys: list[str]  # what a per-game deadline setting may name: every decision kind and deadline class
    error_codes: dict[str, str]  # every IllegalMove code of the rules, with what it means

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Fill defaults and check values; raises IllegalMove("bad_options")."""

    def make_setup(self, options: dict[str, Any], seed: int) -> dict[str, Any]:
        """All the chance of a game, drawn once from the seed (seat order, deck orders)."""

    def new_state(self, options: dict[str, Any], setup: dict[str, Any]) -> State:
        """The first state; setup + the moves fully determine every later one."""

    def pending(self, state: State) -> list[Decision]:
        """Who must act now: ``[{"seat", "kind", "deadline"}]`` (several seats when simultaneous)."""

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move the seat may make now (empty when it has nothing to decide)."""

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


def copy_state(state: State) -> State:
    """A deep copy of plain JSON data; marshal's C round trip is several times faster than deepcopy."""
    return marshal.loads(marshal.dumps(state))


def redact(doc: Any, viewer: Viewer) -> Any:
    """Remove from `doc` every piece the viewer may not see (see the module docstring).

    Returns None for a whole dict the viewer may not see at all.
    """
    if isinstance(doc, list):
        return [kept for kept in (redact(item, viewer) for item in doc) if kept is not None]
    if not isinstance(doc, dict):
        return doc
    if "private_to" in doc and doc["private_to"] != viewer:
        return None
    keep_private = viewer is not None and doc.get("seat") == viewer
    return {
        key: redact(value, viewer)
        for key, value in doc.items()
        if key != "secret" and (key != "private" or keep_private)
    }


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
