"""A silent Goofspiel seat is carried by its deadlines, with real `palazzo worker` processes: its first
misses play the default (its lowest card), and after `missed_turns` of them the stand-in (Goofspiel's
own greedy bot) bids for it at each deadline, to the end of the game, while two bots play the other
seats at once."""
from __future__ import annotations

from service.games import STAND_IN
from tests.conftest import assert_replays, bearer, make_app, wait_for

GAMES = ["goofspiel", "princes-of-florence"]
CARDS = 5


def test_a_silent_seat_is_carried_by_its_deadlines_then_by_the_stand_in(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", MIN_DEADLINE=1, BOT_DELAY=0, GAMES=GAMES)
    client = app.test_client()
    created = client.post("/api/v1/games", json={
        "game": "goofspiel", "seed": 2, "options": {"seats": 3, "cards": CARDS}, "deadlines": {"bid": 1},
        "missed_turns": 2, "seats": [{"name": "Ann"}, {"name": "Bot", "bot": "greedy"}, {"name": "Rnd", "bot": "random"}]})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game"]["id"]
    host = bearer(created.get_json()["tokens"]["host"])
    assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200
    workers(2, PALAZZO_GAMES=",".join(GAMES))
    wait_for(lambda: client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished", 60)

    store = app.extensions["palazzo.store"]
    silent = [entry for entry in store.log(game_id) if entry["seat"] == 0]
    assert len(silent) == CARDS - 1 and all(entry.get("timeout") for entry in silent), "every bid of hers timed out"
    assert [entry.get("bot") for entry in silent] == [None, None, STAND_IN, STAND_IN]
    assert [entry["move"]["card"] for entry in silent[:2]] == [1, 2], "the default: her lowest card"
    seat = client.get(f"/api/v1/games/{game_id}").get_json()["seats"][0]
    assert seat["standin"] == STAND_IN and seat["missed"] == CARDS - 1
    events = [entry["event"] for entry in store.events(game_id, 0, 10_000)[0]]
    assert [e["seat"] for e in events if e["type"] == "standin_started"] == [0]
    assert sum(e["type"] == "round_over" for e in events) == CARDS
    assert_replays(app, game_id)
