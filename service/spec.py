"""What the OpenAPI document says about the served games, so generated clients get typed models.

Each game's move types become schemas told apart by `type` (a discriminated oneOf wherever a move
appears), and the game's own JSON schemas for its options, setup, view and result become
components that the game documents refer to. The game's words (decision kinds, the fields a fill
annotates and what they hold) become enums, and the problem `code` lists every code there is.

The dialect is OpenAPI 3.0's, which strict validators read literally: `nullable` takes effect only
beside a `type` in the same schema, so a field that holds a component or null is any of the
component and `NULL`.
"""
from __future__ import annotations

from typing import Any


from engine.core import ERROR_CODES
from service.problems import CODES
from service.vocabulary import (
    Choice,
    Deadlines,
    EventDoc,
    GameDoc,
    GameName,
    GameTerm,
    MoveField,
    MoveFields,
    MovePart,
    component_name,
    game_prefix,
    schemas_for,
)

PARTS = {"options": "Options", "setup": "Setup", "view": "View", "result": "Result",
         "normalized_options": "NormalizedOptions"}
NULL = {"type": "object", "nullable": True, "enum": [None]}  # admits null and nothing else
EVENT = {
    "type": "object",
    "description": "What happened, as the game or the service tells it; the other keys depend on `type` "
                   "(a seat's private part is shown to that seat alone).",
    "properties": {"type": {"type": "string", "description": "What kind of event this is, e.g. bid or timeout."}},
    "required": ["type"],
    "additionalProperties": True,
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _any_of(options: list[dict[str, Any]], nullable: bool = False) -> dict[str, Any]:
    """One schema of several (or null too): a lone component is wrapped in allOf, where OpenAPI 3.0
    would ignore a description beside its $ref. Several games' documents may overlap (both games' options
    admit `{"seats": 3}`), so it is anyOf, not oneOf: the service checks a document against the game named."""
    if nullable:
        return {"anyOf": [*options, NULL]}
    return {"allOf": options} if len(options) == 1 else {"anyOf": options}


def normalized_options(game: Any) -> dict[str, Any]:
    """The options as a game holds them (what `normalize_options` gives): every option the game takes,
    filled in, and the number of seats, which the service adds from the seat list."""
    options = game.schemas["options"]
    seats = {"type": "integer", "minimum": game.min_seats, "maximum": game.max_seats,
             "description": "Number of players."}
    properties = {**options["properties"], "seats": seats}
    return {"type": "object", "description": "The game's options, defaults filled in, and its number of seats.",
            "properties": properties, "required": list(properties), "additionalProperties": False}


def _documents(game: Any) -> dict[str, dict[str, Any]]:
    return {**{part: game.schemas[part] for part in ("options", "setup", "view", "result")},
            "normalized_options": normalized_options(game)}


def _terms(served: list[Any]) -> dict[str, dict[str, Any]]:
    """The served games' words as schemas, by GameTerm term; a term no game uses stays a plain string."""
    kinds = list(dict.fromkeys(kind for game in served for kind in game.decision_kinds))
    filled = [(game, move_type, name) for game in served
              for move_type, name in getattr(game, "fill_fields", {}).items()]
    items = list({repr(item): item for item in
                  (game.move_types[move_type]["fields"][name]["items"] for game, move_type, name in filled)}.values())
    terms: dict[str, dict[str, Any]] = {}
    if kinds:
        terms["decision_kind"] = {"type": "string", "enum": kinds}
    if filled:
        terms["fill_field"] = {"type": "string", "enum": list(dict.fromkeys(name for _, _, name in filled))}
        terms["fill_value"] = items[0] if len(items) == 1 else {"anyOf": items}
    return terms


def describe_games(api: Any, served: list[Any]) -> None:
    """Register the games' components and teach the field converter to point at them."""
    spec = api.spec
    moves, mapping = [], {}
    for game in served:
        for move_type, schema in schemas_for(game).items():
            name = component_name(game.name, move_type)
            spec.components.schema(name, schema=schema)
            spec.components.schemas[name]["additionalProperties"] = False  # apispec drops it beside a description
            moves.append(_ref(name))
            mapping.setdefault(move_type, []).append(moves[-1]["$ref"])
        for part, document in _documents(game).items():
            spec.components.schema(f"{game_prefix(game.name)}{PARTS[part]}", component=document)
    spec.components.schema("Event", component=EVENT)
    terms = _terms(served)
    for term, schema in terms.items():
        spec.components.schema(_term_component(term), component=schema)
    move_union: dict[str, Any] = {"oneOf": moves}
    if all(len(refs) == 1 for refs in mapping.values()):
        move_union["discriminator"] = {"propertyName": "type",
                                       "mapping": {move_type: refs[0] for move_type, refs in mapping.items()}}
    docs = {part: [_ref(f"{game_prefix(g.name)}{suffix}") for g in served] for part, suffix in PARTS.items()}
    deadline_keys = sorted({key for game in served for key in game.deadline_keys})
    rule_codes = {**ERROR_CODES, **{code: text for game in served for code, text in game.error_codes.items()}}
    codes = sorted(set(CODES) | set(rule_codes))

    def typed_property(converter, field, ret: dict, **kwargs) -> dict:
        """Replace a game-defined field's generic schema with the game's own."""
        nullable = bool(ret.get("nullable"))
        if isinstance(field, MoveField) and moves:
            replacement = dict(move_union)
        elif isinstance(field, GameDoc) and served:
            replacement = _any_of(docs[field.part], nullable)
        elif isinstance(field, Deadlines) and served:
            seconds = {"type": "integer", "minimum": field.low, "maximum": field.high}
            replacement = {"type": "object", "properties": {key: seconds for key in deadline_keys},
                           "additionalProperties": False}
        elif isinstance(field, MovePart) and _having(served, field.move_type):
            parts = list({repr(part): part for part in (game.move_types[field.move_type]["fields"][field.part]
                                                          for game in _having(served, field.move_type))}.values())
            replacement = dict(parts[0]) if len(parts) == 1 else {"anyOf": parts}
        elif isinstance(field, MoveFields) and _having(served, field.move_type):
            objects = [{"type": "object", "properties": dict(fields), "required": list(fields)}
                       for fields in (game.move_types[field.move_type]["fields"]
                                      for game in _having(served, field.move_type))]
            if len(objects) == 1:
                replacement = {**objects[0], **({"nullable": True} if nullable else {})}
            else:
                replacement = {"anyOf": [*objects, *([NULL] if nullable else [])]}
        elif isinstance(field, EventDoc):
            replacement = _ref("Event")
        elif isinstance(field, GameTerm) and field.term in terms:
            replacement = _any_of([_ref(_term_component(field.term))], nullable)
        elif isinstance(field, Choice):
            if field.component not in spec.components.schemas:
                spec.components.schema(field.component, component={"type": "string", "enum": field.names})
            replacement = _any_of([_ref(field.component)], nullable)
        elif isinstance(field, GameName):
            return {"enum": [game.name for game in served], **({"default": served[0].name} if served else {})}
        elif ret.get("anyOf") and {"type": "object", "nullable": True} in ret["anyOf"]:
            # a nested schema or null: apispec's null part would admit any object
            replacement = _any_of([option for option in ret["anyOf"] if option.get("nullable") is not True], True)
        else:
            return {}
        kept = {key: ret[key] for key in ("description", "default") if key in ret}
        if "$ref" in replacement.get("allOf", [{}])[0] and len(replacement["allOf"]) == 1 and not kept:
            replacement = replacement["allOf"][0]  # nothing to say beside the component: refer to it
        ret.clear()
        return {**replacement, **kept}

    api.ma_plugin.converter.add_attribute_function(typed_property)
    problem = spec.components.schemas["Problem"]["properties"]["code"]  # resolved when the Api was made
    problem["enum"] = codes
    problem["description"] = "Stable machine code: " + "; ".join(
        f"`{code}` {CODES[code][1] if code in CODES else rule_codes[code]}" for code in codes)


def _having(served: list[Any], move_type: str) -> list[Any]:
    """The served games that have a move type (not every game has standing orders), in PALAZZO_GAMES order."""
    return [game for game in served if move_type in game.move_types]


def _term_component(term: str) -> str:
    """DecisionKind, FillField, FillValue."""
    return "".join(part.capitalize() for part in term.split("_"))
