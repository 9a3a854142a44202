"""The `palazzo simulate` and `palazzo replay` commands, in-process and once through the console script."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import get_game
from engine.bots.play import play_game
from service.cli import main

GAME = get_game("princes-of-florence")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A 3-seat game saved by simulate: the record and the path of its file."""
    path = tmp_path_factory.mktemp("replays") / "game.json"
    assert main(["simulate", "--players", "3", "--games", "2", "--bots", "greedy,random,greedy",
                 "--seed", "11", "--save-replay", str(path)]) == 0
    return json.loads(path.read_text()), path


def test_simulate_prints_a_summary(capsys):
    assert main(["simulate", "--players", "4", "--games", "3", "--bots", "greedy,random,random,random",
                 "--seed", "1", "--rotate"]) == 0
    out, err = capsys.readouterr()
    assert "3/3 games" in err
    for line in ("greedy", "random", "mean score", "decisions per game:", "games per second:"):
        assert line in out


def test_simulate_refuses_bad_bots(capsys):
    assert main(["simulate", "--players", "3", "--bots", "greedy,nobody,random"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(["simulate", "--players", "5", "--bots", "greedy,random"]) == 2
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "--players", "6"])
    assert exit_.value.code == 2


def test_a_saved_game_replays_to_the_same_result(saved, capsys):
    record, path = saved
    assert record["seed"] == 12 and record["bots"] == ["greedy", "random", "greedy"]
    state, moves = play_game(GAME, record["options"], record["setup"], record["bots"], record["seed"])
    assert moves == record["moves"]
    assert main(["replay", str(path)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == {"state": state, "result": GAME.result(state)}


def _replay_error(tmp_path, capsys, text: str) -> str:
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


def test_replay_refuses_a_file_that_is_not_json(tmp_path, capsys):
    assert "not JSON" in _replay_error(tmp_path, capsys, "{moves: ")
    assert main(["replay", str(tmp_path / "absent.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_replay_names_keys_that_are_missing(tmp_path, capsys):
    err = _replay_error(tmp_path, capsys, json.dumps({"game": "princes-of-florence", "moves": []}))
    assert "missing keys: options, setup" in err


def test_replay_names_a_bad_setup(saved, tmp_path, capsys):
    record = {**saved[0], "setup": {"seat_order": [0, 1, 2]}}
    assert "bad_setup" in _replay_error(tmp_path, capsys, json.dumps(record))


def test_replay_names_the_illegal_move(saved, tmp_path, capsys):
    record = saved[0]
    k = 30
    moves = [*record["moves"][:k], {"seat": record["moves"][k]["seat"], "move": {"type": "publish"}},
             *record["moves"][k + 1:]]
    err = _replay_error(tmp_path, capsys, json.dumps({**record, "moves": moves}))
    assert f"move {k} " in err and "bad_move" in err
    moves[k] = {"seat": (record["moves"][k]["seat"] + 1) % 3, "move": record["moves"][k]["move"]}
    err = _replay_error(tmp_path, capsys, json.dumps({**record, "moves": moves}))
    assert f"move {k} " in err and "not_your_decision" in err


def test_the_console_script_replays(saved):
    """The installed `palazzo` script (beside this Python, as `make test` installs it) works end to end."""
    record, path = saved
    script = Path(sys.executable).parent / "palazzo"
    done = subprocess.run([str(script), "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert result is not None and len(result["scores"]) == 3


def test_mail_list_into_a_reader_that_stops_early_ends_quietly(redis_url):
    """`palazzo mail list | head -1` raised BrokenPipeError once head had its line."""
    import redis

    from service.mail import outbox, render
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    mail = render.sign_in("ann@example.org", "http://127.0.0.1:8000/sign-in?link=x", "x", "127.0.0.1")
    for _ in range(200):  # far more than a pipe holds, so the writer is still writing when head exits
        outbox.push(client, mail)
    done = subprocess.run(["bash", "-o", "pipefail", "-c", f"{sys.executable} -m service.cli mail list | head -1"],
                          env={**os.environ, "REDIS_URL": redis_url}, capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.stdout == "To: ann@example.org\n"
    assert done.stderr == "" and done.returncode == 0, done.stderr


def test_simulate_plays_any_served_game(capsys):
    import tests.toy_game  # noqa: F401  (registers the toy game)
    assert main(["simulate", "--game", "toy-count", "--players", "3", "--games", "2", "--bots", "random",
                 "--option", "turns=3"]) == 0
    assert "2 games, seats: random, random, random" in capsys.readouterr().out
    assert main(["simulate", "--game", "toy-count", "--option", "turns=99"]) == 2
