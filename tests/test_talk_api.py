"""Table talk over the API on a real redis-server: writing, reading in pages, resuming, ETags, the
long-poll, the host hiding a message, and every bad request refused with its own code and nothing kept."""
from __future__ import annotations

import threading
import time

import pytest
import redis

from service import messages
from service.store import game_key
from tests.conftest import bearer, make_app, new_game, seat_tokens


def talk(client, game_id: str, token: str | None = None, **query) -> dict:
    answer = client.get(f"/api/v1/games/{game_id}/messages", headers=bearer(token) if token else {},
                        query_string=query)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def say(client, game_id: str, token: str, text: str, to: int | None = None, **headers):
    return client.post(f"/api/v1/games/{game_id}/messages", headers={**bearer(token), **headers},
                       json={"text": text, "to": to})


@pytest.fixture
def table(client):
    created = new_game(client, seats=3)
    return created["game"]["id"], seat_tokens(created), created["tokens"]["host"]


def stored(app, game_id: str) -> int:
    return messages.count(app.extensions["palazzo.store"], game_id)


def test_seats_and_host_talk_and_each_reads_his_share(client, table):
    game_id, seats, host = table
    first = say(client, game_id, seats[0], "  Good luck,\r\neveryone!  ")
    assert first.status_code == 201 and first.get_json() == {
        "seq": 1, "at": first.get_json()["at"], "by": 0, "name": "P0", "to": None, "text": "Good luck,\neveryone!",
        "hidden": False}
    assert say(client, game_id, seats[1], "psst, P2", to=2).status_code == 201
    assert say(client, game_id, host, "Welcome, all").get_json()["by"] is None
    assert say(client, game_id, host, "P0, a word", to=0).status_code == 201
    texts = {who: [m["text"] for m in talk(client, game_id, token)["messages"]]
             for who, token in [("p0", seats[0]), ("p1", seats[1]), ("p2", seats[2]), ("host", host), ("anyone", None)]}
    assert texts == {"p0": ["Good luck,\neveryone!", "Welcome, all", "P0, a word"],
                     "p1": ["Good luck,\neveryone!", "psst, P2", "Welcome, all"],
                     "p2": ["Good luck,\neveryone!", "psst, P2", "Welcome, all"],
                     "host": ["Good luck,\neveryone!", "Welcome, all", "P0, a word"],
                     "anyone": ["Good luck,\neveryone!", "Welcome, all"]}


def test_pages_resume_after_the_cursor_and_an_etag_gives_304(client, table):
    game_id, seats, _ = table
    for number in range(5):
        assert say(client, game_id, seats[number % 2], f"m{number}", to=1 if number == 2 else None).status_code == 201
    page = talk(client, game_id, None, limit=2)
    assert [m["seq"] for m in page["messages"]] == [1, 2] and page["next_after"] == 2 and page["more"]
    page = talk(client, game_id, None, after=2, limit=2)
    assert [m["seq"] for m in page["messages"]] == [4], "seat 0's private message to seat 1 is not the spectator's"
    assert page["next_after"] == 4 and page["more"], "yet the cursor moved over it"
    last = talk(client, game_id, None, after=4)
    assert [m["text"] for m in last["messages"]] == ["m4"] and last["next_after"] == 5 and not last["more"]
    answer = client.get(f"/api/v1/games/{game_id}/messages?after=4")
    again = client.get(f"/api/v1/games/{game_id}/messages?after=4", headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304 and not again.data
    assert say(client, game_id, seats[2], "m5").status_code == 201
    changed = client.get(f"/api/v1/games/{game_id}/messages?after=4", headers={"If-None-Match": answer.headers["ETag"]})
    assert changed.status_code == 200 and [m["text"] for m in changed.get_json()["messages"]] == ["m4", "m5"]


def test_a_long_poll_answers_when_a_message_comes(app, client, table):
    game_id, seats, _ = table

    def soon() -> None:
        time.sleep(0.3)
        say(app.test_client(), game_id, seats[1], "here I am")

    writer = threading.Thread(target=soon)
    writer.start()
    page = talk(client, game_id, seats[0], after=0, wait=20)
    writer.join()
    assert [m["text"] for m in page["messages"]] == ["here I am"]
    empty = talk(client, game_id, seats[0], after=1, wait=1)
    assert empty["messages"] == [] and empty["next_after"] == 1


def test_the_host_hides_a_message_it_stays_as_hidden_and_its_writer_still_reads_it(client, table):
    game_id, seats, host = table
    say(client, game_id, seats[0], "something rude")
    say(client, game_id, seats[1], "between us", to=2)
    hidden = client.post(f"/api/v1/games/{game_id}/messages/1/hide", headers=bearer(host))
    assert hidden.status_code == 200 and hidden.get_json()["hidden"] and hidden.get_json()["text"] is None
    assert client.post(f"/api/v1/games/{game_id}/messages/1/hide", headers=bearer(host)).status_code == 200
    for token in (seats[1], host, None):
        [first, *_] = talk(client, game_id, token)["messages"]
        assert first["hidden"] and first["text"] is None and first["name"] == "P0"
    assert talk(client, game_id, seats[0])["messages"][0]["text"] == "something rude", "its writer keeps it"
    private = client.post(f"/api/v1/games/{game_id}/messages/2/hide", headers=bearer(host))
    assert private.status_code == 404 and private.get_json()["code"] == "message_not_found", \
        "the host cannot reach (nor learn of) a private message of players"
    assert client.post(f"/api/v1/games/{game_id}/messages/1/hide", headers=bearer(seats[1])).get_json()["code"] \
        == "host_only"
    assert client.post(f"/api/v1/games/{game_id}/messages/9/hide", headers=bearer(host)).status_code == 404


def test_an_idempotency_key_posts_once(client, table):
    game_id, seats, _ = table
    first = say(client, game_id, seats[0], "once", **{"Idempotency-Key": "k-1"})
    again = say(client, game_id, seats[0], "once", **{"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json() and len(talk(client, game_id)["messages"]) == 1
    assert say(client, game_id, seats[1], "mine", **{"Idempotency-Key": "k-1"}).get_json()["seq"] == 2, \
        "a key is the writer's own"


@pytest.mark.parametrize("body, code", [
    ({"text": "x" * 2001}, "message_too_long"),
    ({"text": " \n\t "}, "message_empty"),
    ({"text": ""}, "message_empty"),
    ({"text": "tab\there"}, "message_control_character"),
    ({"text": "bell\x07"}, "message_control_character"),
    ({"text": "escape \x1b[31m"}, "message_control_character"),
    ({"text": "nobody", "to": 7}, "bad_recipient"),
    ({"text": "myself", "to": 0}, "bad_recipient"),
    ({"text": "the bot", "to": 2}, "bad_recipient"),
])
def test_bad_messages_are_refused_with_their_code_and_nothing_is_kept(app, client, body, code):
    created = new_game(client, seats=3, bots={2: "random"})
    game_id = created["game"]["id"]
    refused = client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(seat_tokens(created)[0]), json=body)
    assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == code, refused.get_json()
    assert stored(app, game_id) == 0


def test_a_message_of_2000_characters_with_newlines_is_taken(client, table):
    game_id, seats, _ = table
    text = ("a" * 99 + "\n") * 19 + "b" * 100
    assert len(text) == 2000 and say(client, game_id, seats[0], text).status_code == 201
    assert say(client, game_id, seats[0], text.replace("\n", "\r\n")).status_code == 201, \
        "a form's line ends count once"


def test_spectators_and_earlier_holders_cannot_talk(app, client, table):
    game_id, seats, host = table
    anonymous = client.post(f"/api/v1/games/{game_id}/messages", json={"text": "hi"})
    assert anonymous.status_code == 401 and anonymous.get_json()["code"] == "token_required"
    other = new_game(client, seats=3)
    wrong = say(client, game_id, seat_tokens(other)[0], "hi")
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "wrong_game"
    handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=bearer(host), json={"name": "Newcomer"})
    assert handed.status_code == 200
    old = say(client, game_id, seats[1], "I am still here")
    assert old.status_code == 401 and old.get_json()["code"] == "bad_token"
    assert stored(app, game_id) == 0
    assert say(client, game_id, handed.get_json()["token"], "hello, I took over").status_code == 201


def test_a_seat_handed_over_between_read_and_write_posts_nothing(app, client, table):
    """The holder generation is checked in the same atomic step as the append."""
    from service import games
    game_id, seats, host = table
    store = app.extensions["palazzo.store"]
    before = games.load(store, game_id)
    games.replace_seat(store, before, 1, {"name": "Newcomer"})
    with pytest.raises(Exception) as refused:
        messages.post(store, before, messages.Reader(1), None, "too late", messages.ratelimit.Limit(100, 60))
    assert getattr(refused.value, "code", None) == "not_a_seat" and stored(app, game_id) == 0


def test_past_the_rate_limit_a_seat_waits_and_nothing_is_kept(redis_url):
    app = make_app(redis_url, TALK_LIMIT="3 per hour")
    app.extensions["palazzo.talk_limit"] = messages.ratelimit.Limit.parse("3 per hour")
    client = app.test_client()
    created = new_game(client, seats=3)
    game_id, seats = created["game"]["id"], seat_tokens(created)
    assert [say(client, game_id, seats[0], f"m{n}").status_code for n in range(3)] == [201] * 3
    limited = say(client, game_id, seats[0], "one more")
    assert limited.status_code == 429 and limited.get_json()["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) > 0 and stored(app, game_id) == 3
    assert say(client, game_id, seats[1], "another seat has its own").status_code == 201


def test_a_cancelled_game_is_silent_and_a_finished_one_still_talks(client):
    created = new_game(client, seats=3)
    game_id, seats, host = created["game"]["id"], seat_tokens(created), created["tokens"]["host"]
    assert client.post(f"/api/v1/games/{game_id}/cancel", headers=bearer(host)).status_code == 200
    refused = say(client, game_id, seats[0], "hello?")
    assert refused.status_code == 409 and refused.get_json()["code"] == "game_cancelled"
    open_game = new_game(client, seats=3, start=False)
    assert say(client, open_game["game"]["id"], seat_tokens(open_game)[0], "waiting for the start").status_code == 201


def test_a_compacted_game_keeps_its_messages_and_drops_their_keys(app, client, redis_url):
    created = new_game(client, seats=3, options={"turns": 1})
    game_id, seats = created["game"]["id"], seat_tokens(created)
    assert say(client, game_id, seats[0], "good luck", **{"Idempotency-Key": "a"}).status_code == 201
    while (game := client.get(f"/api/v1/games/{game_id}").get_json())["status"] == "running":
        decision = game["pending"][0]
        move = {"type": "pick", "value": 1} if decision["kind"] == "pick" else {"type": "add", "amount": 1}
        client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(seats[decision["seat"]]),
                    json={"move": move, "version": game["version"]})
    assert say(client, game_id, seats[1], "good game").status_code == 201
    assert app.extensions["palazzo.store"].compact(game_id)
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    left = {key.split(f"{game_id}:", 1)[1] for key in raw.scan_iter(match=game_key(game_id, "*"))}
    assert left == {"game", "archive", "messages"}, left
    assert [m["text"] for m in talk(client, game_id)["messages"]] == ["good luck", "good game"]
