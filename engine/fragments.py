"""JSON-Schema fragments in OpenAPI 3.0's dialect, from which every game builds its `schemas` and move
fields: ``nullable`` rather than type arrays, no ``$ref``, and an object whose keys are fixed refuses
others (tests/test_engine_schemas.py holds every game to that dialect)."""
from __future__ import annotations

from typing import Any, Iterable

Schema = dict[str, Any]


def names(ids: Iterable[str]) -> Schema:
    """A string that is one of a game's names, so that API clients get an enum."""
    return {"type": "string", "enum": list(ids)}


def list_of(fragment: Schema) -> Schema:
    return {"type": "array", "items": fragment}


def closed(description: str | None, properties: dict[str, Schema], optional: Iterable[str] = ()) -> Schema:
    """An object with exactly these keys, each present unless named optional."""
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    optional = set(optional)
    required = [key for key in properties if key not in optional]
    if required:  # OpenAPI 3.0 refuses an empty required list
        schema["required"] = required
    if description:
        schema["description"] = description
    return schema


RULES = {"type": "integer", "minimum": 1, "description": "The rules version the game plays by: the one it "
         "started with (a state from before versions were kept has none and plays by version 1)."}


def nullable(schema: Schema) -> Schema:
    return {**schema, "nullable": True}


def described(schema: Schema, description: str) -> Schema:
    return {**schema, "description": description}


def options(properties: dict[str, Schema], defaults: dict[str, Any]) -> Schema:
    """The options object a game's `normalize_options` takes: every key optional, each with its default,
    but "seats", which a creator gives as the length of the game's seat list."""
    return closed("Options of a new game; a key left out takes its default. The number of seats is not among "
                  "them: it is the length of the game's seat list.",
                  {key: {**schema, "default": defaults[key]} for key, schema in properties.items() if key != "seats"},
                  optional=properties)
