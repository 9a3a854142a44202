"""GET /games/{id}/record: a finished game's record replays to the same end with `palazzo replay`,
a running game's record shows no setup and no move, and its talk is the caller's share only."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from service import games
from service.cli import main
from service.commands.replay import replay
from tests.conftest import bearer, new_game, seat_tokens

GAME = "princes-of-florence"


def _record(client, game_id: str, token: str | None = None) -> dict:
    response = client.get(f"/api/v1/games/{game_id}/record", headers=bearer(token) if token else {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _finished(client, seed: int = 7, bots: tuple[str, ...] = ("greedy", "greedy", "greedy")) -> str:
    created = new_game(client, game=GAME, seats=len(bots), bots=dict(enumerate(bots)), seed=seed)
    game_id = created["game"]["id"]
    assert client.get(f"/api/v1/games/{game_id}").get_json()["status"] == "finished"
    return game_id


def test_a_finished_games_record_replays_to_the_same_result(app, client, tmp_path, capsys):
    game_id = _finished(client)
    store = app.extensions["palazzo.store"]
    record = _record(client, game_id)
    stored = games.load(store, game_id)
    assert record["format"] == "palazzo-record-1" and record["status"] == "finished"
    assert record["setup"] == stored.meta["setup"] and len(record["moves"]) == len(store.log(game_id)) > 50
    assert all(move["at"] for move in record["moves"])
    assert [seat["name"] for seat in record["seats"]] == ["P0", "P1", "P2"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["replay", str(path)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == {"state": stored.state, "result": record["result"]}
    assert record["result"] == client.get(f"/api/v1/games/{game_id}").get_json()["result"] is not None


def test_a_compacted_games_record_is_the_same(app, client):
    game_id = _finished(client, seed=3)
    before = _record(client, game_id)
    assert app.extensions["palazzo.store"].compact(game_id)
    assert _record(client, game_id) == before


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=3, max_size=5))
def test_records_round_trip_to_the_final_state(app, client, seed, bots):
    game_id = _finished(client, seed, tuple(bots))
    state, result = replay(_record(client, game_id))
    assert state == games.load(app.extensions["palazzo.store"], game_id).state
    assert result == client.get(f"/api/v1/games/{game_id}").get_json()["result"]


def _lists(doc) -> list[list]:
    """Every list of strings in `doc` of more than three entries (a deck, a prize order)."""
    if isinstance(doc, dict):
        return [found for value in doc.values() for found in _lists(value)]
    if isinstance(doc, list):
        own = [doc] if len(doc) > 3 and all(isinstance(item, str) for item in doc) else []
        return own + [found for item in doc for found in _lists(item)]
    return []


def test_a_running_games_record_shows_no_setup_no_move_and_no_deck(app, client):
    created = new_game(client, game=GAME, seats=3, bots={0: "greedy"})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    stored = games.load(app.extensions["palazzo.store"], game_id)
    decks = _lists(stored.meta["setup"]) + _lists(stored.state["secret"])
    assert len(decks) >= 3
    for token in (None, tokens[1], created["tokens"]["host"]):
        record = _record(client, game_id, token)
        assert record["status"] == "running" and record["setup"] is None and record["moves"] is None
        assert record["result"] is None
        text = json.dumps(record)
        assert not [deck for deck in decks if json.dumps(deck) in text]
        assert "@" not in text and "token" not in text


def test_a_private_message_is_only_in_its_two_seats_records(client):
    created = new_game(client, game=GAME, seats=3)
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    talk = f"/api/v1/games/{game_id}/messages"
    assert client.post(talk, headers=bearer(tokens[0]), json={"to": 1, "text": "just us two"}).status_code == 201
    assert client.post(talk, headers=bearer(tokens[2]), json={"to": None, "text": "hello all"}).status_code == 201
    texts = {who: [m["text"] for m in _record(client, game_id, token)["messages"]]
             for who, token in (("seat0", tokens[0]), ("seat1", tokens[1]), ("seat2", tokens[2]),
                                ("spectator", None))}
    assert texts["seat0"] == texts["seat1"] == ["just us two", "hello all"]
    assert texts["seat2"] == texts["spectator"] == ["hello all"]


def test_an_unknown_games_record_is_a_problem(client):
    response = client.get("/api/v1/games/nosuchgame/record")
    assert response.status_code == 404 and response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "game_not_found"


def test_a_cancelled_games_record_shows_no_setup_and_no_move(client):
    created = new_game(client, game=GAME, seats=3, bots={0: "greedy"})
    game_id = created["game"]["id"]
    host = created["tokens"]["host"]
    assert client.post(f"/api/v1/games/{game_id}/cancel", headers=bearer(host)).status_code == 200
    record = _record(client, game_id, host)
    assert record["status"] == "cancelled" and record["setup"] is None and record["moves"] is None
