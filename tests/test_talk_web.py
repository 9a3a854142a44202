"""The talk panel in the browser without JavaScript, over Flask's test client: the seat page's form
posts a message (plain same-origin POST with the session's CSRF token), a refused one comes back
with why and the text still in its box, the spectator page shows the table's messages only, and the
host writes and hides from his page."""
from __future__ import annotations

import pytest

from service import messages
from tests.conftest import bearer, new_game, seat_tokens
from tests.web_client import csrf, enter_host, enter_seat, send
from tests.web_forms import parse


@pytest.fixture(params=["toy-count", "princes-of-florence"])
def game(request, app, client):
    created = new_game(client, game=request.param, seats=3)
    browser = app.test_client()
    enter_seat(app, browser, created["game"]["id"], 0)
    return created["game"]["id"], browser, seat_tokens(created)


@pytest.fixture
def toy(app, client):
    """A toy game's seat page: the refusals are the same whatever the game."""
    created = new_game(client, seats=3)
    browser = app.test_client()
    enter_seat(app, browser, created["game"]["id"], 0)
    return created["game"]["id"], browser, seat_tokens(created)


def talk_form(html: str):
    return next(form for form in parse(html)[1] if form.action.endswith("/talk"))


def test_a_seat_writes_from_its_page_and_reads_its_share_as_text(app, client, game):
    game_id, browser, seats = game
    client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(seats[1]), json={"text": "<script>x</script>"})
    client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(seats[1]), json={"text": "P1 to P2", "to": 2})
    page = browser.get(f"/games/{game_id}").get_data(as_text=True)
    form = talk_form(page)
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page and "P1 to P2" not in page
    sent = send(browser, form, text="Line one\r\nline two", to="1")
    assert sent.status_code == 303 and sent.headers["Location"].endswith(f"/games/{game_id}#talk")
    assert send(browser, form, text="Line one\r\nline two", to="1").status_code == 303, "a double submit"
    listed = client.get(f"/api/v1/games/{game_id}/messages", headers=bearer(seats[1])).get_json()["messages"]
    [mine] = [m for m in listed if m["by"] == 0]
    assert (mine["to"], mine["text"]) == (1, "Line one\nline two"), "posted once, to seat 1 alone"
    again = browser.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Your message was posted." in again and "Line one\nline two" in again and "to P1 alone" in again
    spectator = app.test_client().get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert "&lt;script&gt;" in spectator and "Line one" not in spectator and "P1 to P2" not in spectator
    assert not [f for f in parse(spectator)[1] if f.action.endswith("/talk")], "a spectator has no form"


@pytest.mark.parametrize("text, to, said", [
    ("x" * 2001, "", "at most 2,000 characters"),
    ("   ", "", "needs some text"),
    ("bell\x07", "", "no control characters"),
    ("hello", "7", "there is no seat 8"),
    ("hello", "seven", "That recipient could not be read"),
], ids=["too-long", "empty", "control", "no-seat", "unreadable-seat"])
def test_a_refused_message_redraws_the_page_with_why_and_keeps_the_text(app, toy, text, to, said):
    game_id, browser, _ = toy
    form = talk_form(browser.get(f"/games/{game_id}").get_data(as_text=True))
    answer = browser.post(form.action, data={**dict(form.data()), "text": text, "to": to})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422 and said in html and "nothing was posted" in html.lower()
    if text.strip() and "\x07" not in text:
        assert dict(talk_form(html).data())["text"] == text, "the text is still in its box"
    assert messages.count(app.extensions["palazzo.store"], game_id) == 0


def test_no_form_posts_without_the_sessions_token_or_a_seat(app, toy):
    game_id, browser, _ = toy
    stranger = app.test_client()
    for who, data in ((browser, {"text": "no token"}),
                      (stranger, {"text": "no seat", "csrf": csrf(stranger)})):
        assert who.post(f"/games/{game_id}/talk", data=data).status_code == 403
    assert messages.count(app.extensions["palazzo.store"], game_id) == 0


def test_the_host_writes_and_hides_from_his_page(app, client, game):
    game_id, browser, seats = game
    client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(seats[1]), json={"text": "rude words"})
    client.post(f"/api/v1/games/{game_id}/messages", headers=bearer(seats[1]), json={"text": "players only", "to": 2})
    host = app.test_client()
    enter_host(app, host, game_id)
    page = host.get(f"/games/{game_id}/host").get_data(as_text=True)
    assert "rude words" in page and "players only" not in page
    forms = parse(page)[1]
    [hide] = [f for f in forms if f.action.endswith("/hide")]
    [write] = [f for f in forms if f.action.endswith("/host/talk")]
    assert send(host, hide).status_code == 303
    assert send(host, write, text="Please be kind", to="").status_code == 303
    seat_page = browser.get(f"/games/{game_id}").get_data(as_text=True)
    assert "rude words" not in seat_page and "hidden by the host" in seat_page and "Please be kind" in seat_page
    assert "the host" in seat_page


def test_a_player_chooses_how_the_games_talk_comes_by_mail(app, client):
    from service import preferences, tokens
    created = new_game(client, game="princes-of-florence", seats=3, emails=True)
    game_id = created["game"]["id"]
    browser = app.test_client()
    enter_seat(app, browser, game_id, 0)
    [choice] = [f for f in parse(browser.get(f"/games/{game_id}").get_data(as_text=True))[1]
                if f.action.endswith("/talk/mail")]
    assert send(browser, choice, choice="digest").status_code == 303
    assert preferences.talk_choice(app.extensions["palazzo.store"], tokens.email_hash("p0@example.org"), game_id) \
        == "digest"
    assert send(browser, choice, choice="sometimes").status_code == 400
