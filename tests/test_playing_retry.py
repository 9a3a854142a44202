"""The one loop of every move and host action (`games.until_committed`): it re-checks the game as it now stands after
each commit lost to another writer, stops when the check says so, and gives up after ATTEMPTS."""
from __future__ import annotations

import pytest

from service import games
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

    assert games.until_committed(store, loaded, lambda table: None, act) == "played"
    assert seen[0] is loaded and all(t is not loaded and t.id == loaded.id for t in seen[1:]), "reloaded each time"
    assert games.until_committed(store, loaded.id, lambda table: "no need", act) == "no need", "the check stops it"


def test_a_refusal_raises_unless_the_caller_tries_again_and_every_try_lost_is_busy(table):
    store, loaded = table
    tries = []

    def refused(table):
        tries.append(table)
        return Committed("status", table.version, "paused"), "played"

    with pytest.raises(Problem) as raised:
        games.until_committed(store, loaded, lambda table: None, refused)
    assert raised.value.code == "game_paused" and len(tries) == 1
    assert games.until_committed(store, loaded, lambda table: None, refused, refuse=False, busy=None) is None
    assert len(tries) == 1 + games.ATTEMPTS
    with pytest.raises(Problem) as raised:
        games.until_committed(store, loaded, lambda table: None, lambda table: (Committed("stale", 0), None))
    assert raised.value.code == "busy"


def test_a_host_action_goes_through_the_same_loop_and_a_refusal_other_than_stale_stops_it(table):
    store, loaded = table
    seen = []

    def change(table):
        seen.append(table)
        if len(seen) < 3:
            raise games.refused(Committed("stale", table.version))
        return "changed"

    assert games.retrying(store, loaded, change) == "changed"
    assert seen[0] is loaded and all(t is not loaded for t in seen[1:]) and len(seen) == 3

    def paused(table):
        seen.append(table)
        raise games.refused(Committed("status", table.version, "paused"))

    with pytest.raises(Problem) as raised:
        games.retrying(store, loaded, paused)
    assert raised.value.code == "game_paused" and len(seen) == 4, "raised at once, not tried again"

    def always_stale(table):
        raise games.refused(Committed("stale", table.version))

    with pytest.raises(Problem) as raised:
        games.retrying(store, loaded, always_stale)
    assert raised.value.code == "busy"
