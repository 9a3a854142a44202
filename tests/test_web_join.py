"""Open seats in the browser, over Flask's test client: a game with open seats made on the create
page, its join link on the host page, a stranger who signs in by the mail the join page sends and
comes back to take a seat, the host's buttons, and the lobby."""
from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from service import games, mailbox
from tests.conftest import mailed_link
from tests.web_client import csrf, path, table

pytest.importorskip("engine.pof")


def _create(client, **fields):
    form = {"csrf": csrf(client, "/new"), "name0": "Ann", "player0": "human", "player1": "open", "player2": "open",
            "name3": "Robo", "player3": "greedy", "seed": "5", "start": "full", "public": "true", **fields}
    return client.post("/new", data=form)


def _game_id(answer) -> str:
    return re.search(r"/games/([0-9a-f]+)/host", answer.headers["Location"]).group(1)


def _join_url(html: str) -> str:
    return path(re.search(r'aria-label="Join link" readonly value="([^"]+)"', html).group(1).replace("&amp;", "&"))


def _sign_in_by_join_page(app, client, url: str, email: str):
    """Ask the join page for a sign-in link, open the mailed link and press its button: where it leads."""
    asked = client.post("/join/mail", data={"link": unquote(url.split("link=")[1]), "email": email,
                                            "csrf": csrf(client, url)})
    assert asked.status_code == 200 and "on its way" in asked.get_data(as_text=True)
    link = unquote(mailed_link(app, email))
    return client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})


def test_a_stranger_finds_a_public_game_signs_in_by_mail_and_takes_a_seat(app, client):
    created = _create(client)
    assert created.status_code == 303
    game_id = _game_id(created)
    host_page = client.get(created.headers["Location"]).get_data(as_text=True)
    assert "is created. Pass its join link on" in host_page and "starts when every seat is taken" in host_page
    assert [s.get("open", False) for s in table(app, game_id).meta["seats"]] == [False, True, True, False]
    url = _join_url(host_page)

    lobby = app.test_client().get("/lobby").get_data(as_text=True)
    assert f'data-game="{game_id}"' in lobby and "2 open" in lobby and "bids rise by 100" in lobby
    assert path(re.search(r'<a href="([^"]+)">Join ', lobby).group(1).replace("&amp;", "&")).startswith("/join?link=")

    bea = app.test_client()
    shown = bea.get(url).get_data(as_text=True)
    assert "Mail me a sign-in link" in shown and "Ann" in shown and "Take a seat" not in shown
    back = _sign_in_by_join_page(app, bea, url, "bea@example.org")
    assert back.status_code == 303 and back.headers["Location"].startswith("/join?link=")
    form = bea.get(back.headers["Location"]).get_data(as_text=True)
    assert "You are signed in." in form and "Take a seat" in form and 'name="name"' in form
    token = csrf(bea, back.headers["Location"])
    link = unquote(back.headers["Location"].split("link=")[1])
    took = bea.post("/join", data={"link": link, "name": "Bea", "seat": "2", "csrf": token})
    assert took.status_code == 303 and took.headers["Location"] == f"/games/{game_id}"
    assert table(app, game_id).meta["seats"][2]["name"] == "Bea"
    seat_page = bea.get(f"/games/{game_id}").get_data(as_text=True)
    assert "You have taken seat 3." in seat_page
    assert bea.get(url).status_code == 200 and "You hold seat 3" in bea.get(url).get_data(as_text=True)

    cy = app.test_client()
    assert _sign_in_by_join_page(app, cy, url, "cy@example.org").status_code == 303
    took = cy.post("/join", data={"link": unquote(url.split("link=")[1]), "name": "Cy", "csrf": csrf(cy, url)})
    assert took.status_code == 303 and table(app, game_id).status == games.RUNNING, "the last seat started it"
    assert "the game has started" in cy.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-game="{game_id}"' not in app.test_client().get("/lobby").get_data(as_text=True)
    assert not [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["kind"] == "invitation"]


def test_a_refused_join_page_says_why_and_changes_nothing(app, client):
    game_id = _game_id(_create(client, public=""))
    url = _join_url(client.get(f"/games/{game_id}/host").get_data(as_text=True))
    link = unquote(url.split("link=")[1])
    assert f'data-game="{game_id}"' not in client.get("/lobby").get_data(as_text=True), "a private game is not listed"
    bea = app.test_client()
    assert _sign_in_by_join_page(app, bea, url, "bea@example.org").status_code == 303
    before = table(app, game_id)
    for data, status, words in [
        ({"name": "Bea"}, 403, "form has expired"),
        ({"name": "Bea", "csrf": csrf(bea, url), "link": link[:-2] + "xx"}, 403, "not a join link"),
        ({"name": "ann", "csrf": csrf(bea, url)}, 409, "another seat of this game is called ann"),
        ({"name": "B\x01", "csrf": csrf(bea, url)}, 422, "control characters"),
        ({"name": "Bea", "seat": "0", "csrf": csrf(bea, url)}, 409, "seat 1 is taken"),
        ({"name": "Bea", "seat": "²", "csrf": csrf(bea, url)}, 422, "seat"),
    ]:
        answer = bea.post("/join", data={"link": link, **data})
        assert answer.status_code == status and words in answer.get_data(as_text=True), (data, answer.status_code)
        assert table(app, game_id).meta == before.meta
    stranger = app.test_client()
    answer = stranger.post("/join", data={"link": link, "name": "Eve", "csrf": csrf(stranger, url)})
    assert answer.status_code == 403 and "Sign in first" in answer.get_data(as_text=True)
    assert stranger.get("/join?link=forged").status_code == 403
    assert "page of the lobby does not exist" in stranger.get("/lobby?after=nonsense").get_data(as_text=True)
    assert table(app, game_id).meta == before.meta


def test_the_host_renews_turns_off_and_removes_on_his_page(app, client):
    game_id = _game_id(_create(client, start="hand"))
    host_url = f"/games/{game_id}/host"
    url = _join_url(client.get(host_url).get_data(as_text=True))
    bea = app.test_client()
    assert _sign_in_by_join_page(app, bea, url, "bea@example.org").status_code == 303
    assert bea.post("/join", data={"link": unquote(url.split("link=")[1]), "name": "Bea",
                                   "csrf": csrf(bea, url)}).status_code == 303
    assert table(app, game_id).meta["seats"][1]["name"] == "Bea"

    page = client.get(host_url).get_data(as_text=True)
    assert "Remove Bea (open the seat)" in page
    started = client.post(f"{host_url}/start", data={"csrf": csrf(client, host_url)})
    assert started.status_code == 409 and "seat 3 is open" in started.get_data(as_text=True)
    removed = client.post(f"{host_url}/seats/1/open", data={"csrf": csrf(client, host_url)})
    assert removed.status_code == 303 and games.seat_is_open(table(app, game_id).meta["seats"][1])
    assert table(app, game_id).holder(1) == 2, "joined, then removed: two hand-overs"
    assert bea.get(f"/games/{game_id}").headers["Location"].endswith("/watch"), "his session holds the seat no more"

    assert client.post(f"{host_url}/join-link/new", data={"csrf": csrf(client, host_url)}).status_code == 303
    assert bea.get(url).status_code == 410 and "turned this join link off" in bea.get(url).get_data(as_text=True)
    fresh = _join_url(client.get(host_url).get_data(as_text=True))
    assert bea.get(fresh).status_code == 200
    assert client.post(f"{host_url}/join-link/off", data={"csrf": csrf(client, host_url)}).status_code == 303
    assert "The join link is off" in client.get(host_url).get_data(as_text=True)
    assert bea.get(fresh).status_code == 410
    assert client.post(f"{host_url}/join-link/sideways", data={"csrf": csrf(client, host_url)}).status_code == 404

    for seat in (1, 2):
        handed = client.post(f"{host_url}/seats/{seat}", data={"csrf": csrf(client, host_url), "name": f"Bot{seat}",
                                                               "player": "random"})
        assert handed.status_code == 303
    assert client.post(f"{host_url}/start", data={"csrf": csrf(client, host_url)}).status_code == 303
    refused = client.post(f"{host_url}/seats/1/open", data={"csrf": csrf(client, host_url)})
    assert refused.status_code == 409 and table(app, game_id).meta["seats"][1]["bot"] == "random"


def test_a_game_with_open_seats_cannot_start_at_once_from_the_create_page(app, client):
    answer = _create(client, start="true")
    assert answer.status_code == 422 and "cannot start at once" in answer.get_data(as_text=True)
    named = _create(client, name1="Zed")
    assert named.status_code == 422 and "An open seat has no name" in named.get_data(as_text=True)
    assert not list(app.extensions["palazzo.store"].redis.scan_iter(match="pz:{*}:*:game"))
