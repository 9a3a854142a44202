"""Concurrent submissions against a real redis-server: retries with one key apply once, nothing doubles.

The races on one decision and on simultaneous decisions are in test_api_decisions.py."""
from __future__ import annotations

import threading

from tests.conftest import bearer, new_game, seat_tokens


def _log_length(app, game_id: str) -> int:
    from service.store import game_key
    return app.extensions["palazzo.store"].redis.llen(game_key(game_id, "log"))


def _hammer(app, requests: list[tuple[dict, dict]], url: str) -> list:
    """POST every (headers, body) at once from its own thread, released together by a barrier."""
    barrier = threading.Barrier(len(requests))
    results: list = [None] * len(requests)

    def worker(index: int, headers: dict, body: dict) -> None:
        client = app.test_client()
        barrier.wait()
        response = client.post(url, headers=headers, json=body)
        results[index] = (response.status_code, response.get_json())

    threads = [threading.Thread(target=worker, args=(i, h, b)) for i, (h, b) in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_idempotent_retry_returns_the_first_body_and_moves_once(app, client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    headers = {**bearer(token), "Idempotency-Key": "k-1"}
    body = {"move": {"type": "pick", "value": 3}, "version": version}
    first = client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    again = client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert _log_length(app, game_id) == 1
    other = client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                        json={"move": {"type": "pick", "value": 1}, "version": version})
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"


def test_concurrent_retries_with_one_key_apply_once(app, client):
    """Ten copies of one request at once: one moves, nine get its answer, marked as replays."""
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    headers = {**bearer(token), "Idempotency-Key": "same"}
    barrier = threading.Barrier(10)
    answers: list = [None] * 10

    def retry(index: int) -> None:
        own = app.test_client()
        barrier.wait()
        answers[index] = own.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                                  json={"move": {"type": "pick", "value": 2}, "version": version})

    threads = [threading.Thread(target=retry, args=(n,)) for n in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [200] * 10
    assert all(a.get_json() == answers[0].get_json() for a in answers)
    assert sum(a.headers.get("Idempotent-Replayed") == "true" for a in answers) == 9
    assert _log_length(app, game_id) == 1
