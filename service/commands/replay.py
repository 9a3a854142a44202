"""Replay a recorded game from its setup and moves, and print the final state and result as JSON.

The file is ``{"game", "options", "setup", "moves": [{"seat", "move"}]}``, as `palazzo simulate
--save-replay` writes it or a finished game's ``GET /games/{id}/record`` answers it (other keys, and a
move's "at", are left alone), and optionally ``"rules"``, the rules version the game played by (else the
current one); setup + moves determine the game, so a replay reproduces it exactly, and a bug report
needs nothing else.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from engine import IllegalMove, get_game

KEYS = ("game", "options", "setup", "moves")


class BadReplay(Exception):
    """A replay file that cannot be played, with the message to show."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the JSON game record to replay")


def run(args: argparse.Namespace) -> int:
    try:
        record = load(args.file)
        state, result = replay(record)
    except BadReplay as error:
        print(f"palazzo replay: {args.file}: {error}", file=sys.stderr)
        return 2
    print(json.dumps({"state": state, "result": result}, indent=2))
    return 0


def read(path: str) -> Any:
    """The JSON document in the file (`palazzo import` reads records so too); BadReplay if there is none."""
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except OSError as error:
        raise BadReplay(f"cannot read the file: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
        raise BadReplay(f"not JSON: {error}") from None


def load(path: str) -> dict[str, Any]:
    """The record in the file, with its keys checked; BadReplay says what is wrong."""
    record = read(path)
    if not isinstance(record, dict):
        raise BadReplay("a replay is a JSON object")
    missing = [key for key in KEYS if key not in record]
    if missing:
        raise BadReplay(f"missing keys: {', '.join(missing)} (a replay has {', '.join(KEYS)})")
    if not isinstance(record["game"], str) or not isinstance(record["options"], dict):
        raise BadReplay("'game' is a game's name and 'options' an object")
    if not isinstance(record["moves"], list):
        raise BadReplay("'moves' is a list of {\"seat\", \"move\"}")
    return record


def replay(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Play the record's moves from its setup: the final state and the result (None if unfinished)."""
    try:
        game = get_game(record["game"])
        options = game.normalize_options(record["options"])
        state = game.new_state(options, record["setup"], record.get("rules"))
    except IllegalMove as error:
        raise BadReplay(f"cannot start the game: {error.code}: {error.message}") from None
    for index, entry in enumerate(record["moves"]):
        if not isinstance(entry, dict) or not {"seat", "move"} <= set(entry):
            raise BadReplay(f"move {index}: an entry has \"seat\" and \"move\", got {json.dumps(entry)}")
        try:
            state, _ = game.apply(state, entry["seat"], entry["move"])
        except IllegalMove as error:
            raise BadReplay(
                f"move {index} (seat {entry['seat']}, {json.dumps(entry['move'])}) is illegal:"
                f" {error.code}: {error.message}") from None
    return state, game.result(state)
