"""The engine's move vocabulary as marshmallow schemas: one schema per move `type`.

The engine describes each move's fields with small JSON-Schema fragments; this turns them into
strict schemas (no unknown fields, no floats for integers, no 1 for true) and names them for OpenAPI.
"""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate


class StrictBoolean(fields.Boolean):
    """Only JSON true and false: marshmallow's Boolean also takes 1, "yes" and "on"."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise ValidationError("Not a valid boolean.")
        return value


def field_for(fragment: dict[str, Any], title: str = "", **kwargs: Any) -> fields.Field:
    """A strict marshmallow field for a JSON-Schema fragment of the engine's vocabulary.

    `title` names the schema of an object with fixed properties in the OpenAPI document.
    """
    kind = fragment["type"]
    checks = [validate.OneOf(fragment["enum"])] if "enum" in fragment else []
    if "minimum" in fragment:
        checks.append(validate.Range(min=fragment["minimum"]))
    if kind == "integer":
        return fields.Integer(strict=True, validate=checks, **kwargs)
    if kind == "string":
        return fields.String(validate=checks, **kwargs)
    if kind == "boolean":
        return StrictBoolean(**kwargs)
    if kind == "array":
        if "maxItems" in fragment:
            checks.append(validate.Length(min=fragment["minItems"], max=fragment["maxItems"]))
        return fields.List(field_for(fragment["items"]), validate=checks, **kwargs)
    if kind == "object" and "properties" in fragment:
        inner = {name: field_for(part) for name, part in fragment["properties"].items()}
        return fields.Nested(Schema.from_dict(inner, name=title), **kwargs)
    if kind == "object":
        return fields.Dict(keys=fields.String(), values=field_for(fragment["additionalProperties"]), **kwargs)
    raise ValueError(f"no field for JSON type {kind}")


def game_prefix(game_name: str) -> str:
    """What every OpenAPI schema name of a game starts with: its name in CamelCase ("my-game": MyGame)."""
    return "".join(part.capitalize() for part in game_name.split("-"))


def component_name(game_name: str, move_type: str) -> str:
    """The OpenAPI name of a move schema ("my-game", "bid": MyGameMove.bid)."""
    return f"{game_prefix(game_name)}Move.{move_type}"


_SCHEMAS: dict[tuple[str, int], dict[str, type[Schema]]] = {}


def schemas_for(game: Any) -> dict[str, type[Schema]]:
    """One schema class per move type of a game, built once per vocabulary."""
    key = (game.name, id(game.move_types))
    if key not in _SCHEMAS:
        _SCHEMAS[key] = _build(game.name, game.move_types)
    return _SCHEMAS[key]


def _build(game_name: str, move_types: dict[str, Any]) -> dict[str, type[Schema]]:
    schemas = {}
    for move_type, spec in move_types.items():
        attrs: dict[str, Any] = {
            "type": fields.String(required=True, validate=validate.OneOf([move_type])),
            **{name: field_for(fragment, title=f"{component_name(game_name, move_type)}.{name}", required=True)
               for name, fragment in spec["fields"].items()},
        }
        title = game_prefix(game_name) + "".join(part.capitalize() for part in move_type.split("_"))  # unique across games
        meta = type("Meta", (), {"title": title, "description": spec["doc"]})
        schemas[move_type] = type(component_name(game_name, move_type), (Schema,), {**attrs, "Meta": meta})
    return schemas


def check_move(game: Any, move: Any) -> dict[str, Any]:
    """The move loaded by its type's schema; raises ValidationError with field messages."""
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise ValidationError({"type": ["A move is an object with a string 'type'."]})
    schema = schemas_for(game).get(move["type"])
    if schema is None:
        raise ValidationError({"type": [f"Unknown move type; one of {sorted(game.move_types)}."]})
    loader = _LOADERS.get(schema)
    if loader is None:
        loader = _LOADERS.setdefault(schema, schema())
    return loader.load(move)


_LOADERS: dict[type[Schema], Schema] = {}  # one instance per move schema: building one costs more than a load


class MoveField(fields.Dict):
    """A move object; checked against the game's vocabulary once the game is known.

    The OpenAPI document shows it as a oneOf of the move types, told apart by `type` (service.spec).
    """

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError("A move is an object.")
        return value


class GameDoc(fields.Dict):
    """A document whose shape the game defines (its options, setup, view or result).

    Checked by the engine once the game is known; the OpenAPI document refers to the game's own
    schema for `part` (service.spec), so generated clients get typed models.
    """

    def __init__(self, part: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.part = part


class Deadlines(fields.Dict):
    """Seconds allowed per decision kind or deadline class; the keys are the game's `deadline_keys`."""

    def __init__(self, low: int, high: int, **kwargs: Any):
        super().__init__(keys=fields.String(validate=validate.Length(min=1, max=40)),
                         values=fields.Integer(strict=True, validate=validate.Range(min=low, max=high)), **kwargs)
        self.low, self.high = low, high


class GameName(fields.String):
    """The name of a served game; the OpenAPI document lists them (the engine refuses others)."""


class MovePart(fields.Dict):
    """One field of one of the game's move types, e.g. the `limits` of `set_orders`.

    Checked against the vocabulary once the game is known; documented with the game's own fragment.
    """

    def __init__(self, move_type: str, name: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.move_type, self.part = move_type, name


class Choice(fields.String):
    """One of a few names, published as its own named enum so that a nullable choice generates one
    type in a client (an inline enum with null in it generates several)."""

    def __init__(self, component: str, names: list[str], **kwargs: Any):
        super().__init__(validate=validate.OneOf(names), **kwargs)
        self.component, self.names = component, names


class GameTerm(fields.String):
    """A word whose values the served games define, listed as an enum by the OpenAPI document
    (service.spec): `term` is "decision_kind" (a kind `pending` gives), "fill_field" (a field a `fill`
    annotation is about) or "fill_value" (an item such a field holds)."""

    def __init__(self, term: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.term = term


class MoveFields(fields.Dict):
    """The fields of one of the game's move types as one object (standing orders are the fields of
    `set_orders`); the game may keep more beside them."""

    def __init__(self, move_type: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.move_type = move_type


class EventDoc(fields.Dict):
    """What happened, as the game or the service tells it: an object told apart by its `type`, whose
    other keys depend on the type (the OpenAPI document's Event)."""
