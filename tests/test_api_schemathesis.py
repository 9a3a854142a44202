"""schemathesis against the app's own spec, in process, with every check schemathesis has but two.

Half of the generated cases are pointed at a real game with a real seat or host token, so the fuzzing
reaches the move, order and host code and not only the 401/404 answers. Checks left out, each because
what it reports is the documented behaviour:

- positive_data_acceptance: the rules and cross-field conditions refuse schema-valid requests with a
  documented answer no schema can express (422 with a rules code such as `not_your_decision`,
  `duplicate_email`, `version_mismatch`; 428 `version_required` when neither If-Match nor `version`).
- use_after_free: DELETE /games/{id}/orders cancels the caller's orders; the orders resource is a
  per-seat singleton that exists as long as the game does, so GET answers 200 with `orders: null`.
  (It only runs in stateful tests, so this list names it for the record and for CLI runs.)

`test_create_refuses_an_empty_setup` pins what negative_data_rejection found against the served spec
(princes-of-florence only) and the in-process spec (two games, so `setup` is a oneOf) does not reach.
"""
from __future__ import annotations

import zlib

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks, positive_data_acceptance, use_after_free

from tests.conftest import bearer, new_game, seat_tokens

load_all_checks()
EXCLUDED = [positive_data_acceptance, use_after_free]
CHECKED = [check for check in CHECKS.get_all() if check not in EXCLUDED]


@pytest.fixture
def api_schema(app):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


def _stable(text: str) -> int:
    """A split of the cases that is the same in every run (hash() changes with PYTHONHASHSEED)."""
    return zlib.crc32(text.encode())


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_spec(case, app):
    client = app.test_client()
    created = new_game(client, seats=3, bots={2: "random"})
    headers = {"Accept-Encoding": "identity"}  # schemathesis's WSGI client decodes no content coding
    _short_waits(case)
    path_is_negative = case.meta is not None and case.meta.is_negative_at("path")
    if "game_id" in (case.path_parameters or {}) and not path_is_negative and _stable(repr(case.body)) % 2 == 0:
        case.path_parameters["game_id"] = created["game"]["id"]
        role = _stable(case.operation.path) % 2
        token = created["tokens"]["host"] if role else seat_tokens(created)[0]
        headers.update(bearer(token))
    case.call_and_validate(headers=headers, checks=CHECKED)


def _short_waits(case) -> None:
    """A long poll (`wait=N`, up to 30 s) with nothing new answers after N seconds: fuzzing the events
    and messages feeds with it spent minutes waiting (a game with no talk waits every time), so a valid
    wait becomes 0; test_api_edges and test_talk_api test the long polls themselves. (The coverage
    phase sends it as the text of a number, the others as an int.)"""
    wait = (case.query or {}).get("wait")
    if isinstance(wait, int) and not isinstance(wait, bool) and 0 < wait <= 30:
        case.query["wait"] = 0
    elif isinstance(wait, str) and wait.isdigit() and 0 < int(wait) <= 30:
        case.query["wait"] = "0"


def test_create_refuses_an_empty_setup(client):
    """`setup: {}` breaks the schema (seat_order and decks are required); it must not fall back to the seed."""
    response = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 0, "setup": {},
                                                   "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["code"] in {"invalid_request", "bad_setup"}
