"""`palazzo import RECORD.json`: a finished game's record, exported from one store and imported into a
fresh redis-server, is a finished game there whose record is the original's; a record that does not
replay, is of an unknown game or rules version, of an unfinished game, or malformed, is refused with
status 2 and nothing stored."""
from __future__ import annotations

import copy
import json

import pytest
import redis
from hypothesis import HealthCheck, given, settings, strategies as st

from service import games, importing, playing
from service.cli import main
from service.localredis import LocalRedis
from service.store import Store
from tests.conftest import bearer, make_app, new_game


@pytest.fixture
def fresh_url(tmp_path):
    with LocalRedis(tmp_path / "fresh", extra=["--appendonly", "no", "--save", ""]) as server:
        yield server.url


def palazzo_import(capsys, monkeypatch, url: str, path) -> tuple[int, str, str]:
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("PALAZZO_JOBS", "inline")
    status = main(["import", str(path)])
    out, err = capsys.readouterr()
    return status, out, err


def finished_record(client, game: str, seats: int = 3, seed: int = 7) -> dict:
    created = new_game(client, game=game, seats=seats, bots={n: "greedy" for n in range(seats)}, seed=seed)
    game_id = created["game"]["id"]
    assert client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(created["tokens"]["host"]),
                       json={"to": None, "text": "well played, all"}).status_code == 201
    record = client.get(f"/api/v1/games/{game_id}/record").get_json()
    assert record["status"] == "finished" and record["moves"]
    return record


@pytest.mark.parametrize("game", ["princes-of-florence", "goofspiel"])
def test_an_imported_games_record_is_the_original(client, fresh_url, tmp_path, capsys, monkeypatch, game):
    record = finished_record(client, game)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    status, out, err = palazzo_import(capsys, monkeypatch, fresh_url, path)
    assert status == 0, err
    game_id = out.split()[3].rstrip(":")
    fresh = make_app(fresh_url).test_client()
    imported = fresh.get(f"/api/v1/games/{game_id}/record").get_json()
    assert [m.pop("seq") for m in imported["messages"]] == [1]
    assert [m.pop("seq") for m in record["messages"]] == [1]
    assert imported == record
    store = Store(redis.Redis.from_url(fresh_url, decode_responses=True))
    assert games.replay(store, game_id) == games.load(store, game_id).state
    shown = fresh.get(f"/api/v1/games/{game_id}").get_json()
    assert shown["status"] == "finished" and shown["result"] == record["result"]
    assert [seat["name"] for seat in shown["seats"]] == ["P0", "P1", "P2"]
    archive = fresh.get(f"/games/{game_id}/archive")
    assert archive.status_code == 200
    assert f"step {len(record['moves'])} of {len(record['moves'])}" in archive.get_data(as_text=True)


def spoiled(record: dict) -> dict[str, dict | list | str]:
    """Records that must not come in, each named by what is wrong with it."""
    def but(**changes) -> dict:
        return {**copy.deepcopy(record), **changes}
    moves = copy.deepcopy(record["moves"])
    moves[5]["move"] = {"type": "no_such_move"}
    swapped = copy.deepcopy(record["moves"])
    swapped[3]["seat"] = (swapped[3]["seat"] + 1) % 3
    return {
        "illegal move": but(moves=moves), "wrong seat": but(moves=swapped), "cut short": but(moves=record["moves"][:-3]),
        "unknown game": but(game="chess"), "unknown rules": but(rules=99), "rules as text": but(rules="1"),
        "running": but(status="running", setup=None, moves=None, result=None), "other format": but(format="pgn"),
        "another result": but(result={**record["result"], "winners": []}), "no seats": but(seats=[]),
        "a name with a newline": but(seats=[{"seat": 0, "name": "A\nB"}, *record["seats"][1:]]),
        "moves not a list": but(moves="e4"), "no setup key": {k: v for k, v in record.items() if k != "setup"},
        "a list": [record], "not JSON": "{\"format\": ", "a bad message": but(messages=[{"text": 3}]),
        "a seat as true": but(moves=[{**record["moves"][0], "seat": True}, *record["moves"][1:]]),
    }


def test_bad_records_are_refused_and_nothing_is_stored(client, fresh_url, tmp_path, capsys, monkeypatch):
    record = finished_record(client, "princes-of-florence")
    stored = redis.Redis.from_url(fresh_url)
    for what, bad in spoiled(record).items():
        path = tmp_path / "bad.json"
        path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
        status, out, err = palazzo_import(capsys, monkeypatch, fresh_url, path)
        assert status == 2 and not out, what
        assert err.startswith("palazzo import: ") and "nothing stored" in err, what
        assert stored.dbsize() == 0, what


def test_standing_orders_come_in_as_private_moves(app, client):
    """A private move (standing orders) joins the log unnumbered, as `playing.play` keeps it, and adds
    nothing to the feed: the imported game's log is the original's, move for move and version for version."""
    store = app.extensions["palazzo.store"]
    game_id = new_game(client, game="toy-count", seats=3)["game"]["id"]
    table = games.load(store, game_id)
    orders = {"type": "set_orders", "limits": {"x": 1}, "step_out_otherwise": True}
    assert playing.play(store, table, 1, orders).outcome.outcome == "ok"
    table = games.load(store, game_id)
    while table.status == games.RUNNING:
        seat = table.pending[0]["seat"]
        playing.play(store, table, seat, playing.bot_move(table, seat, "random"))
        table = games.load(store, game_id)
    record = client.get(f"/api/v1/games/{game_id}/record").get_json()
    assert orders in [entry["move"] for entry in record["moves"]]
    copied = importing.import_record(store, copy.deepcopy(record), ["toy-count"])
    assert client.get(f"/api/v1/games/{copied}/record").get_json() == record

    def kept(log):
        return [(entry.get("version"), entry["seat"], entry["move"]) for entry in log]
    assert kept(store.log(copied)) == kept(store.log(game_id))
    moved = [(e["version"], e["event"]) for e in store.events(game_id, 0, 1000)[0] if e["by"] is not None]
    assert [(e["version"], e["event"]) for e in store.events(copied, 0, 1000)[0] if e["by"] is not None] == moved


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["princes-of-florence", "goofspiel"]),
       bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=3, max_size=3))
def test_records_round_trip_through_an_import(app, client, seed, game, bots):
    created = new_game(client, game=game, seats=3, bots=dict(enumerate(bots)), seed=seed)
    record = client.get(f"/api/v1/games/{created['game']['id']}/record").get_json()
    store = app.extensions["palazzo.store"]
    copied = importing.import_record(store, copy.deepcopy(record), [game])
    assert client.get(f"/api/v1/games/{copied}/record").get_json() == record
    assert games.replay(store, copied) == games.load(store, created["game"]["id"]).state
