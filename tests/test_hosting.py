"""A host is a person with an address, not only a browser or a token: he proves his address like a
player, finds his games from his account after signing out, and cannot use game creation to mail
strangers in bulk."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from service import games, mailbox
from tests.conftest import bearer, mailed_link, make_app, new_game, sign_in
from tests.web_client import csrf

pytest.importorskip("engine.pof")

SEATS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bo", "bot": "random"}, {"name": "Cy", "bot": "greedy"}]


def _outbox(app, to: str) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == to]


def _browser_sign_in(app, client, link: str):
    link = unquote(link)
    return client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})


def _create_page(client, **fields):
    form = {"csrf": csrf(client, "/new"), "name0": "Ann", "email0": "ann@example.org", "player0": "human",
            "name1": "Bo", "player1": "random", "name2": "Cy", "player2": "greedy", "seed": "4", **fields}
    return client.post("/new", data=form)


def test_a_host_who_signs_out_comes_back_through_his_address(app, client):
    created = _create_page(client, host_email="host@example.org")
    assert created.status_code == 303
    game_id = created.headers["Location"].split("/")[2]
    [mail] = _outbox(app, "host@example.org")
    assert mail["kind"] == "host_link" and "Cheap" not in mail["text"]
    assert client.post("/sign-out", data={"csrf": csrf(client)}).status_code == 303
    assert client.get(f"/games/{game_id}/host").status_code == 403, "the host grant went with the session"
    elsewhere = app.test_client()
    assert _browser_sign_in(app, elsewhere, mailed_link(app, "host@example.org")).status_code == 303
    home = elsewhere.get("/").get_data(as_text=True)
    assert f'data-game="{game_id}"' in home and f"/games/{game_id}/host" in home
    assert elsewhere.get(f"/games/{game_id}/host").status_code == 200
    started = elsewhere.post(f"/games/{game_id}/host/start", data={"csrf": csrf(elsewhere, f"/games/{game_id}/host")})
    assert started.status_code == 303 and games.load(app.extensions["palazzo.store"], game_id).status == "running"
    assert client.post("/sign-in/mail", data={"email": "host@example.org", "csrf": csrf(client)}).status_code == 200
    assert _browser_sign_in(app, client, mailed_link(app, "host@example.org")).status_code == 303
    assert client.get(f"/games/{game_id}/host").status_code == 200, "a plain sign-in brings the host back"


def test_a_signed_in_creator_hosts_from_his_address(app, client):
    new_game(client, game="princes-of-florence", emails=True)  # p0 plays somewhere: he can sign in
    assert _browser_sign_in(app, client, mailed_link(app, "p0@example.org")).status_code == 303
    created = _create_page(client)
    game_id = created.headers["Location"].split("/")[2]
    assert not _outbox(app, "p0@example.org")[1:], "a proved address needs no host link"
    other = app.test_client()
    assert _browser_sign_in(app, other, _sign_in_link(app, other, "p0@example.org")).status_code == 303
    assert other.get(f"/games/{game_id}/host").status_code == 200


def _sign_in_link(app, client, email: str) -> str:
    client.post("/sign-in/mail", data={"email": email, "csrf": csrf(client)})
    return mailed_link(app, email)


def test_a_player_token_of_the_hosts_address_acts_as_host(app, client):
    new_game(client, game="princes-of-florence", emails=True)
    player = bearer(sign_in(app, client, "p1@example.org"))
    body = {"game": "princes-of-florence", "seats": SEATS}
    created = client.post("/api/v1/games", json=body, headers=player)
    assert created.status_code == 201
    game_id = created.get_json()["game"]["id"]
    seen = client.get(f"/api/v1/games/{game_id}", headers=player).get_json()
    assert seen["you"] == {"role": "host", "seat": None} and seen["seats"][0]["email"] == "ann@example.org"
    assert client.post(f"/api/v1/games/{game_id}/start", headers=player).status_code == 200
    stranger = bearer(sign_in(app, client, "p2@example.org"))
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=stranger, json={"hours": 1}).status_code == 403


def test_an_anonymous_host_can_have_a_host_link_mailed(app, client):
    created = client.post("/api/v1/games", json={"game": "princes-of-florence", "seats": SEATS}).get_json()
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    assert client.post(f"/api/v1/games/{game_id}/host-link", json={"email": "h@example.org"}).status_code == 401
    assert client.post(f"/api/v1/games/{game_id}/host-link", json={"email": "h@example.org"},
                       headers=bearer(sign_in(app, client, "ann@example.org"))).status_code == 403
    assert client.post(f"/api/v1/games/{game_id}/host-link", json={"email": "h@example.org"},
                       headers=host).status_code == 202
    token = sign_in(app, client, "h@example.org")
    assert client.get(f"/api/v1/games/{game_id}", headers=bearer(token)).get_json()["you"]["role"] == "host"
    assert client.post(f"/api/v1/games/{game_id}/start", headers=bearer(token)).status_code == 200


def test_game_creation_is_no_mail_relay(redis_url):
    """Invitations are counted against whoever asks for them, by client address and by proved address:
    past the limit nothing is created and nothing is mailed."""
    app = make_app(redis_url, INVITE_LIMIT="5 per hour")
    client = app.test_client()
    store = app.extensions["palazzo.store"]

    def create(n: int, **kwargs):
        seats = [{"name": f"P{i}", "email": f"victim{n}-{i}@example.org"} for i in range(3)]
        return client.post("/api/v1/games", json={"game": "princes-of-florence", "seats": seats}, **kwargs)

    assert create(0).status_code == 201
    before = len(mailbox.outbox(store)), len(list(store.redis.scan_iter(match="pz:{*}:*:game")))
    refused = create(1)
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert "Retry-After" in refused.headers
    assert (len(mailbox.outbox(store)), len(list(store.redis.scan_iter(match="pz:{*}:*:game")))) == before
    assert create(2, environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 201, "another client has its own"
    page = app.test_client()
    form = {"csrf": csrf(page, "/new"), "name0": "A", "email0": "x1@example.org", "name1": "B",
            "email1": "x2@example.org", "name2": "C", "email2": "x3@example.org"}
    answer = page.post("/new", data=form, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert answer.status_code == 429 and b"too many invitations" in answer.data
    assert not [m for m in mailbox.outbox(store) if m["to"].startswith("x")]


def test_a_proved_creator_is_limited_whatever_client_he_calls_from(redis_url):
    app = make_app(redis_url, INVITE_LIMIT="4 per hour")
    client = app.test_client()
    seats = [{"name": "A", "email": "a@example.org"}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "random"}]
    assert client.post("/api/v1/games", json={"game": "princes-of-florence", "seats": seats}).status_code == 201
    player = bearer(sign_in(app, client, "a@example.org"))
    answers = []
    for n in range(5):
        seats = [{"name": "A", "email": f"v{n}@example.org"}, {"name": "B", "bot": "random"},
                 {"name": "C", "bot": "random"}]
        answers.append(client.post("/api/v1/games", json={"game": "princes-of-florence", "seats": seats},
                                   headers=player, environ_base={"REMOTE_ADDR": f"10.0.1.{n}"}).status_code)
    assert answers == [201, 201, 201, 201, 429]


def test_seats_handed_to_addresses_and_host_links_count_as_invitations_on_api_and_page(redis_url):
    """A host's seat hand-over to an address and a host link mail strangers too: they count against the
    same limit as a new game's invitations, and past it the seat stays whose it was and nothing is mailed."""
    app = make_app(redis_url, INVITE_LIMIT="3 per hour")
    client = app.test_client()
    created = new_game(client, game="princes-of-florence", start=False)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    assert client.post(f"/api/v1/games/{game_id}/host-link", json={"email": "h@example.org"},
                       headers=host).status_code == 202
    answers = [client.put(f"/api/v1/games/{game_id}/seats/{seat}", json={"name": "N", "email": f"n{seat}@example.org"},
                          headers=host).status_code for seat in range(3)]
    assert answers == [200, 200, 429]
    assert client.get(f"/api/v1/games/{game_id}", headers=host).get_json()["seats"][2]["name"] == "P2"
    page = app.test_client()
    page_game = _create_page(page, email0="").headers["Location"].split("/")[2]
    refused = page.post(f"/games/{page_game}/host/seats/1", data={"csrf": csrf(page, f"/games/{page_game}/host"),
                        "player": "human", "name": "Di", "email": "di@example.org"})
    assert refused.status_code == 429 and b"too many invitations" in refused.data
    refused = page.post(f"/games/{page_game}/host/link", data={"csrf": csrf(page, f"/games/{page_game}/host"),
                        "email": "hp@example.org"})
    assert refused.status_code == 429 and b"too many invitations" in refused.data
    assert not _outbox(app, "n2@example.org") + _outbox(app, "di@example.org") + _outbox(app, "hp@example.org")
    assert page.post(f"/games/{page_game}/host/seats/1", data={"csrf": csrf(page, f"/games/{page_game}/host"),
                     "player": "random", "name": "Bot"}).status_code == 303, "a bot is mailed nothing"
