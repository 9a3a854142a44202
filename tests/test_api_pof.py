"""Whole Princes of Florence games over HTTP only, with redaction checked on every response."""
from __future__ import annotations

import random

import pytest

from tests.conftest import assert_replays, bearer, leaks, new_game, seat_tokens

pof = pytest.importorskip("engine.pof")
GAME = "princes-of-florence"


def _feed(client, game_id: str, headers: dict) -> list[dict]:
    """The whole event feed, read page by page with ?after= as a resuming client would."""
    events, after = [], 0
    while True:
        page = client.get(f"/api/v1/games/{game_id}/events?after={after}&limit=50", headers=headers).get_json()
        events += page["events"]
        after = page["next_after"]
        if not page["more"]:
            return events


def test_five_seats_play_a_whole_game_over_http(client, app):
    created = new_game(client, game=GAME, seats=5, options={"bidding": "step", "auction_pass": True})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    viewers = {seat: bearer(token) for seat, token in tokens.items()} | {None: {}}
    rng = random.Random(5)
    moves = 0
    while True:
        game = client.get(f"/api/v1/games/{game_id}").get_json()
        if game["status"] == "finished":
            break
        seat = game["pending"][0]["seat"]
        legal = client.get(f"/api/v1/games/{game_id}/moves", headers=viewers[seat]).get_json()
        assert legal["moves"], legal
        choice = rng.choice(legal["moves"])
        response = client.post(f"/api/v1/games/{game_id}/moves", headers=viewers[seat],
                               json={"move": choice["move"], "version": legal["version"]})
        assert response.status_code == 200, response.get_json()
        assert leaks(response.get_json(), seat) == []
        moves += 1
        if moves % 10 == 0:
            for viewer, headers in viewers.items():
                assert leaks(client.get(f"/api/v1/games/{game_id}", headers=headers).get_json(), viewer) == []
    assert game["result"] is not None and moves > 50
    for viewer, headers in viewers.items():
        feed = _feed(client, game_id, headers)
        assert [e["seq"] for e in feed] == list(range(1, len(feed) + 1))
        assert leaks(feed, viewer) == []
    assert_replays(app, game_id)


def test_all_bot_game_runs_inside_the_service_to_the_end(client, app):
    created = new_game(client, game=GAME, seats=5, bots={n: "random" for n in range(5)})
    game = client.get(f"/api/v1/games/{created['game']['id']}").get_json()
    assert game["status"] == "finished" and game["result"] is not None
    assert_replays(app, created["game"]["id"])


def test_standing_orders_are_private_to_their_owner(client):
    created = new_game(client, game=GAME, seats=3)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    orders = {"limits": {pof.data.AUCTION_ITEMS[0]: 700}, "step_out_otherwise": True}
    response = client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1]), json=orders)
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["orders"]["limits"] == orders["limits"]
    assert client.get(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1])).get_json()["orders"]
    for seat in (0, 2):
        other = client.get(f"/api/v1/games/{game_id}", headers=bearer(tokens[seat])).get_json()
        assert leaks(other, seat) == []
    feeds = {}
    for name, viewer in (("owner", bearer(tokens[1])), ("other", bearer(tokens[0])), ("spectator", {})):
        feeds[name] = client.get(f"/api/v1/games/{game_id}/events?after=0", headers=viewer).get_json()
        assert all(e["event"]["type"] != "orders_set" for e in feeds[name]["events"]), "orders never reach the feed"
    assert len({feed["next_after"] for feed in feeds.values()}) == 1, "not even the cursor tells"
    cancelled = client.delete(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1])).get_json()
    assert not cancelled["orders"] or not cancelled["orders"].get("limits")
