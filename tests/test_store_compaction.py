"""A finished game folded into one compressed key still reads, pages and replays as before."""
from __future__ import annotations

import redis

from service import games
from service.store import game_key
from tests.conftest import bearer, new_game, seat_tokens

GAME = "princes-of-florence"


def _finished_game(client) -> dict:
    created = new_game(client, game=GAME, seats=3, bots={0: "greedy", 1: "greedy", 2: "greedy"})
    game_id = created["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished"
    return created


def _memory(redis_url: str, game_id: str) -> int:
    raw = redis.Redis.from_url(redis_url)
    return sum(raw.memory_usage(key) for key in raw.scan_iter(match=game_key(game_id, "*")))


def test_a_compacted_game_reads_pages_and_replays_as_before(app, client, redis_url):
    created = _finished_game(client)
    game_id, store = created["game"]["id"], app.extensions["palazzo.store"]
    pages = [client.get(f"/api/v1/games/{game_id}/events?after={after}&limit=50").get_json() for after in (0, 50, 75)]
    game = client.get(f"/api/v1/games/{game_id}").get_json()
    log, state, length = store.log(game_id), games.replay(store, game_id), store.feed_length(game_id)
    before = _memory(redis_url, game_id)

    assert store.compact(game_id)

    assert not store.redis.exists(game_key(game_id, "log"), game_key(game_id, "events"))
    assert [client.get(f"/api/v1/games/{game_id}/events?after={after}&limit=50").get_json()
            for after in (0, 50, 75)] == pages
    assert client.get(f"/api/v1/games/{game_id}").get_json() == game
    assert store.log(game_id) == log and games.replay(store, game_id) == state
    assert store.feed_length(game_id) == length > 75
    after = _memory(redis_url, game_id)
    assert after < before / 3 and after < 48 * 1024, (before, after)
    assert not store.compact(game_id)  # once is enough


def test_only_a_finished_game_is_compacted(app, client):
    created = new_game(client, game=GAME, seats=3)
    game_id, store = created["game"]["id"], app.extensions["palazzo.store"]
    assert not store.compact(game_id)
    token = seat_tokens(created)[0]
    assert client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(token)).status_code == 200
    assert store.redis.exists(game_key(game_id, "events"))
