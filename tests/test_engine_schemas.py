"""The typed schemas a game publishes (`Game.schemas`, the move fragments): in OpenAPI 3.0's dialect,
strict, and true of every document the engine gives, checked after every move of random whole games."""
from __future__ import annotations

import json
import random
from typing import Any, Iterator

import openapi_spec_validator
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator

import tests.toy_game  # noqa: F401  (registers the toy game)
from engine import get_game
from engine.core import Game
from engine.pof.data import AUCTION_ITEMS
from engine.pof.table import DEADLINE_CLASS
from tests.rules_helpers import illegal, keep_all, new_game, to_actions

POF = get_game("princes-of-florence")
GOOF = get_game("goofspiel")
TOY = get_game("toy-count")
GAMES = [POF, GOOF, TOY]
PARTS = ("options", "setup", "view", "result")


def json_schema(schema: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` in JSON Schema's words: null joins the type (and the enum)."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: json_schema(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable"):
        converted["type"] = [schema["type"], "null"]
        if "enum" in schema:
            converted["enum"] = [*schema["enum"], None]
    return converted


def validator(schema: dict) -> Draft7Validator:
    return Draft7Validator(json_schema(schema))


def move_schema(move_type: str, spec: dict) -> dict:
    """A whole move of one type: its fields and a `type` that names it."""
    return {"type": "object", "properties": {"type": {"type": "string", "enum": [move_type]}, **spec["fields"]},
            "required": ["type", *spec["fields"]], "additionalProperties": False}


def subschemas(schema: dict, path: str = "") -> Iterator[tuple[str, dict]]:
    """Every schema nested in `schema` (itself included), with where it is."""
    yield path, schema
    for name, member in schema.get("properties", {}).items():
        yield from subschemas(member, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from subschemas(schema[key], f"{path}[{key}]")


def every_schema(game: Game) -> Iterator[tuple[str, dict]]:
    for part in PARTS:
        yield from subschemas(game.schemas[part], part)
    for move_type, spec in game.move_types.items():
        yield from subschemas(move_schema(move_type, spec), move_type)


class Checker:
    """One game's validators. A seat's entry in a view's `players` that was valid once is not checked
    again: entries repeat from move to move, and jsonschema takes milliseconds a view."""

    def __init__(self, game: Game):
        self.game = game
        view = json_schema(game.schemas["view"])
        self.view = Draft7Validator({**view, "properties": {**view["properties"], "players": {"type": "array"}}})
        self.player = Draft7Validator(view["properties"]["players"]["items"])
        self.result = validator(game.schemas["result"])
        self.moves = {move_type: validator(move_schema(move_type, spec)) for move_type, spec in game.move_types.items()}
        self.valid_players: set[str] = set()

    def check_view(self, seen: dict) -> None:
        self.view.validate(seen)
        for entry in seen["players"]:
            text = json.dumps(entry, sort_keys=True)
            if text not in self.valid_players:
                self.player.validate(entry)
                self.valid_players.add(text)

    def play(self, options: dict, seed: int) -> None:
        """A random whole game: after every move every seat's view and the spectator's are valid, and so is
        every legal move; at the end the result."""
        game = self.game
        options = game.normalize_options(options)
        state = game.new_state(options, game.make_setup(options, seed))
        rng = random.Random(seed)
        viewers = [*range(options["seats"]), None]
        while game.result(state) is None:
            for viewer in viewers:
                self.check_view(game.view(state, viewer))
            decision = rng.choice(game.pending(state))
            assert decision["kind"] in game.deadline_keys and decision["deadline"] in game.deadline_keys
            moves = game.legal_moves(state, decision["seat"])
            for move in moves:
                self.moves[move["type"]].validate(move)
            state, _ = game.apply(state, decision["seat"], rng.choice(moves))
        for viewer in viewers:
            self.check_view(game.view(state, viewer))
        self.result.validate(game.result(state))


CHECKERS = {game.name: Checker(game) for game in GAMES}


# --- the dialect ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_schema_is_openapi_3_0_and_strict(game: Game) -> None:
    assert set(game.schemas) == set(PARTS)
    for where, schema in every_schema(game):
        assert not {"const", "$ref", "oneOf", "anyOf", "allOf"} & set(schema), where
        assert isinstance(schema.get("type"), str), f"{where}: one type a schema, null by `nullable`"
        assert schema.get("nullable", True) is True, where
        if "enum" in schema:
            assert schema["enum"] and len(set(schema["enum"])) == len(schema["enum"]), where
        if schema["type"] == "object":
            assert "additionalProperties" in schema, f"{where}: say which keys an object may have"
            if "properties" in schema:
                assert schema["additionalProperties"] is False, where
            required = schema.get("required")
            assert required is None or (required and set(required) <= set(schema.get("properties", {}))), where
        if schema["type"] == "array":
            assert "items" in schema, where
    json.dumps(game.schemas)  # plain JSON, ready for the OpenAPI document


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_schemas_fit_an_openapi_3_0_3_document(game: Game) -> None:
    components = {**game.schemas, **{f"move.{t}": move_schema(t, spec) for t, spec in game.move_types.items()}}
    openapi_spec_validator.validate({"openapi": "3.0.3", "info": {"title": game.name, "version": "1"}, "paths": {},
                             "components": {"schemas": components}})


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_options_defaults_are_what_normalize_options_fills_in(game: Game) -> None:
    schema = game.schemas["options"]
    assert "required" not in schema
    defaults = {key: member["default"] for key, member in schema["properties"].items()}
    filled = game.normalize_options({})
    assert "seats" not in defaults, "the seat count is the seat list's length, never an option a client sends"
    assert {key: value for key, value in filled.items() if key != "seats"} == defaults
    checker = validator(schema)
    checker.validate({})
    checker.validate(defaults)
    assert not checker.is_valid({**defaults, "colour": "red"})


def test_deadline_keys_are_every_decision_kind_and_deadline_class() -> None:
    assert set(POF.deadline_keys) == set(DEADLINE_CLASS) | set(DEADLINE_CLASS.values())
    assert len(POF.deadline_keys) == len(set(POF.deadline_keys))
    assert TOY.deadline_keys == ["pick", "add", "bid", "action"]


# --- the documents the engine gives --------------------------------------------------------------


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(3, 5),
    bidding=st.sampled_from(["step", "open"]),
    auction_pass=st.booleans(),
    shuffle_seats=st.booleans(),
)
def test_random_pof_games_fit_their_schemas(seed: int, seats: int, bidding: str, auction_pass: bool,
                                             shuffle_seats: bool) -> None:
    options = {"seats": seats, "bidding": bidding, "auction_pass": auction_pass, "shuffle_seats": shuffle_seats}
    validator(POF.schemas["options"]).validate({k: v for k, v in options.items() if k != "seats"})
    validator(POF.schemas["setup"]).validate(POF.make_setup(POF.normalize_options(options), seed))
    CHECKERS[POF.name].play(options, seed)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 5), cards=st.integers(3, 13),
       ties=st.sampled_from(["discard", "carry"]))
def test_random_goofspiel_games_fit_their_schemas(seed: int, seats: int, cards: int, ties: str) -> None:
    options = {"seats": seats, "cards": cards, "ties": ties}
    validator(GOOF.schemas["options"]).validate({"cards": cards, "ties": ties})
    validator(GOOF.schemas["setup"]).validate(GOOF.make_setup(GOOF.normalize_options(options), seed))
    CHECKERS[GOOF.name].play(options, seed)


@pytest.mark.parametrize("seats", [3, 5])
def test_random_toy_games_fit_their_schemas(seats: int) -> None:
    validator(TOY.schemas["setup"]).validate(TOY.make_setup(TOY.normalize_options({"seats": seats}), seats))
    CHECKERS[TOY.name].play({"seats": seats}, seats)


@pytest.mark.parametrize("seed", range(5))
def test_setups_fit_the_setup_schema(seed: int) -> None:
    check = validator(POF.schemas["setup"])
    for seats in (3, 4, 5):
        options = POF.normalize_options({"seats": seats, "shuffle_seats": bool(seed % 2)})
        check.validate(POF.make_setup(options, seed))


# --- strict enough to fail -----------------------------------------------------------------------


def refused(check: Draft7Validator, doc: Any) -> bool:
    return not check.is_valid(doc)


def test_a_view_with_an_unknown_key_or_a_wrong_type_is_refused() -> None:
    check = validator(POF.schemas["view"])
    state = to_actions(keep_all(new_game(4)))
    mine, theirs = POF.view(state, 0), POF.view(state, None)
    check.validate(mine)
    check.validate(theirs)
    broken = [
        {**theirs, "colour": "red"},
        {**theirs, "round": "1"},
        {**theirs, "phase": "lunch"},
        {**theirs, "players": [{**theirs["players"][0], "secret": 1}, *theirs["players"][1:]]},
        {**mine, "players": [{**mine["players"][0], "private": {**mine["players"][0]["private"], "cash": 1.5}},
                             *mine["players"][1:]]},
        {**mine, "players": [{**mine["players"][0], "private": {**mine["players"][0]["private"], "hand": ["jester"]}},
                             *mine["players"][1:]]},
        {**theirs, "pending": [{**theirs["pending"][0], "kind": "nap"}]},
        {**theirs, "auction": {"done": [], "sold": [], "lot": None, "extra": 0}},
        {key: value for key, value in theirs.items() if key != "supply"},
    ]
    for doc in broken:
        assert refused(check, doc), doc
    assert not refused(check, {**theirs, "turn": None, "auction": None, "result": None})


def test_a_goofspiel_view_with_a_bid_out_of_place_or_a_wrong_type_is_refused() -> None:
    check = validator(GOOF.schemas["view"])
    options = GOOF.normalize_options({"seats": 3, "cards": 5})
    state, _ = GOOF.apply(GOOF.new_state(options, {"prizes": [3, 1, 2, 5, 4]}), 0, {"type": "bid", "card": 4})
    mine, theirs = GOOF.view(state, 0), GOOF.view(state, None)
    check.validate(mine)
    check.validate(theirs)
    me = mine["players"][0]
    broken = [
        {**theirs, "secret": {"prizes": [1, 2, 4, 5]}},
        {**theirs, "prize": 14},
        {**theirs, "prizes_left": [1, 2, 4, 5]},
        {**mine, "players": [{**me, "private": {"bid": "4"}}, *mine["players"][1:]]},
        {**mine, "players": [{**me, "bid": 4}, *mine["players"][1:]]},
        {**theirs, "pending": [{**theirs["pending"][0], "kind": "pass"}]},
        {**theirs, "history": [{"round": 1, "prize": 3, "carried": [], "stake": 3, "bids": [], "winner": None,
                                "outcome": "shared"}]},
        {key: value for key, value in theirs.items() if key != "stake"},
    ]
    for doc in broken:
        assert refused(check, doc), doc


def test_a_result_with_an_unknown_key_or_a_missing_one_is_refused() -> None:
    check = validator(POF.schemas["result"])
    score = {"seat": 0, "prestige": 6, "prestige_cards": [{"card": "most_jugglers", "points": 6}], "cash": 10,
             "rank": 1}
    check.validate({"scores": [score], "winners": [0]})
    assert refused(check, {"scores": [score], "winners": [0], "draw": False})
    assert refused(check, {"scores": [{**score, "prestige_cards": [{"card": "most_cats", "points": 6}]}],
                           "winners": [0]})
    assert refused(check, {"scores": [{k: v for k, v in score.items() if k != "rank"}], "winners": [0]})


def test_move_fragments_name_their_values_but_the_rules_give_the_codes() -> None:
    """The schema refuses an unknown name; the engine, checking types only, lets the rules say why."""
    checker = CHECKERS[POF.name]
    assert refused(checker.moves["open_auction"], {"type": "open_auction", "item": "gold"})
    for limits in ({"gold": 1}, {"lake": -1}):
        assert refused(checker.moves["set_orders"], {"type": "set_orders", "limits": limits,
                                                     "step_out_otherwise": False})
    state = keep_all(new_game(4))
    illegal(state, 0, {"type": "open_auction", "item": "gold"}, "unknown_item")
    illegal(state, 0, {"type": "set_orders", "limits": {"gold": 500}, "step_out_otherwise": False}, "unknown_item")
    illegal(state, 0, {"type": "set_orders", "limits": {"lake": -1}, "step_out_otherwise": False}, "bad_amount")
    for limits in ({"lake": "500"}, {"gold": "500"}, {"lake": None}, {"lake": True}):
        illegal(state, 0, {"type": "set_orders", "limits": limits, "step_out_otherwise": False}, "bad_move")
    limits = {item: 100 * n for n, item in enumerate(AUCTION_ITEMS)}
    checker.moves["set_orders"].validate({"type": "set_orders", "limits": limits, "step_out_otherwise": True})
    POF.apply(state, 0, {"type": "set_orders", "limits": limits, "step_out_otherwise": True})
    illegal(state, 0, {"type": "set_orders", "limits": [], "step_out_otherwise": True}, "bad_move")


@pytest.mark.parametrize("game, package", [(POF, "pof"), (GOOF, "goofspiel")], ids=["pof", "goofspiel"])
def test_every_code_the_rules_raise_is_listed(game: Game, package: str):
    """Clients rely on Game.error_codes: every IllegalMove code in the engine's game code is there."""
    import re
    from pathlib import Path

    from engine.core import ERROR_CODES
    root = Path(__file__).resolve().parent.parent / "engine"
    raised = set()
    for source in [*(root / package).glob("*.py"), root / "core.py"]:
        raised |= set(re.findall(r'IllegalMove\(\s*"([a-z_]+)"', source.read_text()))
    assert raised and raised <= set(game.error_codes) | set(ERROR_CODES), raised - set(game.error_codes)
