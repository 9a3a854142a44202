"""What the OpenAPI document says about the served games, so generated clients get typed models.

Each game's move types become schemas told apart by `type` (a discriminated oneOf wherever a move
appears), and the game's own JSON schemas for its options, setup, view and result become
components that the game documents refer to. The problem `code` lists every code there is.
"""
from __future__ import annotations

from typing import Any

from engine.core import ERROR_CODES
from service.problems import CODES
from service.vocabulary import (
    Choice,
    Deadlines,
    GameDoc,
    GameName,
    MoveField,
    MovePart,
    component_name,
    game_prefix,
    schemas_for,
)

PARTS = {"options": "Options", "setup": "Setup", "view": "View", "result": "Result"}


def _one_of(refs: list[dict[str, str]]) -> dict[str, Any]:
    return refs[0] if len(refs) == 1 else {"oneOf": refs}


def describe_games(api: Any, served: list[Any]) -> None:
    """Register the games' components and teach the field converter to point at them."""
    spec = api.spec
    moves, mapping = [], {}
    for game in served:
        for move_type, schema in schemas_for(game).items():
            name = component_name(game.name, move_type)
            spec.components.schema(name, schema=schema)
            spec.components.schemas[name]["additionalProperties"] = False  # apispec drops it beside a description
            moves.append({"$ref": f"#/components/schemas/{name}"})
            mapping.setdefault(move_type, []).append(moves[-1]["$ref"])
        for part, suffix in PARTS.items():
            spec.components.schema(f"{game_prefix(game.name)}{suffix}", component=game.schemas[part])
    move_union: dict[str, Any] = {"oneOf": moves}
    if all(len(refs) == 1 for refs in mapping.values()):
        move_union["discriminator"] = {"propertyName": "type",
                                       "mapping": {move_type: refs[0] for move_type, refs in mapping.items()}}
    docs = {part: _one_of([{"$ref": f"#/components/schemas/{game_prefix(g.name)}{suffix}"} for g in served])
            for part, suffix in PARTS.items()}
    deadline_keys = sorted({key for game in served for key in game.deadline_keys})
    rule_codes = {**ERROR_CODES, **{code: text for game in served for code, text in game.error_codes.items()}}
    codes = sorted(set(CODES) | set(rule_codes))

    def typed_property(converter, field, ret: dict, **kwargs) -> dict:
        """Replace a game-defined field's generic object with the game's own schema."""
        if isinstance(field, MoveField) and moves:
            replacement = dict(move_union)
        elif isinstance(field, GameDoc) and served:
            replacement = {"allOf": [docs[field.part]]} if "$ref" in docs[field.part] else dict(docs[field.part])
        elif isinstance(field, Deadlines) and served:
            seconds = {"type": "integer", "minimum": field.low, "maximum": field.high}
            replacement = {"type": "object", "properties": {key: seconds for key in deadline_keys},
                           "additionalProperties": False}
        elif isinstance(field, MovePart) and served:
            replacement = dict(served[0].move_types[field.move_type]["fields"][field.part])
        elif isinstance(field, Choice):
            if field.component not in spec.components.schemas:
                spec.components.schema(field.component, component={"type": "string", "enum": field.names})
            replacement = {"allOf": [{"$ref": f"#/components/schemas/{field.component}"}]}
        elif isinstance(field, GameName):
            return {"enum": [game.name for game in served]}
        else:
            return {}
        for key in ("type", "additionalProperties", "enum"):
            ret.pop(key, None)
        for key in ("description", "nullable", "default"):
            if key in ret:
                replacement[key] = ret[key]
        ret.clear()
        return replacement

    api.ma_plugin.converter.add_attribute_function(typed_property)
    problem = spec.components.schemas["Problem"]["properties"]["code"]  # resolved when the Api was made
    problem["enum"] = codes
    problem["description"] = "Stable machine code: " + "; ".join(
        f"`{code}` {CODES[code][1] if code in CODES else rule_codes[code]}" for code in codes)
