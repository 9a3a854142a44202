"""`palazzo upgrade` on games that main really stored before games kept versions (tests/fixtures/stored/),
in a real redis-server: the dry run finds nothing to change, the real run migrates each game once, and
every game then plays to its end; a game made to differ is the one the dry run lists."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import redis

from engine.core import FIRST_RULES
from service import games, playing, upgrade
from service.cli import main
from service.store import FORMAT, game_key, loads
from tests.fixtures.make_fixtures import STAGES, Maker, restore, stored

FOLDER = Path(__file__).parent / "fixtures" / "stored"
FORMAT_1 = FOLDER / "format-1-9dd50d5"


@pytest.fixture
def loaded(redis_url, monkeypatch, moving_clock) -> tuple[Maker, list[dict]]:
    """Every format-1 fixture in the store, and an app over it with the secret they were made with, on a
    clock set to a minute after they were made: whenever the test runs, the pause has not run out, and
    no deadline has passed."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    records = stored(FORMAT_1)
    for record in records:
        restore(redis.Redis.from_url(redis_url, decode_responses=True), record["keys"])
    made = max(loads(record["keys"][game_key(record["game"], "game")]["value"]["meta"])["created_ms"]
               for record in records) / 1000
    moving_clock.set(made + 60 - time.time())
    return Maker(redis_url, clock_file=str(moving_clock.path)), records


def palazzo(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["upgrade", *args])
    out, err = capsys.readouterr()
    return status, out, err


def hash_of(maker: Maker, game_id: str) -> dict[str, str]:
    return maker.store.redis.hgetall(game_key(game_id, "game"))


def play_to_the_end(maker: Maker, record: dict) -> None:
    """As its players would: the host starts or resumes it if it waits, then each seat's default move."""
    created = {"game": {"id": record["game"]}, "tokens": record["tokens"]}
    status = games.load(maker.store, record["game"]).status
    if status in ("open", "paused"):
        maker.host(created, "start" if status == "open" else "resume")
    maker.play_until(created, lambda table: table["status"] == "finished")


def test_every_stage_is_a_fixture_of_format_1():
    assert [record["stage"] for record in stored(FORMAT_1)] == list(STAGES)
    for record in stored(FORMAT_1):
        game = record["keys"][game_key(record["game"], "game")]["value"]
        assert "format" not in game and "rules_version" not in loads(game["meta"])


def test_old_games_upgrade_once_and_play_to_the_end(loaded, capsys):
    maker, records = loaded
    before = {record["game"]: hash_of(maker, record["game"]) for record in records}
    assert [record["game"] for record in records if before[record["game"]]["status"] == "paused"] == \
        [record["game"] for record in records if record["stage"] == "paused"]

    status, out, _ = palazzo(capsys, "--dry-run")
    assert (status, out) == (0, f"0 of {len(records)} games would replay differently under this code\n")
    assert {game_id: hash_of(maker, game_id) for game_id in before} == before  # the dry run wrote nothing

    status, out, _ = palazzo(capsys)
    assert status == 0
    assert sorted(out.splitlines()[:-1]) == sorted(f"{game_id}: format 1 -> {FORMAT}" for game_id in before)
    for game_id, old in before.items():
        now = hash_of(maker, game_id)
        assert now["format"] == str(FORMAT) and int(now["rev"] or now["version"]) == int(old.get("rev") or old["version"]) + 1
        assert now["version"] == old["version"]  # a private change: nobody's move goes stale for it
        assert loads(now["meta"])["rules_version"] == loads(now["state"])["rules"] == FIRST_RULES

    status, out, _ = palazzo(capsys)
    assert (status, out) == (0, f"0 of {len(records)} games migrated to format {FORMAT}; the others were there already\n")
    assert palazzo(capsys, "--dry-run")[:2] == (0, f"0 of {len(records)} games would replay differently under this code\n")

    paused = next(record["game"] for record in records if record["stage"] == "paused")
    assert games.load(maker.store, paused).status == "paused"  # the clock stands where the fixtures were made
    for record in records:
        play_to_the_end(maker, record)
        answer = maker.client.get(f"/api/v1/games/{record['game']}").get_json()
        assert answer["status"] == "finished", record["stage"]
        assert games.replay(maker.store, record["game"]) == games.load(maker.store, record["game"]).state
        assert loads(hash_of(maker, record["game"])["state"])["rules"] == FIRST_RULES


def test_the_dry_run_lists_a_game_made_to_differ_and_nothing_else(loaded, capsys):
    maker, records = loaded
    tampered = next(record["game"] for record in records if record["stage"] == "mid-auction")
    state = loads(hash_of(maker, tampered)["state"])
    state["players"][1]["private"]["cash"] += 100
    maker.store.redis.hset(game_key(tampered, "game"), "state", json.dumps(state))

    status, out, _ = palazzo(capsys, "--dry-run")

    lines = out.splitlines()
    assert status == 0 and lines[-1] == f"1 of {len(records)} games would replay differently under this code"
    assert lines[:-1] == [(f"{tampered} (princes-of-florence, running, format 1): its "
                           f"{len(maker.store.log(tampered))} moves replay as recorded, but the state differs at "
                           "players[1].private.cash")]


def test_a_move_recorded_otherwise_is_where_the_game_differs(loaded, capsys):
    """A feed event that the replay does not make names the first move that differs."""
    maker, records = loaded
    game_id = next(record["game"] for record in records if record["stage"] == "goofspiel-mid-round")
    feed = maker.store.redis.lrange(game_key(game_id, "events"), 0, -1)
    log = maker.store.log(game_id)
    version = log[2]["version"]
    index = next(number for number, raw in enumerate(feed) if loads(raw)["version"] == version)
    entry = loads(feed[index])
    entry["event"] = {**entry["event"], "forged": True}
    maker.store.redis.lset(game_key(game_id, "events"), index, json.dumps(entry))

    found = upgrade.check(maker.store, game_id)

    assert found.differs_at == 2 and found.move == log[2] and found.keys == []
    assert palazzo(capsys, "--dry-run", "--game", game_id)[1].startswith(
        f"{game_id} (goofspiel, running, format 1): differs from move 3 (seat {log[2]['seat']}: ")


def test_a_writer_that_read_the_game_before_the_migration_plays_on_the_migrated_game(loaded):
    maker, records = loaded
    game_id = next(record["game"] for record in records if record["stage"] == "mid-auction")
    before = games.load(maker.store, game_id)
    assert upgrade.migrate(maker.store, game_id) == (1, FORMAT)
    seat = before.pending[0]["seat"]
    move = before.game.default_move(before.state, seat)

    assert playing.play(maker.store, before, seat, move).outcome.outcome == "stale"
    answer, _ = playing.submit(maker.store, before, seat, move, before.version, lambda table, events: {"ok": 1})
    assert answer == {"ok": 1}
    assert games.load(maker.store, game_id).state["rules"] == FIRST_RULES


def test_a_migration_that_loses_to_a_move_is_done_again_on_the_game_after_it(loaded, monkeypatch):
    maker, records = loaded
    game_id = next(record["game"] for record in records if record["stage"] == "mid-auction")
    moved = []
    wake_at = maker.store.wake_at

    def move_meanwhile(wanted: str):
        if not moved:  # between the migration's read and its commit, a player moves
            table = games.load(maker.store, wanted)
            seat = table.pending[0]["seat"]
            moved.append(playing.play(maker.store, table, seat, table.game.default_move(table.state, seat)))
        return wake_at(wanted)

    monkeypatch.setattr(maker.store, "wake_at", move_meanwhile)
    assert upgrade.migrate(maker.store, game_id) == (1, FORMAT)

    assert moved[0].outcome.outcome == "ok"
    table = games.load(maker.store, game_id)
    assert table.version == moved[0].table.version and table.state["rules"] == FIRST_RULES
    assert games.replay(maker.store, game_id) == table.state


def test_a_new_game_is_stored_at_the_current_format_and_left_alone(loaded, capsys):
    maker, _ = loaded
    created = maker.create("princes-of-florence", 3)
    game_id = created["game"]["id"]
    stored_hash = hash_of(maker, game_id)
    assert stored_hash["format"] == str(FORMAT)
    assert loads(stored_hash["meta"])["rules_version"] == loads(stored_hash["state"])["rules"] == 1

    status, out, _ = palazzo(capsys, "--game", game_id)
    assert (status, out.splitlines()[0]) == (0, f"0 of 1 games migrated to format {FORMAT}; the others were there already")
    assert hash_of(maker, game_id) == stored_hash


def test_bad_input_exits_2_and_changes_nothing(loaded, capsys, monkeypatch):
    maker, records = loaded
    before = {record["game"]: hash_of(maker, record["game"]) for record in records}

    status, out, err = palazzo(capsys, "--game", "nosuchgame")
    assert (status, out, err) == (2, "", "palazzo upgrade: no stored game nosuchgame\n")

    newer = records[0]["game"]
    maker.store.redis.hset(game_key(newer, "game"), "format", FORMAT + 1)
    status, out, err = palazzo(capsys, "--game", newer)
    assert status == 2 and f"{newer}: left as it is: format {FORMAT + 1}" in err
    assert hash_of(maker, newer) == {**before[newer], "format": str(FORMAT + 1)}

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    status, _, err = palazzo(capsys, "--dry-run")
    assert status == 2 and err.startswith("palazzo upgrade: cannot read the store")
    assert {game_id: hash_of(maker, game_id) for game_id in before if game_id != newer} == \
        {game_id: old for game_id, old in before.items() if game_id != newer}
