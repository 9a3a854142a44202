"""A move is checked against the seat's own decision: no spurious 409s, private orders stay private,
and an idempotent retry gets the first answer even after a crash."""
from __future__ import annotations

import pytest

from service import playing
from tests.conftest import assert_replays, bearer, new_game, seat_tokens
from tests.test_api_races import _hammer, _log_length

ORDERS = {"limits": {}, "step_out_otherwise": True}


def _version(client, game_id: str) -> int:
    return client.get(f"/api/v1/games/{game_id}").get_json()["version"]


def test_five_seats_answering_a_simultaneous_decision_at_once_all_succeed(app, client):
    created = new_game(client, seats=5)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    version = _version(client, game_id)
    requests = [(bearer(tokens[seat]), {"move": {"type": "pick", "value": 2}, "version": version}) for seat in range(5)]
    results = _hammer(app, requests, f"/api/v1/games/{game_id}/moves")
    assert [status for status, _ in results] == [200] * 5, results
    assert _version(client, game_id) == version + 5 and _log_length(app, game_id) == 5
    assert_replays(app, game_id)


def test_twenty_threads_on_one_seats_decision_exactly_one_wins(app, client):
    created = new_game(client, seats=5)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    version = _version(client, game_id)
    requests = [(bearer(tokens[3]), {"move": {"type": "pick", "value": 1 + n % 3}, "version": version})
                for n in range(20)]
    results = _hammer(app, requests, f"/api/v1/games/{game_id}/moves")
    assert sorted(status for status, _ in results) == [200] + [409] * 19
    assert all(body["code"] == "stale_version" for status, body in results if status == 409)
    assert _log_length(app, game_id) == 1


def test_another_seats_move_does_not_make_mine_stale(client):
    created = new_game(client, seats=3)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    seen = _version(client, game_id)
    for seat in (0, 1):
        ok = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                         json={"move": {"type": "pick", "value": 1}, "version": seen})
        assert ok.status_code == 200, ok.get_json()
    assert client.post(f"/api/v1/games/{game_id}/moves", headers={**bearer(tokens[2]), "If-Match": f'"{seen}"'},
                       json={"move": {"type": "pick", "value": 3}}).status_code == 200


def test_a_retry_without_a_key_never_counts_as_the_seats_next_move(client):
    created = new_game(client, seats=3, options={"turns": 2})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    for seat in range(3):
        client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                    json={"move": {"type": "pick", "value": 1}, "version": _version(client, game_id)})
    # seat 0 adds; then seats 1 and 2; seat 0's next turn is a new decision, even of the same kind
    seen = _version(client, game_id)
    body = {"move": {"type": "add", "amount": 1}, "version": seen}
    assert client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]), json=body).status_code == 200
    for seat in (1, 2):
        answered = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                               json={"move": {"type": "add", "amount": 1}, "version": _version(client, game_id)})
        assert answered.status_code == 200, answered.get_json()
    [mine] = [d for d in client.get(f"/api/v1/games/{game_id}").get_json()["pending"] if d["seat"] == 0]
    assert mine["kind"] == "add" and mine["since"] > seen, "seat 0 is to add again: a new decision"
    replayed = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]), json=body)
    assert replayed.status_code == 409 and replayed.get_json()["code"] == "stale_version"


def test_standing_orders_change_no_version_no_log_and_no_feed(app, client):
    created = new_game(client, seats=3)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    seen = _version(client, game_id)
    feed = client.get(f"/api/v1/games/{game_id}/events", headers=bearer(tokens[0])).get_json()
    for _ in range(20):
        assert client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1]), json=ORDERS).status_code == 200
        assert client.delete(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1])).status_code == 200
    assert _version(client, game_id) == seen and _log_length(app, game_id) == 0
    for viewer in (bearer(tokens[0]), bearer(tokens[1]), {}):
        assert client.get(f"/api/v1/games/{game_id}/events", headers=viewer).get_json()["next_after"] == feed["next_after"]
    move = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]),
                       json={"move": {"type": "pick", "value": 2}, "version": seen})
    assert move.status_code == 200, move.get_json()
    assert client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[2]), json=ORDERS).status_code == 200
    assert_replays(app, game_id)  # the log plus the private moves since rebuild the stored state
    assert _log_length(app, game_id) == 2, "forty order changes reach the log as one, before the move"


def test_private_orders_reach_the_log_before_the_next_public_move(app, client):
    created = new_game(client, seats=3)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[2]), json=ORDERS)
    client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1]), json=ORDERS)
    client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[0]),
                json={"move": {"type": "pick", "value": 2}, "version": _version(client, game_id)})
    log = app.extensions["palazzo.store"].log(game_id)
    assert [(entry["seat"], entry["move"]["type"]) for entry in log] == [(1, "set_orders"), (2, "set_orders"), (0, "pick")]
    assert_replays(app, game_id)


def test_an_idempotent_retry_after_a_crash_gets_the_first_answer(app, client, monkeypatch):
    created = new_game(client, seats=3, bots={2: "random"})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    headers = {**bearer(tokens[0]), "Idempotency-Key": "crash-1"}
    body = {"move": {"type": "pick", "value": 3}, "version": _version(client, game_id)}
    logged = _log_length(app, game_id)

    def crash(*args, **kwargs):
        raise SystemExit("the worker died after the commit")

    monkeypatch.setattr(playing, "follow_up", crash)  # dies right after the commit
    with pytest.raises(SystemExit):
        client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    monkeypatch.undo()
    retry = client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    assert retry.status_code == 200, retry.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true" and retry.get_json()["label"] == "pick 3"
    assert _log_length(app, game_id) == logged + 1
