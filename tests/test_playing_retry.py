"""The one loop of every move (`playing.until_committed`): it re-checks the game as it now stands after
each commit lost to another writer, stops when the check says so, and gives up after ATTEMPTS."""
from __future__ import annotations

import pytest

from service import games, playing
from service.problems import Problem
from service.store import Committed
from tests.conftest import new_game


@pytest.fixture
def table(app, client):
    store = app.extensions["palazzo.store"]
    return store, games.load(store, new_game(client)["game"]["id"])


def test_a_lost_commit_is_checked_again_on_the_game_as_it_now_stands(table):
    store, loaded = table
    seen, outcomes = [], iter(["stale", "stale", "ok"])

    def act(table):
        seen.append(table)
        return Committed(next(outcomes), table.version), "played"

    assert playing.until_committed(store, loaded, lambda table: None, act) == "played"
    assert seen[0] is loaded and all(t is not loaded and t.id == loaded.id for t in seen[1:]), "reloaded each time"
    assert playing.until_committed(store, loaded.id, lambda table: "no need", act) == "no need", "the check stops it"


def test_a_refusal_raises_unless_the_caller_tries_again_and_every_try_lost_is_busy(table):
    store, loaded = table
    tries = []

    def refused(table):
        tries.append(table)
        return Committed("status", table.version, "paused"), "played"

    with pytest.raises(Problem) as raised:
        playing.until_committed(store, loaded, lambda table: None, refused)
    assert raised.value.code == "game_paused" and len(tries) == 1
    assert playing.until_committed(store, loaded, lambda table: None, refused, refuse=False, busy=None) is None
    assert len(tries) == 1 + games.ATTEMPTS
    with pytest.raises(Problem) as raised:
        playing.until_committed(store, loaded, lambda table: None, lambda table: (Committed("stale", 0), None))
    assert raised.value.code == "busy"
