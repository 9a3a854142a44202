"""The committed OpenAPI document is what the app generates, and a client can use it without guessing."""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from service.app import create_app
from service.config import Config
from service.problems import CODES
from tests.conftest import SECRET

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
REGENERATE = ("PALAZZO_SECRET=$(python -c 'print(\"x\"*32)') "
              "flask --app service.app:create_app openapi write --format=json openapi/openapi.json")
METHODS = ("get", "put", "post", "delete", "patch")
LINTER = ROOT / "node_modules" / ".bin" / "redocly"


def _spec() -> dict:
    return json.loads(SPEC.read_text())


def _operations(spec: dict):
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_committed_spec_is_current(monkeypatch):
    monkeypatch.delenv("PALAZZO_BASE_URL", raising=False)
    monkeypatch.delenv("PALAZZO_GAMES", raising=False)  # the spec describes every game served by default
    app = create_app(Config.from_env().but(redis_url="redis://127.0.0.1:1/0", secret_key=SECRET))
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


def test_moves_are_a_union_of_every_games_moves_and_the_view_is_typed():
    """Both games have a "bid" (an amount in Florence, a card in Goofspiel), so the union has no discriminator:
    each move's component is closed and names its type, so exactly one of them matches a move."""
    from engine.goofspiel import GAME as GOOFSPIEL
    from engine.pof import GAME
    games = {"PrincesOfFlorence": GAME, "Goofspiel": GOOFSPIEL}
    schemas = _spec()["components"]["schemas"]
    refs = [f"#/components/schemas/{prefix}Move.{move_type}"
            for prefix, game in games.items() for move_type in game.move_types]
    for where in (schemas["MoveIn"]["properties"]["move"], schemas["LabelledMove"]["properties"]["move"]):
        assert [one["$ref"] for one in where["oneOf"]] == refs
        assert "discriminator" not in where
    for prefix, game in games.items():
        for move_type in game.move_types:
            move = schemas[f"{prefix}Move.{move_type}"]
            assert move["properties"]["type"]["enum"] == [move_type] and move["additionalProperties"] is False
    game_out = schemas["GameOut"]["properties"]
    assert game_out["view"]["anyOf"] == [{"$ref": f"#/components/schemas/{prefix}View"} for prefix in games]
    assert "players" in schemas["PrincesOfFlorenceView"]["properties"]
    game_in = schemas["GameIn"]["properties"]
    assert game_in["game"]["enum"] == ["princes-of-florence", "goofspiel"]
    assert set(game_in["deadlines"]["properties"]) == set(GAME.deadline_keys) | set(GOOFSPIEL.deadline_keys)
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
        url = path.replace("{game_id}", game_id).replace("{seat}", "0").replace("{seq}", "1")
        answer = client.open(url, method=method.upper(), json={} if "requestBody" in operation else None)
        refused = answer.status_code == 401 and answer.get_json()["code"] == "token_required"
        (token_only if refused else anyone).append(operation["operationId"])
        if refused:
            assert operation["security"] == [{"token": []}], (path, method)
        else:
            assert {} in operation["security"] or operation["security"] == [], (path, method, answer.status_code)
    # 26: taking and ending a vacation (takeVacation, endVacation) act for the caller's seat, as leaving does;
    # 30: a player's webhooks (list, add, delete, enable) are his alone
    # 33: so are his tokens and sessions (list, revoke) and asking to change his address
    # 34: and deleting his data
    assert len(token_only) == 34 and {"deleteMyData", "listMyTokens", "revokeMyToken", "changeMyAddress", "listMyWebhooks", "addWebhook", "deleteWebhook", "enableWebhook", "submitMove", "setOrders", "pauseGame", "listMyTurns", "mailHostLink", "joinGame",
                                      "renewJoinLink", "listMyGames", "renameGame", "leaveGame", "removePlayer",
                                      "postMessage", "hideMessage", "takeVacation", "endVacation"} <= set(token_only)
    assert "listMessages" in anyone
    signing_in = {op["operationId"]: op["security"] for _, _, op in _operations(_spec())
                  if op.get("operationId") in ("requestSignIn", "redeemSignIn", "confirmAddressChange")}
    assert signing_in == {"requestSignIn": [], "redeemSignIn": [], "confirmAddressChange": []}


def _nodes(doc, path: str = "$"):
    """Every schema-like mapping in the document, with where it is."""
    if isinstance(doc, dict):
        yield path, doc
        for key, value in doc.items():
            yield from _nodes(value, f"{path}/{key}")
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _nodes(value, f"{path}/{index}")


def test_every_nullable_has_a_type_beside_it_and_strict_validators_take_null():
    """OpenAPI 3.0.3: `nullable` takes effect only beside a `type`; strict validators (openapi-schema-
    validator, Redocly) read it so, and refused null in every unfinished game's `result`."""
    from openapi_schema_validator import OAS30Validator
    spec = _spec()
    untyped = [path for path, node in _nodes(spec) if node.get("nullable") is True and "type" not in node]
    assert untyped == []
    schemas = spec["components"]["schemas"]
    for schema, prop in [("GameOut", "result"), ("GameIn", "setup"), ("SeatIn", "bot"), ("SeatOut", "bot"),
                         ("SeatOut", "standin"), ("OrdersOut", "orders"), ("GameOut", "paused_until")]:
        check = OAS30Validator({**schemas[schema]["properties"][prop], "components": spec["components"]})
        assert check.is_valid(None), (schema, prop)
        assert not check.is_valid(12345), (schema, prop)
    seat = OAS30Validator({**schemas["SeatIn"], "components": spec["components"]})
    assert seat.is_valid({"name": "Bo", "bot": "greedy"}) and not seat.is_valid({"name": "Bo", "bot": "clever"})


def test_no_object_is_left_untyped_where_the_service_knows_its_type():
    """Every object has properties, or says what its values are; the one free-form object is a problem's
    `errors` (marshmallow's messages, keyed by the fields of whatever was refused)."""
    spec = _spec()
    free = [path for path, node in _nodes(spec["components"]["schemas"])
            if node.get("type") == "object" and not node.get("properties") and not node.get("additionalProperties")
            and "enum" not in node]
    assert free == ["$/Problem/properties/errors"]
    schemas = spec["components"]["schemas"]
    options = schemas["GameOut"]["properties"]["options"]
    assert options == {"anyOf": [{"$ref": "#/components/schemas/PrincesOfFlorenceNormalizedOptions"},
                                 {"$ref": "#/components/schemas/GoofspielNormalizedOptions"}]}
    assert set(schemas["PrincesOfFlorenceNormalizedOptions"]["required"]) == {"seats", "bidding", "auction_pass",
                                                                               "shuffle_seats"}
    from engine.goofspiel import GAME as GOOFSPIEL
    from engine.pof import GAME
    assert set(schemas["GameOut"]["properties"]["deadlines"]["properties"]) == {*GAME.deadline_keys,
                                                                                 *GOOFSPIEL.deadline_keys}
    assert set(schemas["OrdersOut"]["properties"]["orders"]["required"]) == set(GAME.move_types["set_orders"]["fields"])
    for where in (schemas["EventOut"]["properties"]["event"], schemas["MoveOut"]["properties"]["events"]["items"]):
        assert where == {"$ref": "#/components/schemas/Event"}
    assert schemas["Event"]["required"] == ["type"] and schemas["Event"]["properties"]["type"]["type"] == "string"


def test_the_games_words_are_enums_taken_from_the_served_games():
    from engine.bots import BOTS
    from engine.pof import GAME
    from engine.pof.data import BONUS_CARDS
    schemas = _spec()["components"]["schemas"]

    def enum_of(where: dict) -> list:
        while "enum" not in where:
            where = schemas[where["$ref"].rsplit("/", 1)[1]] if "$ref" in where else \
                next(option for option in (where.get("anyOf") or where["allOf"]) if option.get("enum") != [None])
        return where["enum"]

    assert enum_of(schemas["PendingOut"]["properties"]["kind"]) == GAME.decision_kinds
    assert enum_of(schemas["TurnOut"]["properties"]["kind"]) == GAME.decision_kinds
    assert enum_of(schemas["SeatOut"]["properties"]["bot"]) == enum_of(schemas["SeatOut"]["properties"]["standin"]) \
        == list(BOTS)
    assert enum_of(schemas["FillOut"]["properties"]["field"]) == ["bonus_cards"]
    assert set(enum_of(schemas["FillChoice"]["properties"]["value"])) == set(BONUS_CARDS)


def test_the_spec_of_an_app_serving_two_games_lists_the_words_of_both(app):
    spec = app.test_client().get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    from engine.pof import GAME
    assert schemas["DecisionKind"]["enum"] == [*GAME.decision_kinds, "pick", "add"]
    result = schemas["GameOut"]["properties"]["result"]["anyOf"]
    for game in ("ToyCount", "PrincesOfFlorence"):
        assert {"$ref": f"#/components/schemas/{game}Result"} in result
    import openapi_spec_validator
    openapi_spec_validator.validate(spec)


def _lint(path: Path) -> subprocess.CompletedProcess:
    """Redocly CLI's lint with the repository's redocly.yaml (recommended-strict: any warning fails)."""
    assert LINTER.exists(), f"the spec linter is missing: run `make spec-tools` (npm ci into {LINTER.parent.parent})"
    node = subprocess.run(["node", "-p", "process.versions.node"], capture_output=True, text=True, timeout=30)
    major, minor = (int(part) for part in node.stdout.split(".")[:2])
    assert (major, minor) >= (20, 19), f"Redocly CLI 2 needs Node.js 20.19 or later; this is {node.stdout.strip()}"
    return subprocess.run([str(LINTER), "lint", str(path), "--config", str(ROOT / "redocly.yaml"), "--format=stylish"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"})


def test_redocly_lint_finds_no_problem_in_the_committed_spec():
    linted = _lint(SPEC)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert "error" not in linted.stdout and "warning" not in linted.stdout, linted.stdout


def test_the_lint_would_catch_a_nullable_without_a_type(tmp_path):
    """The configuration lints for real: the document as it was before nullable got its type fails it."""
    spec = _spec()
    spec["components"]["schemas"]["GameOut"]["properties"]["result"] = {
        "allOf": [{"$ref": "#/components/schemas/PrincesOfFlorenceResult"}], "nullable": True}
    broken = tmp_path / "openapi.json"
    broken.write_text(json.dumps(spec))
    linted = _lint(broken)
    assert linted.returncode != 0 and "nullable-type-sibling" in linted.stdout, linted.stdout + linted.stderr
