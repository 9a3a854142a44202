"""A finished game folded into one compressed key still reads, pages and replays as before."""
from __future__ import annotations

import time

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


def _play_out_with_keys(client, game_id: str, tokens: dict[int, str]) -> list[tuple[dict, dict]]:
    """Play the toy game to its end as players do, every move with an Idempotency-Key; returns each
    move's (headers, body), to be sent again."""
    sent = []
    while (game := client.get(f"/api/v1/games/{game_id}").get_json())["status"] == "running":
        decision = game["pending"][0]
        move = {"type": "pick", "value": 1} if decision["kind"] == "pick" else {"type": "add", "amount": 1}
        headers = {**bearer(tokens[decision["seat"]]), "Idempotency-Key": f"move-{game['version']}"}
        body = {"move": move, "version": game["version"]}
        assert client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body).status_code == 200
        sent.append((headers, body))
    return sent


def test_a_compacted_game_leaves_its_hash_and_its_archive_and_nothing_else(app, client, redis_url):
    """Idempotency answers (24 h) and mail claims (30 days) stayed beside a compacted game."""
    from service.mail import seats
    created = new_game(client, seats=3, options={"turns": 1})
    game_id, store = created["game"]["id"], app.extensions["palazzo.store"]
    sent = _play_out_with_keys(client, game_id, seat_tokens(created))
    for what in ("decision:0:2", "round:1:0", "over:0", "over:1"):  # as workers.notify claims its mails
        assert seats.claim(store, game_id, what, 30 * 24 * 3600)
    assert not seats.claim(store, game_id, "over:0", 30 * 24 * 3600), "a claim holds"
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    before = {key.split(f"{game_id}:", 1)[1] for key in raw.scan_iter(match=game_key(game_id, "*"))}
    assert sum(part.startswith("idem:") for part in before) == len(sent) and {"answers", "claims"} <= before

    headers, body = sent[-1]
    replayed = client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    assert replayed.status_code == 200 and replayed.headers["Idempotent-Replayed"] == "true"
    assert store.compact(game_id)

    left = {key.split(f"{game_id}:", 1)[1] for key in raw.scan_iter(match=game_key(game_id, "*"))}
    assert left == {"game", "archive"}, left
    retried = client.post(f"/api/v1/games/{game_id}/moves", headers=headers, json=body)
    keyless = client.post(f"/api/v1/games/{game_id}/moves", headers={"Authorization": headers["Authorization"]},
                          json=body)
    assert retried.status_code == keyless.status_code == 409, "a retry after compaction moves nothing"
    assert retried.get_json() == keyless.get_json() and retried.get_json()["code"] == "stale_version", \
        "and gets what the same move without its key gets"


def test_a_claim_holds_for_its_time_then_lapses(app, client):
    """Claims are fields of one hash now; a short one (a reply's notice, an hour) must still lapse."""
    game_id, store = new_game(client, seats=3)["game"]["id"], app.extensions["palazzo.store"]
    assert store.claim(game_id, "notice:0", 1) and not store.claim(game_id, "notice:0", 1)
    assert store.claim(game_id, "notice:1", 3600), "another claim is its own"
    store.redis.hset(game_key(game_id, "claims"), "notice:0", int(time.time()) - 1)  # as a second later
    assert store.claim(game_id, "notice:0", 1), "lapsed: claimed again"
    assert not store.claim(game_id, "notice:1", 3600)
