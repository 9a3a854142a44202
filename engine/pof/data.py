"""The game's numbers and cards, read once from the single data file `data.json` beside this module.

A host who owns the printed game corrects a reconstructed value in that file, never in code. Reading
a file that ships inside the package at import time is the engine's only contact with the world.
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("data.json").read_text("utf-8"))

RULES_VERSION: int = DATA["rules_version"]  # see data.json's rules_version_rule and engine.core.Game
ECONOMY: dict[str, Any] = DATA["economy"]
SUPPLY: dict[str, Any] = DATA["supply"]
WORK_VALUE: dict[str, int] = DATA["work_value"]
ROUNDS: int = ECONOMY["rounds"]
MIN_WORK_VALUE: list[int] = DATA["min_work_value_by_round"]
AUCTION_ITEMS: list[str] = DATA["auction_items"]
GRID_ROWS: int = DATA["grid"]["rows"]
GRID_COLS: int = DATA["grid"]["cols"]
PALAZZO: list[tuple[int, int]] = [tuple(sq) for sq in DATA["grid"]["palazzo"]]

BUILDINGS: dict[str, dict[str, Any]] = {b["id"]: b for b in DATA["buildings"]}
LANDSCAPES: dict[str, dict[str, Any]] = {l["id"]: l for l in DATA["landscapes"]}
FREEDOMS: list[str] = [f["id"] for f in DATA["freedoms"]]
PROFESSIONS: dict[str, dict[str, Any]] = {p["id"]: p for p in DATA["professions"]}
BONUS_CARDS: dict[str, dict[str, Any]] = {c["id"]: c for c in DATA["bonus_cards"]}
PRESTIGE_CARDS: dict[str, dict[str, Any]] = {c["id"]: c for c in DATA["prestige_cards"]}
