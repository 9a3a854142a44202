"""Creating a game from a page, hosting it (start, pause, resume, cancel, hand a seat over, see
undelivered mail and missed turns) and watching it as a spectator."""
from __future__ import annotations

import re

import pytest

from service import mailbox
from service.mail import undelivered
from service.mail.errors import PermanentMailError
from service.mail.message import Mail
from tests.web_client import csrf, follow_seat_link, table
from tests.web_forms import parse

pytest.importorskip("engine.pof")


def _create(client, **fields) -> object:
    form = {"csrf": csrf(client, "/new"), "name0": "Ann", "email0": "ann@example.org", "player0": "human",
            "name1": "Bo", "player1": "human", "name2": "Robo", "player2": "greedy", "bidding": "step",
            "deadline_bid": "2", "deadline_turn": "48", "missed_turns": "2", "seed": "11", "start": "true", **fields}
    return client.post("/new", data=form)


def _game_id(answer) -> str:
    return re.search(r"/games/([0-9a-f]+)/host", answer.headers["Location"]).group(1)


def test_a_game_created_from_the_page_is_the_apis_game(app, client):
    answer = _create(client, grace_hours="12")
    assert answer.status_code == 303
    game_id = _game_id(answer)
    created = table(app, game_id)
    assert created.meta["grace_hours"] == 12
    assert [key.split(":")[-2] for key in _games_in(app)] == [game_id]
    assert created.status == "running" and [s["name"] for s in created.meta["seats"]] == ["Ann", "Bo", "Robo"]
    assert created.meta["deadlines"] == {"bid": 7200, "turn": 172800} and created.meta["missed_turns"] == 2
    assert created.meta["seats"][2]["bot"] == "greedy"
    invited = [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == "ann@example.org"]
    assert len(invited) == 1 and "/sign-in?link=" in invited[0]["text"]
    host = client.get(answer.headers["Location"])
    html = host.get_data(as_text=True)
    assert host.status_code == 200 and "Hosting Ann&#39;s game" in html, "named after the first person listed"
    assert "ann@example.org" in html and "Pass this link on to Bo" in html
    bo_link = re.search(r'readonly value="([^"]+)"', html).group(1).replace("&amp;", "&")
    bo = app.test_client()
    assert follow_seat_link(bo, bo_link).status_code == 303
    assert 'data-seat="1"' in bo.get(f"/games/{game_id}").get_data(as_text=True)


@pytest.mark.parametrize("fields, words", [
    ({"name1": "", "name2": ""}, "seats"),
    ({"email0": "nobody-at-all"}, "email"),
    ({"deadline_bid": "0.001"}, "deadline"),
    ({"email1": "ann@example.org"}, "one seat"),
    ({"grace_hours": "100"}, "grace"),
])
def test_a_bad_game_form_says_why_and_creates_nothing(app, client, fields, words):
    answer = _create(client, **fields)
    assert answer.status_code == 422
    assert words in answer.get_data(as_text=True).lower()
    assert 'value="Ann"' in answer.get_data(as_text=True)  # what was typed stays
    assert not _games_in(app)


def _games_in(app) -> list[str]:
    """Every game hash in the store (`store.game_key(id, "game")`: pz:{shard}:<id>:game)."""
    return list(app.extensions["palazzo.store"].redis.scan_iter(match="pz:{*}:*:game"))


def test_the_host_pauses_resumes_hands_over_and_cancels(app, client):
    game_id = _game_id(_create(client))
    host_url = f"/games/{game_id}/host"

    def post(action: str, **data):
        return client.post(f"{host_url}/{action}", data={"csrf": csrf(client, host_url), **data})

    assert post("pause", hours="500").status_code == 422
    assert post("pause", hours="2").status_code == 303 and table(app, game_id).status == "paused"
    assert "paused until" in client.get(host_url).get_data(as_text=True)
    assert post("resume").status_code == 303 and table(app, game_id).status == "running"
    assert post("start").status_code == 409 and post("explode").status_code == 404
    unread = client.post(f"{host_url}/seats/1", data={"csrf": csrf(client, host_url), "name": "Cy", "email": "cy"})
    assert unread.status_code == 422
    assert "not handed over (email: An email address must have an @-sign.)" in unread.get_data(as_text=True)
    handed = client.post(f"{host_url}/seats/1", data={"csrf": csrf(client, host_url), "name": "Cy", "player": "random"})
    assert handed.status_code == 303 and table(app, game_id).meta["seats"][1]["bot"] == "random"
    assert "Seat 2 is now Cy" in client.get(host_url).get_data(as_text=True)
    undelivered.keep(app.extensions["palazzo.store"].redis, Mail(to="ann@example.org", subject="Your turn", text="",
                                                                 kind="your_turn", game=game_id, seat=0),
                     PermanentMailError("SendGrid answered 400", 400))
    shown = client.get(host_url).get_data(as_text=True)
    assert "your turn to Ann, ann@example.org (the provider refused it (400))" in shown and "Your turn" not in shown
    assert post("cancel").status_code == 422 and table(app, game_id).status == "running"
    assert post("cancel", confirm="yes").status_code == 303 and table(app, game_id).status == "cancelled"
    assert post("resume").status_code == 409


def test_only_the_creators_browser_hosts(app, client):
    game_id = _game_id(_create(client))
    stranger = app.test_client()
    assert stranger.get(f"/games/{game_id}/host").status_code == 403
    refused = stranger.post(f"/games/{game_id}/host/cancel", data={"csrf": csrf(stranger), "confirm": "yes"})
    assert refused.status_code == 403 and table(app, game_id).status == "running"


def test_the_spectator_page_shows_the_table_to_anyone(app, client):
    game_id = _game_id(_create(client))
    watched = app.test_client().get(f"/games/{game_id}/watch")
    main, forms = parse(watched.get_data(as_text=True))
    assert watched.status_code == 200 and main["data-page"] == "watch"
    assert not [form for form in forms if form.action.endswith("/play")]
    html = watched.get_data(as_text=True)
    assert html.count('class="yard"') == 3 and "Ann" in html and "Robo" in html
    assert 'data-figure="cash"' not in html
    assert app.test_client().get("/games/0000000000000000/watch").status_code == 404
