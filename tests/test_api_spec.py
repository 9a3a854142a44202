"""The committed OpenAPI document is what the app generates."""
from __future__ import annotations

import json
from pathlib import Path

from service.app import create_app

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
REGENERATE = "flask --app service.app:create_app openapi write --format=json openapi/openapi.json"


def test_committed_spec_is_current():
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "GAMES": ["princes-of-florence"]})
    generated = app.test_client().get("/api/v1/openapi.json").get_json()
    assert json.loads(SPEC.read_text()) == generated, f"openapi/openapi.json is stale; run: {REGENERATE}"


def test_every_move_type_has_a_schema():
    from engine.pof import GAME
    spec = json.loads(SPEC.read_text())
    refs = spec["components"]["schemas"]["MoveIn"]["properties"]["move"]["oneOf"]
    assert len(refs) == len(GAME.move_types)
