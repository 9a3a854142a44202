"""`palazzo backup` and `palazzo restore` between two real redis-servers: a game backed up mid-way plays
on in the fresh server, its tokens still act for their seats and its deadline still fires; a store that
holds Palazzo's keys, or a file cut short or not a backup, is refused with status 2 and nothing written."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
import redis

from service import games
from service.backup import keys
from service.cli import main
from service.localredis import LocalRedis
from tests.cluster import LocalCluster
from tests.fixtures.make_fixtures import dump
from tests.conftest import bearer, make_app, new_game, seat_tokens


@pytest.fixture
def fresh_url(tmp_path):
    with LocalRedis(tmp_path / "fresh", extra=["--appendonly", "no", "--save", ""]) as server:
        yield server.url


def palazzo(capsys, monkeypatch, url: str, *args: str) -> tuple[int, str, str]:
    monkeypatch.setenv("REDIS_URL", url)
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def pick(client, game_id: str, token: str, value: int) -> tuple[int, str | None]:
    """The answer's status and its problem code, if any."""
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    answer = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                         json={"move": {"type": "pick", "value": value}, "version": version})
    return answer.status_code, answer.get_json().get("code")


def everything(url: str) -> dict[str, tuple[str, object, bool]]:
    """Each of Palazzo's keys: its type, its value and whether it has a time to live."""
    client = redis.Redis.from_url(url, decode_responses=True)
    assert set(dump(client)) == set(keys(client))
    return {key: (kept["type"], kept["value"], kept["ttl"] is not None) for key, kept in dump(client).items()}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with LocalCluster(tmp_path_factory.mktemp("cluster")) as server:
        server.wait_ok()
        yield server


@pytest.fixture
def backed_up(redis_url, moving_clock, tmp_path, capsys, monkeypatch):
    """A game whose seat 1 has picked, with an hour's deadline on the others, and its backup."""
    client = make_app(redis_url).test_client()
    created = new_game(client, seats=3, deadlines={"bid": 3600})
    assert pick(client, created["game"]["id"], seat_tokens(created)[1], 2)[0] == 200
    path = tmp_path / "palazzo.backup"
    status, out, err = palazzo(capsys, monkeypatch, redis_url, "backup", str(path))
    assert status == 0, err
    header = json.loads(path.read_text().splitlines()[0])
    assert out == f"{header['keys']} keys written to {path}\n" and header["keys"] == len(everything(redis_url))
    return created, path


def test_a_restored_game_plays_on_and_its_deadline_fires(backed_up, redis_url, fresh_url, moving_clock,
                                                         capsys, monkeypatch):
    from workers import context
    from workers import deadlines as wake
    created, path = backed_up
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    status, out, err = palazzo(capsys, monkeypatch, fresh_url, "restore", str(path))
    assert status == 0, err
    assert everything(fresh_url) == everything(redis_url)

    app = make_app(fresh_url)
    client, store = app.test_client(), app.extensions["palazzo.store"]
    assert pick(client, game_id, tokens[1], 3) == (422, "not_legal"), "seat 1 has picked already, in the copy too"
    assert pick(client, game_id, tokens[2], 1)[0] == 200
    table = games.load(store, game_id)
    assert [decision["seat"] for decision in table.pending] == [0]

    moving_clock.advance(timedelta(hours=2))
    assert [game for game, _ in store.due(moving_clock.now().timestamp(), 10)] == [game_id]
    monkeypatch.setattr(context, "store", lambda: store)
    monkeypatch.setattr(context, "config", lambda: app.extensions["palazzo.config"])
    assert wake.wake(game_id) == 1, "seat 0's pick timed out"
    assert games.load(store, game_id).state["phase"] != "pick"


def test_restore_refuses_a_store_that_holds_palazzo_keys(backed_up, redis_url, fresh_url, capsys, monkeypatch):
    _, path = backed_up
    other = make_app(fresh_url).test_client()
    new_game(other, seats=3)
    before = everything(fresh_url)
    status, out, err = palazzo(capsys, monkeypatch, fresh_url, "restore", str(path))
    assert (status, out) == (2, "")
    assert f"already holds {len(before)} of Palazzo's keys" in err
    assert everything(fresh_url) == before

    status, _, err = palazzo(capsys, monkeypatch, fresh_url, "restore", "--force", str(path))
    assert status == 0, err
    assert set(everything(redis_url)) <= set(everything(fresh_url))


@pytest.mark.parametrize("spoil", ["cut", "garbled", "not a backup", "empty"])
def test_a_spoilt_file_is_refused_and_nothing_written(backed_up, fresh_url, spoil, capsys, monkeypatch):
    _, path = backed_up
    lines = path.read_text().splitlines()
    spoilt = {"cut": lines[:-1], "garbled": lines[:-1] + [lines[-1][:len(lines[-1]) // 2]],
              "not a backup": ['{"hello": 1}', *lines[1:]], "empty": []}[spoil]
    path.write_text("".join(line + "\n" for line in spoilt))
    status, out, err = palazzo(capsys, monkeypatch, fresh_url, "restore", str(path))
    assert (status, out) == (2, "") and "nothing written" in err
    assert everything(fresh_url) == {}


def test_a_payload_redis_refuses_leaves_nothing_behind(backed_up, fresh_url, capsys, monkeypatch):
    _, path = backed_up
    lines = path.read_text().splitlines()
    last = json.loads(lines[-1])
    last["dump"] = "AAAA"  # base64, but no DUMP payload: Redis refuses it after the other keys went in
    path.write_text("\n".join([*lines[:-1], json.dumps(last)]) + "\n")
    status, _, err = palazzo(capsys, monkeypatch, fresh_url, "restore", str(path))
    assert status == 2 and "nothing written" in err
    assert everything(fresh_url) == {}


def test_a_backup_goes_through_a_redis_cluster_and_back(backed_up, redis_url, fresh_url, cluster, tmp_path,
                                                        capsys, monkeypatch):
    """Restored into a cluster, backed up from it, restored again: the same keys, and the game plays on there."""
    created, path = backed_up
    monkeypatch.setenv("PALAZZO_QUEUE_URL", redis_url)  # RQ needs a plain Redis beside a cluster
    status, _, err = palazzo(capsys, monkeypatch, cluster.url, "restore", str(path))
    assert status == 0, err
    again = tmp_path / "from-the-cluster.backup"
    status, _, err = palazzo(capsys, monkeypatch, cluster.url, "backup", str(again))
    assert status == 0, err
    monkeypatch.delenv("PALAZZO_QUEUE_URL")
    assert palazzo(capsys, monkeypatch, fresh_url, "restore", str(again))[0] == 0
    assert everything(fresh_url) == everything(redis_url)
    on_cluster = make_app(cluster.url, JOBS="rq", QUEUE_URL=redis_url).test_client()
    assert pick(on_cluster, created["game"]["id"], seat_tokens(created)[2], 1)[0] == 200
