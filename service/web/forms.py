"""Moves as HTML form fields and back: the engine's vocabulary is the only map between the two.

A page lays out a listed move as form fields (`fields_of`), and a posted form becomes a move dict
(`move_from`) read field by field from the game's JSON-Schema fragments, so a form can only ever
post what the API takes; `service.vocabulary.check_move` then checks it exactly as the API does.

How each JSON type travels: an integer or string as one field; a boolean as "true" (absent or
anything else is false, as an unticked checkbox sends nothing); a list as the field repeated; a list
of [row, col] pairs (squares) as "r,c" items, several to a value separated by spaces, so that one
radio button can carry a whole placement; an object as one field per member, named "field.member".
"""
from __future__ import annotations

from typing import Any

from werkzeug.datastructures import MultiDict

from engine.core import Move
from engine.typed import whole_number
from service.problems import Problem


def fields_of(game: Any, move: Move) -> list[tuple[str, str]]:
    """The (name, value) pairs of hidden inputs that post exactly `move`."""
    spec = game.move_types[move["type"]]["fields"]
    pairs = [("type", move["type"])]
    for name, fragment in spec.items():
        pairs += _encode(name, fragment, move[name])
    return pairs


def _encode(name: str, fragment: dict[str, Any], value: Any) -> list[tuple[str, str]]:
    kind = fragment["type"]
    if kind == "boolean":
        return [(name, "true")] if value else []
    if kind == "array":
        return [(name, _item(fragment["items"], item)) for item in value]
    if kind == "object":
        return [(f"{name}.{member}", str(each)) for member, each in value.items()]
    return [(name, str(value))]


def _item(fragment: dict[str, Any], value: Any) -> str:
    return ",".join(str(part) for part in value) if fragment["type"] == "array" else str(value)


def move_from(game: Any, form: MultiDict) -> Move:
    """The move a posted form describes; 422 `invalid_move` when a field cannot be read at all.

    Values are only converted here (text to int, "r,c" to a pair); whether they are allowed is
    `check_move`'s and the rules' to say, as for the API.
    """
    move_type = form.get("type", "")
    if move_type not in game.move_types:
        raise Problem("invalid_move", f"there is no move called {move_type!r} in this game")
    move: dict[str, Any] = {"type": move_type}
    for name, fragment in game.move_types[move_type]["fields"].items():
        try:
            move[name] = _decode(name, fragment, form)
        except (ValueError, KeyError):
            raise Problem("invalid_move", f"the form's {name.replace('_', ' ')} could not be read") from None
    return move


def _decode(name: str, fragment: dict[str, Any], form: MultiDict) -> Any:
    kind = fragment["type"]
    if kind == "boolean":
        return form.get(name) == "true"
    if kind == "array":
        items = fragment["items"]
        if items["type"] == "array":
            return [[_scalar(items["items"], part) for part in pair.split(",")]
                    for value in form.getlist(name) for pair in value.split()]
        return [_scalar(items, value) for value in form.getlist(name)]
    if kind == "object":
        members = fragment.get("properties") or {}
        prefix = f"{name}."
        found = {}
        for key in form:
            if key.startswith(prefix) and form.get(key, "").strip():
                member = key[len(prefix):]
                found[member] = _scalar(members.get(member) or fragment.get("additionalProperties")
                                        or {"type": "string"}, form[key])
        return found
    return _scalar(fragment, form[name])


def _scalar(fragment: dict[str, Any], text: str) -> Any:
    if fragment["type"] == "integer":
        number = whole_number(text)
        if number is None:
            raise ValueError(f"not a whole number: {text!r}")
        return number
    return text


def number(text: str | None) -> int | str:
    """A whole number typed in a form, or what was typed, for the API's schema to refuse in its own words."""
    found = whole_number(text)
    return found if found is not None else (text or "").strip()
