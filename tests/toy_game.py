"""A tiny game with the same interface as Princes of Florence, so the API is tested on its own.

Each seat holds a hidden number dealt from the seed. First every seat secretly picks 1-3 at the same
time (a simultaneous decision, like keeping professions); then seats take turns adding 1 or 2 to
their public score, for `turns` rounds. The score is public, the pick and the dealt number stay
private until the game is over; standing orders (the free `set_orders`) are private too.
"""
from __future__ import annotations

import random
from typing import Any

from engine.core import IllegalMove, copy_state, register, rules_of, started_under

MOVE_TYPES: dict[str, dict[str, Any]] = {
    "pick": {"doc": "At the start, secretly: pick 1, 2 or 3.", "fields": {"value": {"type": "integer"}}},
    "add": {"doc": "On your turn: add 1 or 2 to your score.", "fields": {"amount": {"type": "integer"}}},
    "set_orders": {
        "doc": "Free: private standing orders.",
        "fields": {
            "limits": {"type": "object", "additionalProperties": {"type": "integer"}},
            "step_out_otherwise": {"type": "boolean"},
        },
        "free": True,
        "private": True,
    },
}

_INT = {"type": "integer"}
_HIDDEN = {  # a seat's own part of the state, and everyone's once the game is over
    "type": "object",
    "properties": {
        "number": _INT,
        "pick": {"type": "integer", "nullable": True},
        "orders": {
            "type": "object",
            "properties": MOVE_TYPES["set_orders"]["fields"],
            "required": ["limits", "step_out_otherwise"],
            "additionalProperties": False,
        },
    },
    "required": ["number", "pick", "orders"],
    "additionalProperties": False,
}
_PLAYER = {
    "type": "object",
    "properties": {"seat": _INT, "score": _INT, "picked": {"type": "boolean"}, "private": _HIDDEN, "revealed": _HIDDEN},
    "required": ["seat", "score", "picked"],
    "additionalProperties": False,
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "options": {
        "type": "object",
        "properties": {
            "turns": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2},
            "bidding": {"type": "string", "default": "step"},
            "auction_pass": {"type": "boolean", "default": False},
        },
        "additionalProperties": False,
    },
    "setup": {
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": _INT}},
        "required": ["numbers"],
        "additionalProperties": False,
    },
    "view": {
        "type": "object",
        "properties": {
            "phase": {"type": "string", "enum": ["pick", "turns", "over"]},
            "turn": _INT,
            "moves_left": _INT,
            "players": {"type": "array", "items": _PLAYER},
            "rules": _INT,
        },
        "required": ["phase", "turn", "moves_left", "players"],
        "additionalProperties": False,
    },
    "result": {
        "type": "object",
        "properties": {"scores": {"type": "array", "items": _INT}, "ranking": {"type": "array", "items": _INT}},
        "required": ["scores", "ranking"],
        "additionalProperties": False,
    },
}


ADD_BONUS = {1: 0}  # rules version -> what an add scores beyond its amount (a test adds a version 2)


class ToyCount:
    """The counting game; see the module docstring."""

    name = "toy-count"
    rules_version = 1
    min_seats = 3
    max_seats = 5
    move_types = MOVE_TYPES
    schemas = SCHEMAS
    decision_kinds = ["pick", "add"]
    deadline_keys = ["pick", "add", "bid", "action"]
    error_codes = {code: code.replace("_", " ") for code in
                   ("bad_options", "bad_setup", "bad_move", "unknown_move", "bad_seat", "game_over", "not_legal")}

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        full = {"seats": 3, "turns": 2, "bidding": "step", "auction_pass": False, **options}
        known = {"seats", "turns", "bidding", "auction_pass"}
        if set(full) - known:
            raise IllegalMove("bad_options", f"unknown options {sorted(set(full) - known)}")
        if not (isinstance(full["seats"], int) and self.min_seats <= full["seats"] <= self.max_seats):
            raise IllegalMove("bad_options", "seats must be 3 to 5")
        if not (isinstance(full["turns"], int) and 1 <= full["turns"] <= 10):
            raise IllegalMove("bad_options", "turns must be 1 to 10")
        return full

    def make_setup(self, options: dict[str, Any], seed: int) -> dict[str, Any]:
        rng = random.Random(seed)
        return {"numbers": [rng.randint(1, 9) for _ in range(options["seats"])]}

    def new_state(self, options: dict[str, Any], setup: dict[str, Any], rules: int | None = None) -> dict[str, Any]:
        numbers = setup.get("numbers")
        if not isinstance(numbers, list) or len(numbers) != options["seats"] or not all(
                isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise IllegalMove("bad_setup", "one number per seat")
        return started_under(self, {
            "phase": "pick",
            "turn": 0,
            "moves_left": options["seats"] * options["turns"],
            "players": [
                {"seat": s, "score": 0, "picked": False,
                 "private": {"number": n, "pick": None, "orders": {"limits": {}, "step_out_otherwise": False}}}
                for s, n in enumerate(setup["numbers"])
            ],
            "secret": {"setup": setup},
        }, rules)

    def pending(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        if state["phase"] == "pick":
            return [{"seat": p["seat"], "kind": "pick", "deadline": "bid"}
                    for p in state["players"] if not p["picked"]]
        if state["phase"] == "turns":
            return [{"seat": state["turn"], "kind": "add", "deadline": "action"}]
        return []

    def legal_moves(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        if any(d["seat"] == seat for d in self.pending(state)):
            if state["phase"] == "pick":
                return [{"type": "pick", "value": v} for v in (1, 2, 3)]
            return [{"type": "add", "amount": a} for a in (1, 2)]
        return []

    def apply(self, state: dict[str, Any], seat: int, move: dict[str, Any]):
        if not isinstance(move, dict) or move.get("type") not in MOVE_TYPES:
            raise IllegalMove("unknown_move", "unknown move type")
        if set(move) - {"type"} != set(MOVE_TYPES[move["type"]]["fields"]):
            raise IllegalMove("bad_move", "wrong fields")
        if not 0 <= seat < len(state["players"]):
            raise IllegalMove("bad_seat", "no such seat")
        if move["type"] == "set_orders":
            if state["phase"] == "over":
                raise IllegalMove("game_over", "the game is over")
            new = copy_state(state)
            new["players"][seat]["private"]["orders"] = {
                "limits": dict(move["limits"]), "step_out_otherwise": move["step_out_otherwise"]}
            return new, [{"type": "orders_set", "seat": seat, "private": {"orders": move["limits"]}}]
        if move not in self.legal_moves(state, seat):
            raise IllegalMove("not_legal", f"seat {seat} cannot {self.describe(move)} now")
        new = copy_state(state)
        player = new["players"][seat]
        if move["type"] == "pick":
            player["picked"] = True
            player["private"]["pick"] = move["value"]
            events = [{"type": "picked", "seat": seat, "private": {"value": move["value"]}}]
            if all(p["picked"] for p in new["players"]):
                new["phase"] = "turns"
            return new, events
        player["score"] += move["amount"] + ADD_BONUS[rules_of(state)]
        new["moves_left"] -= 1
        new["turn"] = (seat + 1) % len(new["players"])
        events = [{"type": "added", "seat": seat, "amount": move["amount"]}]
        if new["moves_left"] == 0:
            new["phase"] = "over"
            for p in new["players"]:
                p["revealed"] = dict(p["private"])
            events.append({"type": "game_over", "result": self.result(new)})
        return new, events

    def default_move(self, state: dict[str, Any], seat: int) -> dict[str, Any]:
        return self.legal_moves(state, seat)[0]

    def view(self, state: dict[str, Any], viewer: int | None) -> dict[str, Any]:
        from engine.core import redact
        return redact(state, viewer)

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if state["phase"] != "over":
            return None
        totals = [p["score"] + p["private"]["pick"] + p["private"]["number"] for p in state["players"]]
        ranking = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
        return {"scores": totals, "ranking": ranking}

    def describe(self, move: dict[str, Any]) -> str:
        if move["type"] == "pick":
            return f"pick {move['value']}"
        if move["type"] == "add":
            return f"add {move['amount']}"
        return "set standing orders"


GAME = register(ToyCount())
