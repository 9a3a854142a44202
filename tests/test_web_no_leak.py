"""No page shows a hidden part of another seat: not a seat page, not its log, not the spectator page,
not the host's page.

A four-player game is played with random legal moves over the API; every so often each seat's
pages and the spectator's are read and searched for everything the other seats hold hidden: their
professions, bonus and prestige cards (by name and by text), the cards they are choosing from,
their cash and their standing orders.
"""
from __future__ import annotations

import random

import pytest

from tests.conftest import bearer, new_game, seat_tokens
from tests.web_client import enter_host, enter_seat, table
from tests.web_leaks import hidden, leaked, public, text_of

pytest.importorskip("engine.pof")

SEATS = 4
ORDERS_LIMIT = 1730  # a limit nobody else's page has any reason to show: no bid or sum of money is 1,730 (all are hundreds)


def _check(app, clients: dict[int, object], spectator, host, game_id: str) -> int:
    """Read every page of every reader; return how many hidden cards were looked for."""
    state = table(app, game_id).state
    looked = 0
    readers = {**clients, None: spectator, "host": host}
    for reader, client in readers.items():
        urls = [f"/games/{game_id}/watch", f"/games/{game_id}/log"]
        if reader == "host":
            urls, reader = [f"/games/{game_id}/host"], None
        elif reader is not None:
            urls.append(f"/games/{game_id}")
        own = hidden(state, reader) if reader is not None else set()
        for url in urls:
            answer = client.get(url)
            assert answer.status_code == 200, url
            text = text_of(answer.get_data(as_text=True))
            assert not leaked(state, text, reader), (reader, url)
            looked += sum(len(hidden(state, other) - public(state) - own) for other in range(SEATS) if other != reader)
            assert str(ORDERS_LIMIT) not in text or reader == 1, (reader, url)
            cash_shown = text.count('data-figure="cash"')
            assert cash_shown == (1 if reader is not None and url == f"/games/{game_id}" else 0), (reader, url)
    return looked


def test_no_page_shows_another_seats_hidden_parts(app, client):
    created = new_game(client, game="princes-of-florence", seats=SEATS)
    game_id = created["game"]["id"]
    tokens = seat_tokens(created)
    clients = {}
    for seat in range(SEATS):
        clients[seat] = app.test_client()
        enter_seat(app, clients[seat], game_id, seat)
    host = app.test_client()
    enter_host(app, host, game_id)
    orders = {"limits": {"prestige_card": ORDERS_LIMIT}, "step_out_otherwise": False}
    assert client.put(f"/api/v1/games/{game_id}/orders", headers=bearer(tokens[1]), json=orders).status_code == 200
    rng = random.Random(5)
    looked = 0
    for count in range(400):
        now = table(app, game_id)
        if now.status != "running":
            break
        if count % 40 == 0:
            looked += _check(app, clients, app.test_client(), host, game_id)
        decision = now.pending[0]
        listed = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[decision["seat"]])).get_json()
        move = rng.choice([m["move"] for m in listed["moves"] if m["move"]["type"] != "entice"])
        played = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[decision["seat"]]),
                             json={"move": move, "version": listed["version"]})
        assert played.status_code == 200, played.get_json()
    looked += _check(app, clients, app.test_client(), host, game_id)
    assert looked > 100  # the test looked for something
