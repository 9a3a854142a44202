"""The game store on a real Redis Cluster (three masters on loopback, append-only, fsync always), RQ
on a plain Redis, the API through the Flask test client and real `palazzo worker` processes: games
land on every master, bots and deadlines run through the workers, the wake index lives in the
cluster and survives a restart of it, long-polls, a player's games, mail and rate limits work."""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections import Counter

import pytest
import redis

from service.config import ConfigError
from service.connection import ClusterURLError
from service.store import WAKE_KEYS, feed_channel, game_key
from tests.cluster import LocalCluster
from tests.conftest import (REPO, SECRET, WORKER, assert_replays, bearer, long_poll_across_a_move, make_app, new_game,
                            seat_tokens, sign_in, wait_for)

pytestmark = pytest.mark.skipif(shutil.which("redis-cli") is None,
                                reason="redis-cli (Debian's redis-tools, which comes with redis-server) is not installed")

BOTS = {0: "random", 1: "random", 2: "greedy"}


@pytest.fixture(scope="module")
def cluster_server(tmp_path_factory):
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as cluster:
        yield cluster


@pytest.fixture
def cluster(cluster_server):
    cluster_server.wait_ok()
    cluster_server.flush()
    return cluster_server


@pytest.fixture
def on_cluster(cluster, redis_url):
    """The app on the cluster, with its queues on the plain test Redis."""
    return make_app(cluster.url, JOBS="rq", QUEUE_URL=redis_url, MIN_DEADLINE=1, BOT_DELAY=0)


@pytest.fixture
def cluster_workers(cluster, redis_url, workers_on):
    return lambda count=1, **settings: workers_on(cluster.url, count, PALAZZO_QUEUE_URL=redis_url, **settings)


def _store(app):
    return app.extensions["palazzo.store"]


def _log(app, game_id: str) -> list[dict]:
    return _store(app).log(game_id)


def _timeouts(app, game_id: str) -> list[tuple[int, str]]:
    return [(entry["seat"], entry["move"]["type"]) for entry in _log(app, game_id) if entry.get("timeout")]


def _status(client, game_id: str) -> str:
    return client.get(f"/api/v1/games/{game_id}").get_json()["status"]


def test_games_land_on_every_master_and_the_workers_play_them_to_the_end(on_cluster, cluster, cluster_workers,
                                                                         redis_url):
    client = on_cluster.test_client()
    cluster_workers(2)
    owners: Counter = Counter()
    games = []
    while min(owners[n] for n in range(3)) < 2:
        assert len(games) < 60, f"60 games and still a master without two: {owners}"
        game_id = new_game(client, seats=3, bots=BOTS)["game"]["id"]
        games.append(game_id)
        owners[cluster.owner(game_key(game_id, "game"))] += 1
    games.append(new_game(client, game="princes-of-florence", seats=3, bots=BOTS)["game"]["id"])
    wait_for(lambda: all(_status(client, game_id) == "finished" for game_id in games), 240)
    for game_id in games:
        moves = _log(on_cluster, game_id)
        assert moves and all(entry.get("bot") for entry in moves)
        assert_replays(on_cluster, game_id)
        home = cluster.owner(game_key(game_id, "game"))
        for number in range(3):  # all of a game's keys on its master, none elsewhere
            keys = cluster.node(number).keys(game_key(game_id, "*"))
            assert (len(keys) >= 3) if number == home else keys == [], (game_id, number, keys)
    queues = redis.Redis.from_url(redis_url, decode_responses=True)
    assert not queues.keys("pz:*"), "no game data on the queue Redis"
    assert queues.keys("rq:*"), "RQ ran on the queue Redis"


def test_deadlines_are_enforced_by_the_worker_from_the_wake_index_in_the_cluster(on_cluster, cluster,
                                                                                 cluster_workers):
    client = on_cluster.test_client()
    store = _store(on_cluster)
    games = []
    while len({cluster.owner(game_key(game_id, "game")) for game_id in games}) < 3:
        assert len(games) < 30, "30 games and still a master without one"
        games.append(new_game(client, seats=3, deadlines={"pick": 2})["game"]["id"])
    for game_id in games:
        assert store.wake_at(game_id) is not None, "the commit indexed the deadline beside the game"
    assert {cluster.owner(key) for key in WAKE_KEYS} == {0, 1, 2}, "the wake index's shards spread over the masters"
    cluster_workers(2)
    wait_for(lambda: all(len(_timeouts(on_cluster, game_id)) == 3 for game_id in games), 60)
    time.sleep(3)  # a second job or poll would have doubled a move by now
    for game_id in games:
        assert sorted(_timeouts(on_cluster, game_id)) == [(0, "pick"), (1, "pick"), (2, "pick")]
        feed = client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]
        assert sorted(e["event"]["seat"] for e in feed if e["event"]["type"] == "timeout") == [0, 1, 2]


def test_games_and_the_wake_index_survive_a_restart_of_the_whole_cluster(on_cluster, cluster, cluster_workers,
                                                                         redis_url):
    client = on_cluster.test_client()
    game_id = new_game(client, seats=3, deadlines={"pick": 3})["game"]["id"]
    cluster.stop()
    for number in range(3):
        cluster.start_node(number)
    cluster.wait_ok()
    cluster_workers(1)
    wait_for(lambda: len(_timeouts(on_cluster, game_id)) == 3, 60)
    assert_replays(on_cluster, game_id)


def _next_message(listener, seconds: float = 5) -> dict:
    """The next published message (a subscribe confirmation reads as None: skip it)."""
    limit = time.monotonic() + seconds
    while time.monotonic() < limit:
        message = listener.get_message(timeout=0.5)
        if message is not None:
            return message
    raise AssertionError(f"nothing published within {seconds} s")


def test_long_poll_is_woken_by_a_commit_published_in_the_cluster(on_cluster, cluster):
    client = on_cluster.test_client()
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    store = _store(on_cluster)
    home = cluster.owner(game_key(game_id, "game"))
    elsewhere = store.redis.get_node("127.0.0.1", cluster.ports[(home + 1) % 3])
    listeners = [store.redis.pubsub(ignore_subscribe_messages=True),  # at the game's master, by its hash tag
                 store.redis.pubsub(node=elsewhere, ignore_subscribe_messages=True)]  # at another master
    for listener in listeners:
        listener.subscribe(feed_channel(game_id))
    feed, page, waited = long_poll_across_a_move(on_cluster, client, game_id, token)
    assert page["events"] and page["events"][0]["seq"] == feed["next_after"] + 1
    assert waited < 10, "the long-poll answers as soon as the feed grows"
    for listener in listeners:
        assert _next_message(listener)["channel"] == feed_channel(game_id), "the commit's PUBLISH reaches every master"
        listener.close()
    started = time.monotonic()
    quiet = client.get(f"/api/v1/games/{game_id}/events?after={page['next_after']}&wait=1").get_json()
    assert quiet["events"] == [] and time.monotonic() - started >= 0.9


def test_a_player_signs_in_gets_merged_mail_and_lists_his_games_across_masters(on_cluster, cluster, cluster_workers):
    client = on_cluster.test_client()
    ann = "ann@example.org"
    games = []
    for n in range(3):
        response = client.post("/api/v1/games", json={
            "game": "princes-of-florence", "seed": n,
            "seats": [{"name": "Ann", "email": ann}, {"name": f"B{n}", "bot": "random"},
                      {"name": f"C{n}", "bot": "greedy"}]})
        assert response.status_code == 201, response.get_json()
        games.append(response.get_json())
    cluster_workers(1, PALAZZO_MAIL_MERGE_SECONDS="2")
    wait_for(lambda: len([m for m in _mails(on_cluster, ann) if m["kind"] == "invitation"]) == 3)
    token = sign_in(on_cluster, client, ann)
    for created in games:
        started = client.post(f"/api/v1/games/{created['game']['id']}/start", headers=bearer(created["tokens"]["host"]))
        assert started.status_code == 200, started.get_json()
    wait_for(lambda: any(m["kind"] == "merged" for m in _mails(on_cluster, ann)))
    [merged] = [m for m in _mails(on_cluster, ann) if m["kind"] == "merged"]
    assert all(created["game"]["id"] in merged["text"] for created in games)
    turns = client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["turns"]
    assert sorted(t["game_id"] for t in turns) == sorted(created["game"]["id"] for created in games)
    assert {t["kind"] for t in turns} == {"keep_professions"} and {t["seat"] for t in turns} == {0}
    settings = client.put("/api/v1/me/settings", headers=bearer(token), json={"time_zone": "Europe/Rome"})
    assert settings.status_code == 200 and settings.get_json()["time_zone"] == "Europe/Rome"
    # a seat handed to a bot leaves Ann's games at once (the old seat's index entry goes)
    first = games[0]["game"]["id"]
    replaced = client.put(f"/api/v1/games/{first}/seats/0", headers=bearer(games[0]["tokens"]["host"]),
                          json={"name": "Robo", "bot": "random"})
    assert replaced.status_code == 200, replaced.get_json()
    turns = client.get("/api/v1/me/turns", headers=bearer(token)).get_json()["turns"]
    assert first not in {t["game_id"] for t in turns} and len(turns) == 2


def test_a_change_of_address_moves_seats_on_every_master_settings_and_tokens(on_cluster, cluster, cluster_workers):
    """The address's keys lie in other slots than the new one's and its games on every master: each is
    copied or committed on its own, and the old address keeps nothing."""
    import re
    from urllib.parse import unquote

    from service import tokens
    client, store = on_cluster.test_client(), _store(on_cluster)
    ann, new = "ann@example.org", "ann.new@example.org"
    made = [client.post("/api/v1/games", json={"game": "toy-count", "seed": n, "seats": [
        {"name": "Ann", "email": ann}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "random"}]}).get_json()
        for n in range(4)]
    cluster_workers(1)
    wait_for(lambda: len([m for m in _mails(on_cluster, ann) if m["kind"] == "invitation"]) == 4)
    token = sign_in(on_cluster, client, ann)
    assert client.put("/api/v1/me/settings", headers=bearer(token), json={"time_zone": "Asia/Tokyo"}).status_code == 200
    assert client.post("/api/v1/me/address", headers=bearer(token), json={"email": new}).status_code == 202

    def links() -> list[str]:
        return [unquote(found) for to in (new, ann) for m in _mails(on_cluster, to)
                for found in re.findall(r"/address\?t=(\S+)", m["text"])]
    wait_for(lambda: len(links()) == 2)
    assert [client.post("/api/v1/address/confirm", json={"link": link}).get_json()["status"] for link in links()] \
        == ["waiting", "changed"]
    listed = client.get("/api/v1/me/games", headers=bearer(token)).get_json()
    assert sorted(g["game_id"] for g in listed["games"]) == sorted(m["game"]["id"] for m in made)
    assert client.get("/api/v1/me/settings", headers=bearer(token)).get_json()["time_zone"] == "Asia/Tokyo"
    assert [t["kind"] for t in client.get("/api/v1/me/tokens", headers=bearer(token)).get_json()["tokens"]] == ["api"]
    assert not [key for key in store.redis.scan_iter(f"pz:email:{tokens.email_hash(ann)}:*")
                if not key.endswith((":held", ":held:flush"))], "the old address keeps nothing of the player's"


def _named_in(client, needle: str) -> list[str]:
    """The keys of every master whose name or value (any type, read whole) holds `needle`."""
    found = []
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        value = {"string": lambda: [client.get(key)], "list": lambda: client.lrange(key, 0, -1),
                 "set": lambda: list(client.smembers(key)), "hash": lambda: list(client.hgetall(key).items()),
                 "zset": lambda: client.zrange(key, 0, -1)}.get(kind, lambda: [])()
        if needle in key or needle in repr(value):
            found.append(key)
    return found


def test_deleting_a_players_data_reaches_every_master_and_the_queue(on_cluster, cluster, redis_url):
    """His games lie on every master, his keys in slots of their own, his invitations wait as RQ jobs on
    the plain queue Redis (no worker runs): after DELETE /me none of them names him, and the games stay."""
    import zlib

    from service import tokens
    client, store = on_cluster.test_client(), _store(on_cluster)
    ann = "ann@example.org"
    made = [client.post("/api/v1/games", json={"game": "toy-count", "seed": n, "seats": [
        {"name": "Ann", "email": ann}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "random"}]}).get_json()
        for n in range(6)]
    assert client.post(f"/api/v1/games/{made[0]['game']['id']}/start",
                       headers=bearer(made[0]["tokens"]["host"])).status_code == 200
    assert len({cluster.owner(game_key(m["game"]["id"], "game")) for m in made}) > 1
    owner = tokens.email_hash(ann)
    token = tokens.issue_player(store, owner, 3600, None)
    assert client.put("/api/v1/me/settings", headers=bearer(token), json={"time_zone": "Asia/Tokyo"}).status_code == 200
    queue = redis.Redis.from_url(redis_url)

    def queued_to_her() -> int:
        return sum(ann.encode() in zlib.decompress(queue.hget(key, "data"))
                   for key in queue.scan_iter("rq:job:*") if queue.hget(key, "data"))
    assert queued_to_her() >= 6 and _named_in(store.redis, owner) and _named_in(store.redis, ann)
    done = client.delete("/api/v1/me", headers=bearer(token), json={"confirm": True})
    assert done.status_code == 200, done.get_json()
    assert done.get_json()["left"] == 6 and done.get_json()["mail"] >= 6
    assert _named_in(store.redis, ann) == [] and queued_to_her() == 0
    assert all(key.startswith("pz:rate:") for key in _named_in(store.redis, owner))
    assert client.get("/api/v1/me/games", headers=bearer(token)).status_code == 401
    for m in made:
        seat = client.get(f"/api/v1/games/{m['game']['id']}").get_json()["seats"][0]
        assert seat["open"] and seat["left"]["name"] == "Ann"


def _mails(app, to: str) -> list[dict]:
    from service import mailbox
    return [m for m in mailbox.outbox(_store(app)) if m["to"] == to]


def test_rate_limits_are_kept_in_the_cluster(cluster, redis_url):
    app = make_app(cluster.url, JOBS="rq", QUEUE_URL=redis_url, RATE_LIMIT="3 per minute")
    client = app.test_client()
    created = new_game(client, start=False)
    game_id, token = created["game"]["id"], created["tokens"]["host"]
    answers = [client.get(f"/api/v1/games/{game_id}", headers=bearer(token)).status_code for _ in range(5)]
    assert 429 in answers and answers[0] == 200, answers
    assert any(cluster.node(n).keys("pz:rate:*") for n in range(3)), "the counters are in the cluster"
    assert not redis.Redis.from_url(redis_url).keys("pz:rate:*")


def test_a_cluster_without_a_queue_redis_or_named_as_a_plain_redis_is_refused(cluster, redis_url):
    with pytest.raises(ConfigError, match="PALAZZO_QUEUE_URL"):
        make_app(cluster.url, JOBS="rq")
    make_app(cluster.url, JOBS="inline")  # no queues needed: bots move inside requests
    node = f"redis://127.0.0.1:{cluster.ports[0]}/0"
    with pytest.raises(ClusterURLError, match=r"redis\+cluster://127\.0\.0\.1"):
        make_app(node, JOBS="inline")
    with pytest.raises(ClusterURLError, match="plain Redis"):
        make_app(redis_url, JOBS="rq", QUEUE_URL=node)
    env = {"REDIS_URL": cluster.url, "PALAZZO_SECRET": SECRET, "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    worker = subprocess.run([sys.executable, "-c", WORKER], env=env, cwd=REPO, capture_output=True, text=True,
                            timeout=60)
    assert worker.returncode == 2 and "PALAZZO_QUEUE_URL" in worker.stderr, worker.stderr


def test_the_queues_default_to_what_a_cluster_needs():
    from service.config import Config, queue_url
    from service.connection import cluster_nodes
    cluster = Config(redis_url="redis+cluster://:pw@10.0.0.1,10.0.0.2:7001/0")
    assert cluster_nodes(cluster.redis_url) == [("10.0.0.1", 6379), ("10.0.0.2", 7001)]
    assert queue_url(Config(redis_url="redis://h:1/2")) == "redis://h:1/2"
    assert queue_url(cluster.but(queue_url="redis://q:1/0")) == "redis://q:1/0"
    for config in (cluster, cluster.but(queue_url="redis+cluster://q:1")):
        with pytest.raises(ConfigError, match="PALAZZO_QUEUE_URL"):
            queue_url(config)
    with pytest.raises(ClusterURLError, match="database 0"):
        cluster_nodes("redis+cluster://h:1/3")
