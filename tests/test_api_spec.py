"""The committed OpenAPI document is what the app generates, and a client can use it without guessing."""
from __future__ import annotations

import json
import re
from pathlib import Path

from service.app import create_app
from service.problems import CODES
from tests.conftest import SECRET

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
REGENERATE = ("PALAZZO_SECRET=$(python -c 'print(\"x\"*32)') "
              "flask --app service.app:create_app openapi write --format=json openapi/openapi.json")
METHODS = ("get", "put", "post", "delete", "patch")


def _spec() -> dict:
    return json.loads(SPEC.read_text())


def _operations(spec: dict):
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_committed_spec_is_current(monkeypatch):
    monkeypatch.delenv("PALAZZO_BASE_URL", raising=False)
    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0", "GAMES": ["princes-of-florence"], "SECRET_KEY": SECRET})
    generated = app.test_client().get("/api/v1/openapi.json").get_json()
    assert _spec() == generated, f"openapi/openapi.json is stale; run: {REGENERATE}"


def test_every_operation_has_an_operation_id_and_the_spec_a_server():
    spec = _spec()
    ids = [operation.get("operationId") for _, _, operation in _operations(spec)]
    assert all(ids) and len(ids) == len(set(ids))
    assert {"createGame", "getGame", "submitMove", "listLegalMoves", "listEvents", "setOrders"} <= set(ids)
    assert spec["servers"] and spec["servers"][0]["url"].startswith("http")


def test_every_code_the_service_raises_is_in_the_catalog_and_the_spec():
    raised = set()
    for source in (ROOT / "service").rglob("*.py"):
        raised |= set(re.findall(r'Problem\(\s*"([a-z_]+)"', source.read_text()))
    assert raised <= set(CODES), raised - set(CODES)
    listed = set(_spec()["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    assert set(CODES) <= listed


def test_problems_are_documented_where_they_occur():
    spec = _spec()
    for path, method, operation in _operations(spec):
        responses = operation["responses"]
        if path.endswith("openapi.json"):
            continue
        assert "429" in responses and "Retry-After" in responses["429"]["headers"], (path, method)
        assert "503" in responses, (path, method)
        if "requestBody" in operation:
            assert {"400", "413", "422"} <= set(responses), (path, method)
        for status, response in responses.items():
            if status.isdigit() and int(status) >= 400:
                assert "application/problem+json" in response["content"], (path, method, status)
    submit = spec["paths"]["/api/v1/games/{game_id}/moves"]["post"]["responses"]
    assert {"401", "403", "404", "409", "422", "428", "429"} <= set(submit)
    assert "`stale_version`" in submit["409"]["description"]


def test_moves_are_a_discriminated_union_and_the_view_is_typed():
    from engine.pof import GAME
    schemas = _spec()["components"]["schemas"]
    for where in (schemas["MoveIn"]["properties"]["move"], schemas["LabelledMove"]["properties"]["move"]):
        assert len(where["oneOf"]) == len(GAME.move_types)
        assert where["discriminator"]["propertyName"] == "type"
        assert set(where["discriminator"]["mapping"]) == set(GAME.move_types)
    for move_type in GAME.move_types:
        assert schemas[f"PrincesOfFlorenceMove.{move_type}"]["properties"]["type"]["enum"] == [move_type]
    game_out = schemas["GameOut"]["properties"]
    assert game_out["view"]["allOf"] == [{"$ref": "#/components/schemas/PrincesOfFlorenceView"}]
    assert "players" in schemas["PrincesOfFlorenceView"]["properties"]
    game_in = schemas["GameIn"]["properties"]
    assert game_in["game"]["enum"] == ["princes-of-florence"]
    assert set(game_in["deadlines"]["properties"]) == set(GAME.deadline_keys)
    assert game_in["deadlines"]["additionalProperties"] is False
    limits = schemas["OrdersIn"]["properties"]["limits"]
    assert limits.get("additionalProperties") is False and "juggler" in limits["properties"]


def test_the_committed_spec_is_a_valid_openapi_3_0_document():
    import openapi_spec_validator
    openapi_spec_validator.validate(_spec())


def test_the_feed_documents_its_query_beside_its_headers():
    """The operation's own header parameters are added to the ones flask-smorest makes of its query."""
    from service.schemas import EventsQuery
    parameters = _spec()["paths"]["/api/v1/games/{game_id}/events"]["get"]["parameters"]
    assert {p["name"] for p in parameters if p["in"] == "query"} == set(EventsQuery._declared_fields)
    assert {p["name"] for p in parameters if p["in"] == "header"} == {"If-None-Match"}
    wait = next(p for p in parameters if p["name"] == "wait")
    assert wait["schema"]["maximum"] == 30 and wait["schema"]["type"] == "integer"


def test_security_says_which_operations_refuse_an_anonymous_caller(client):
    """Each operation is called without a token: those that answer 401 token_required declare the token
    alone, the others let anonymous callers in too; signing in asks for no token at all."""
    from tests.conftest import new_game
    game_id = new_game(client)["game"]["id"]
    token_only, anyone = [], []
    for path, method, operation in _operations(_spec()):
        if path.endswith("openapi.json"):
            continue
        url = path.replace("{game_id}", game_id).replace("{seat}", "0")
        answer = client.open(url, method=method.upper(), json={} if "requestBody" in operation else None)
        refused = answer.status_code == 401 and answer.get_json()["code"] == "token_required"
        (token_only if refused else anyone).append(operation["operationId"])
        if refused:
            assert operation["security"] == [{"token": []}], (path, method)
        else:
            assert {} in operation["security"] or operation["security"] == [], (path, method, answer.status_code)
    assert len(token_only) == 13 and {"submitMove", "setOrders", "pauseGame", "listMyTurns"} <= set(token_only)
    signing_in = {op["operationId"]: op["security"] for _, _, op in _operations(_spec())
                  if op.get("operationId") in ("requestSignIn", "redeemSignIn")}
    assert signing_in == {"requestSignIn": [], "redeemSignIn": []}
