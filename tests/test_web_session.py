"""Getting in from a browser: a mailed link becomes a session cookie and a clean URL; forms need the
session's CSRF token; the API never takes the cookie; a bad, expired or worn-out link shows its page."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from service.web import session
from service.web.seat_link import seat_url
from tests.conftest import make_app, mailed_link, new_game, signed_ago
from tests.web_client import csrf, enter_seat, follow_seat_link, path, table

pytest.importorskip("engine.pof")


def _game(client, **extra) -> str:
    body = {"game": "princes-of-florence", "seed": 3, **extra,
            "seats": [{"name": "Ann", "email": "ann@example.org"}, {"name": "B", "bot": "random"},
                      {"name": "C", "bot": "greedy"}]}
    created = client.post("/api/v1/games", json=body).get_json()
    game_id = created["game"]["id"]
    host = {"Authorization": f"Bearer {created['tokens']['host']}"}
    assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200
    return game_id


def _cookie(answer) -> str:
    return next(value for value in answer.headers.getlist("Set-Cookie") if value.startswith(session.COOKIE))


def test_a_sign_in_link_becomes_a_session_and_a_clean_url(app, client):
    game_id = _game(client)
    link = unquote(mailed_link(app, "ann@example.org"))
    page = client.get(f"/sign-in?link={link}")
    assert page.status_code == 200 and b'method="post"' in page.data  # a mail scanner's look signs nobody in
    first = _cookie(page)
    answer = client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    cookie = _cookie(answer)
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    assert cookie.split(";")[0] != first.split(";")[0], "signing in starts a new session id"
    assert link not in answer.headers["Location"]
    home = client.get("/")
    assert f'data-game="{game_id}"' in home.get_data(as_text=True) and b"It waits for you" in home.data
    assert client.get(f"/games/{game_id}").status_code == 200
    again = client.post("/sign-in", data={"link": link, "csrf": csrf(client)})
    assert again.status_code == 403 and b"used already" in again.data


def test_the_cookie_is_secure_when_served_over_https(redis_url):
    app = make_app(redis_url, BASE_URL="https://palazzo.example")
    client = app.test_client()
    assert "Secure" in _cookie(client.get("/sign-in"))


def test_the_sign_in_page_mails_a_link_and_says_the_same_for_anyone(app, client):
    _game(client)
    from service import mailbox
    store = app.extensions["palazzo.store"]
    before = len(mailbox.outbox(store))
    known = client.post("/sign-in/mail", data={"email": "ann@example.org", "csrf": csrf(client)})
    unknown = client.post("/sign-in/mail", data={"email": "nobody@example.org", "csrf": csrf(client)})
    assert known.status_code == unknown.status_code == 200
    assert b"on its way" in known.data and b"on its way" in unknown.data
    assert len(mailbox.outbox(store)) == before + 1
    bad = client.post("/sign-in/mail", data={"email": "not an address", "csrf": csrf(client)})
    assert bad.status_code == 422 and b"not an address" in bad.data


def test_the_api_never_takes_the_session_cookie(app, client):
    game_id = _game(client)
    enter_seat(app, client, game_id, 0)
    assert client.get(f"/games/{game_id}").status_code == 200  # the page knows the seat
    assert client.get("/api/v1/me/turns").status_code == 401
    listed = client.get(f"/api/v1/games/{game_id}/moves")
    assert listed.status_code == 401
    seen = client.get(f"/api/v1/games/{game_id}").get_json()
    assert seen["you"] == {"role": "spectator", "seat": None}


def test_a_form_without_the_sessions_csrf_token_changes_nothing(app, client):
    game_id = _game(client)
    enter_seat(app, client, game_id, 0)
    rev = table(app, game_id).rev
    move = {"type": "keep_professions", "version": str(table(app, game_id).version),
            "professions": table(app, game_id).state["pending"][0]["private"]["dealt"][:3]}
    for token in ("", "0" * 64, csrf(app.test_client())):  # none, forged, another browser's
        answer = client.post(f"/games/{game_id}/play", data={**move, "csrf": token})
        assert answer.status_code == 403 and b"nothing was done" in answer.data
    assert table(app, game_id).rev == rev
    assert client.post(f"/games/{game_id}/play", data={**move, "csrf": csrf(client)}).status_code == 303
    assert table(app, game_id).rev == rev + 1


def test_sign_out_ends_the_session(app, client):
    game_id = _game(client)
    enter_seat(app, client, game_id, 0)
    assert client.get(f"/games/{game_id}").status_code == 200
    assert client.post("/sign-out", data={"csrf": csrf(client)}).status_code == 303
    assert client.get(f"/games/{game_id}").status_code == 303  # to the spectator page



def test_an_expired_or_tampered_link_shows_its_page(app, client):
    game_id = _game(client)
    key = table(app, game_id).meta["seats"][0]["email_hash"]
    fresh = signed_ago("seat", {"g": game_id, "s": 0, "h": 0, "k": key}, 0)
    assert follow_seat_link(client, f"/seat?t={fresh}").status_code == 303
    opener = app.test_client()
    expired = opener.get(f"/seat?t={signed_ago('seat', {'g': game_id, 's': 0, 'h': 0, 'k': key}, 8 * 24 * 3600)}")
    assert expired.status_code == 403 and b"This link has expired" in expired.data
    assert b"Mail me a sign-in link" in expired.data
    assert opener.get(f"/games/{game_id}").status_code == 303, "an expired link grants no seat: to the spectator page"
    tampered = fresh[:-3] + ("AAA" if not fresh.endswith("AAA") else "BBB")
    shown = app.test_client().get(f"/seat?t={tampered}")
    assert shown.status_code == 403 and b"not a link we sent" in shown.data
    other_seat = app.test_client().get(f"/seat?t={signed_ago('seat', {'g': game_id, 's': 0, 'h': 0, 'k': 'someone'}, 0)}")
    assert other_seat.status_code == 403 and b"handed to someone else" in other_seat.data
    old_sign_in = signed_ago("sign-in", {"e": key, "n": "x"}, 2 * 3600)
    late = app.test_client()
    answer = late.post("/sign-in", data={"link": old_sign_in, "csrf": csrf(late, f"/sign-in?link={old_sign_in}")})
    assert answer.status_code == 403 and b"expired" in answer.data


def test_a_seat_handed_to_someone_else_drops_out_of_the_old_session(app, client):
    created = new_game(client, game="princes-of-florence", seats=3)
    game_id = created["game"]["id"]
    link = path(seat_url(app.extensions["palazzo.links"], table(app, game_id), 2))
    assert follow_seat_link(client, link).status_code == 303 and client.get(f"/games/{game_id}").status_code == 200
    home = client.get("/").get_data(as_text=True)
    assert f'data-game="{game_id}"' in home and "It waits for you" in home
    host = {"Authorization": f"Bearer {created['tokens']['host']}"}
    assert client.put(f"/api/v1/games/{game_id}/seats/2", headers=host, json={"name": "Dee"}).status_code == 200
    assert client.get(f"/games/{game_id}").status_code == 303
    home = client.get("/").get_data(as_text=True)
    assert f'data-game="{game_id}"' not in home and "It waits for you" not in home
    assert app.test_client().get(link).status_code == 403


def test_your_games_skip_an_entry_the_game_no_longer_names_you_for(app, client):
    """A crash between handing a seat over and cleaning the address's index leaves an entry behind:
    neither the page nor /me/turns counts it (both read games.seats_held)."""
    from service import tokens
    from service.store import email_key
    game_id = _game(client)
    link = unquote(mailed_link(app, "ann@example.org"))
    client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")})
    other = new_game(client, game="princes-of-florence", seats=3)["game"]["id"]  # no seat of Ann's
    store = app.extensions["palazzo.store"]
    store.redis.sadd(email_key(tokens.email_hash("ann@example.org"), "seats"), f"{other}:1")
    home = client.get("/").get_data(as_text=True)
    assert f'data-game="{game_id}"' in home and f'data-game="{other}"' not in home


def test_a_seat_link_opened_by_another_site_signs_nobody_in(app, client):
    """Login CSRF: a page elsewhere sends the victim's browser to the attacker's seat link. The GET only
    asks; it neither adds the attacker's seat to the victim's session nor rotates it (his open forms keep
    working), and a cross-site POST carries no CSRF token of his session, so it is refused too."""
    mine = _game(client)
    link = unquote(mailed_link(app, "ann@example.org"))
    assert client.post("/sign-in", data={"link": link, "csrf": csrf(client, f"/sign-in?link={link}")}).status_code == 303
    token_before = csrf(client, "/")
    attackers = new_game(client, game="princes-of-florence", seats=3)["game"]["id"]
    lure = path(seat_url(app.extensions["palazzo.links"], table(app, attackers), 0))
    shown = client.get(lure)
    assert shown.status_code == 200 and session.COOKIE not in "".join(shown.headers.getlist("Set-Cookie"))
    forged = client.post("/seat", data={"t": lure.split("t=", 1)[1]})
    assert forged.status_code == 403
    home = client.get("/").get_data(as_text=True)
    assert f'data-game="{attackers}"' not in home and f'data-game="{mine}"' in home
    assert client.get(f"/games/{attackers}").status_code == 303, "still only a spectator there"
    assert csrf(client, "/") == token_before, "the victim's session id did not change"
