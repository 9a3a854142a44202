"""A game keeps the rules version it started with: started under version 1 of the toy game, it ends by
version 1's numbers under code that has a version 2 with another number, while a new game gets 2; and a
number changed without a new version is what `palazzo upgrade --dry-run` finds."""
from __future__ import annotations

import pytest

from engine.core import IllegalMove, get_game, rules_of
from service import games
from service.cli import main
from service.commands import replay
from tests import toy_game
from tests.conftest import bearer, new_game, seat_tokens

BONUS = 5  # what an add scores beyond its amount in the test's version 2 of the toy game


def play(client, created: dict, moves: int | None = None) -> dict:
    """Each seat to decide plays its first legal move (as a deadline would), `moves` times or to the end."""
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    while moves is None or moves > 0:
        game = client.get(f"/api/v1/games/{game_id}").get_json()
        if game["status"] == "finished":
            return game
        seat = game["pending"][0]["seat"]
        legal = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat])).get_json()
        answer = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                             json={"move": legal["moves"][0]["move"], "version": legal["version"]})
        assert answer.status_code == 200, answer.get_json()
        moves = None if moves is None else moves - 1
    return client.get(f"/api/v1/games/{game_id}").get_json()


def totals(app, game_id: str) -> list[int]:
    table = games.load(app.extensions["palazzo.store"], game_id)
    return [player["score"] for player in table.state["players"]]


@pytest.fixture
def version_2(monkeypatch):
    """The toy game as a later release has it: version 2, whose adds score BONUS more."""
    monkeypatch.setattr(toy_game.ToyCount, "rules_version", 2)
    monkeypatch.setitem(toy_game.ADD_BONUS, 2, BONUS)


def test_a_game_started_under_version_1_ends_by_it_and_a_new_game_gets_2(app, client, monkeypatch, capsys, redis_url):
    old = new_game(client, seats=3)
    play(client, old, moves=4)  # the three picks and one add, under version 1
    old_id = old["game"]["id"]
    assert games.load(app.extensions["palazzo.store"], old_id).meta["rules_version"] == 1

    monkeypatch.setattr(toy_game.ToyCount, "rules_version", 2)
    monkeypatch.setitem(toy_game.ADD_BONUS, 2, BONUS)
    assert play(client, old)["status"] == "finished"
    new = new_game(client, seats=3)
    assert play(client, new)["status"] == "finished"

    store = app.extensions["palazzo.store"]
    assert [games.load(store, game["game"]["id"]).meta["rules_version"] for game in (old, new)] == [1, 2]
    assert totals(app, old_id) == [2, 2, 2]  # two adds of 1 each, as version 1 scores them
    assert totals(app, new["game"]["id"]) == [2 + 2 * BONUS] * 3
    assert games.replay(store, old_id) == games.load(store, old_id).state

    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["upgrade", "--dry-run"]) == 0
    assert capsys.readouterr().out == "0 of 2 games would replay differently under this code\n"


def test_a_number_changed_without_a_new_version_is_what_the_dry_run_lists(app, client, monkeypatch, capsys, redis_url):
    changed = play(client, new_game(client, seats=3))
    untouched = play(client, new_game(client, game="princes-of-florence", seats=3,
                                      bots={0: "greedy", 1: "greedy", 2: "greedy"}), moves=0)
    assert untouched["status"] == "finished"

    monkeypatch.setitem(toy_game.ADD_BONUS, 1, BONUS)  # version 1 itself changed: what must not happen
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["upgrade", "--dry-run"]) == 0

    lines = capsys.readouterr().out.splitlines()
    moves = len(app.extensions["palazzo.store"].log(changed["id"]))
    assert lines[-1] == "1 of 2 games would replay differently under this code"
    assert len(lines) == 2 and lines[0].startswith(f"{changed['id']} (toy-count, finished, format 2): differs from "
                                                   f"move {moves} (seat ")  # the last: its game_over has the scores
    assert lines[0].endswith(" on players[0].score, players[1].score, players[2].score")


def test_a_version_the_game_does_not_have_is_refused(version_2):
    toy = get_game("toy-count")
    options = toy.normalize_options({})
    setup = toy.make_setup(options, 1)
    assert [rules_of(toy.new_state(options, setup, rules)) for rules in (None, 1, 2)] == [2, 1, 2]
    for rules in (0, 3, "1", True):
        with pytest.raises(IllegalMove) as refused:
            toy.new_state(options, setup, rules)
        assert refused.value.code == "unknown_rules"
    assert rules_of({"phase": "pick"}) == 1  # a state from before versions were kept


def test_a_record_replays_under_the_rules_it_names(version_2):
    """`palazzo replay` plays a record by its "rules" (as `palazzo simulate --save-replay` writes it),
    else by the current version."""
    toy = get_game("toy-count")
    options = toy.normalize_options({"turns": 1})
    setup = {"numbers": [0, 0, 0]}
    moves = [{"seat": seat, "move": {"type": "pick", "value": 1}} for seat in range(3)]
    moves += [{"seat": seat, "move": {"type": "add", "amount": 1}} for seat in range(3)]
    record = {"game": "toy-count", "options": options, "setup": setup, "moves": moves}

    assert replay.replay({**record, "rules": 1})[1]["scores"] == [2, 2, 2]
    assert replay.replay(record)[1]["scores"] == [2 + BONUS] * 3
    with pytest.raises(replay.BadReplay, match="unknown_rules"):
        replay.replay({**record, "rules": 3})
