"""Open seats over the API: a game created with seats nobody holds, its join link, joining with a
player token of a proved address, starting when full, the host filling and emptying seats, and the
lobby of public games. Every refusal is a problem document that changes nothing."""
from __future__ import annotations

from urllib.parse import unquote

import pytest

from service import mailbox, seats
from tests.conftest import bearer, mailed_link, make_app, signed_ago

pytest.importorskip("engine.pof")

OPEN = {"open": True}


def _create(client, seats_: list[dict], **extra) -> dict:
    answer = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 3, "seats": seats_, **extra})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def _outbox(app, to: str) -> list[dict]:
    return [m for m in mailbox.outbox(app.extensions["palazzo.store"]) if m["to"] == to]


def joiner(app, client, email: str, link: str) -> dict[str, str]:
    """A player token for an address new here, the way a joiner gets one: a sign-in link mailed for the
    join link, redeemed."""
    asked = client.post("/api/v1/sign-in", json={"email": email, "join": link})
    assert asked.status_code == 202, asked.get_json()
    redeemed = client.post("/api/v1/sign-in/redeem", json={"link": unquote(mailed_link(app, email))})
    assert redeemed.status_code == 201, redeemed.get_json()
    return bearer(redeemed.get_json()["token"])


def _join(client, game_id: str, who: dict, link: str, name: str, **extra):
    return client.post(f"/api/v1/games/{game_id}/join", headers=who, json={"link": link, "name": name, **extra})


def test_open_seats_are_taken_by_the_join_link_and_the_game_starts_when_full(app, client):
    created = _create(client, [{"name": "Robo", "bot": "greedy"}, OPEN, OPEN], start_when_full=True)
    game_id, host, link = created["game"]["id"], bearer(created["tokens"]["host"]), created["join"]["link"]
    assert [s["open"] for s in created["game"]["seats"]] == [False, True, True]
    assert created["game"]["seats"][1]["name"] is None and created["tokens"]["seats"] == []
    assert created["join"]["url"].startswith("http://") and "/join?link=" in created["join"]["url"]
    assert created["join"]["open_seats"] == 2 and created["join"]["joinable"]

    refused = client.post(f"/api/v1/games/{game_id}/start", headers=host)
    assert refused.status_code == 409 and refused.get_json()["code"] == "seats_open"

    bea = joiner(app, client, "bea@example.org", link)
    joined = _join(client, game_id, bea, link, "Bea")
    assert joined.status_code == 200, joined.get_json()
    assert joined.get_json()["you"] == {"role": "seat", "seat": 1} and joined.get_json()["status"] == "open"
    assert joined.get_json()["seats"][1] == {**joined.get_json()["seats"][1], "name": "Bea", "open": False,
                                            "email": "bea@example.org"}
    assert [m["kind"] for m in _outbox(app, "bea@example.org")] == ["sign_in"], "a proved joiner gets no invitation"

    cy = joiner(app, client, "cy@example.org", link)
    full = _join(client, game_id, cy, link, "Cy", seat=2)
    assert full.status_code == 200 and full.get_json()["status"] == "running", "the last seat started it"
    assert full.get_json()["you"] == {"role": "seat", "seat": 2}
    feed = [e["event"] for e in client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]]
    assert [e["type"] for e in feed][:4] == ["game_created", "seat_replaced", "seat_replaced", "game_started"]
    assert feed[1] == {"type": "seat_replaced", "seat": 1, "name": "Bea", "joined": True}
    assert client.get(f"/api/v1/games/{game_id}/join-link", headers=host).get_json()["joinable"] is False


def _refused(answer, status: int, code: str) -> None:
    assert answer.status_code == status, answer.get_json()
    assert answer.mimetype == "application/problem+json" and answer.get_json()["code"] == code


def test_bad_joins_are_refused_and_change_nothing(app, client):
    created = _create(client, [{"name": "Ann", "email": "ann@example.org"}, OPEN, OPEN])
    game_id, host, link = created["game"]["id"], bearer(created["tokens"]["host"]), created["join"]["link"]
    other = _create(client, [OPEN, OPEN, OPEN])
    bea, ann = joiner(app, client, "bea@example.org", link), joiner(app, client, "ann@example.org", link)
    assert _join(client, game_id, bea, link, "Bea").status_code == 200

    def seen() -> dict:
        return client.get(f"/api/v1/games/{game_id}", headers=host).get_json()

    before = seen()
    cy = joiner(app, client, "cy@example.org", link)
    old = signed_ago(seats.PURPOSE, {"g": game_id, "j": _join_id(app, game_id)}, seats.LINK_MAX_AGE + 60)
    for answer, status, code in [
        (_join(client, game_id, cy, link[:-3] + ("AAA" if link[-3:] != "AAA" else "BBB"), "Cy"), 403, "bad_join_link"),
        (_join(client, game_id, cy, old, "Cy"), 403, "join_link_expired"),
        (_join(client, game_id, cy, other["join"]["link"], "Cy"), 403, "bad_join_link"),
        (_join(client, game_id, bea, link, "Bea again"), 409, "already_seated"),
        (_join(client, game_id, ann, link, "Ann2"), 409, "already_seated"),
        (_join(client, game_id, cy, link, "bea"), 409, "name_taken"),
        (_join(client, game_id, cy, link, "Cy", seat=1), 409, "seat_not_open"),
        (_join(client, game_id, cy, link, "Cy", seat=7), 404, "seat_not_found"),
        (_join(client, game_id, cy, link, "x" * 61), 422, "invalid_request"),
        (_join(client, game_id, cy, link, "Cy\x07"), 422, "invalid_request"),
        (_join(client, game_id, cy, link, "   "), 422, "invalid_request"),
        (_join(client, game_id, bearer(created["tokens"]["host"]), link, "Cy"), 401, "token_required"),
        (_join(client, game_id, {}, link, "Cy"), 401, "token_required"),
    ]:
        _refused(answer, status, code)
        assert seen() == before, code

    renewed = client.post(f"/api/v1/games/{game_id}/join-link", headers=host).get_json()
    assert renewed["link"] != link and renewed["joinable"]
    _refused(_join(client, game_id, cy, link, "Cy"), 410, "join_link_revoked")
    assert seen()["seats"] == before["seats"]
    revoked = client.delete(f"/api/v1/games/{game_id}/join-link", headers=host).get_json()
    assert revoked == {"link": None, "url": None, "open_seats": 1, "joinable": False}
    _refused(_join(client, game_id, cy, renewed["link"], "Cy"), 410, "join_link_revoked")
    fresh = client.post(f"/api/v1/games/{game_id}/join-link", headers=host).get_json()["link"]
    assert _join(client, game_id, cy, fresh, "Cy").status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200

    started = seen()
    dan = joiner(app, client, "dan@example.org", other["join"]["link"])
    _refused(_join(client, game_id, dan, fresh, "Dan"), 409, "game_full")
    assert seen() == started, "a started game without an open seat takes nobody"
    assert client.post(f"/api/v1/games/{game_id}/cancel", headers=host).status_code == 200
    over = seen()
    _refused(_join(client, game_id, dan, fresh, "Dan"), 409, "game_over")
    _refused(client.post("/api/v1/sign-in", json={"email": "eve@example.org", "join": fresh}), 409, "game_over")
    assert seen() == over and not _outbox(app, "eve@example.org")


def _join_id(app, game_id: str) -> str:
    from service import games
    return games.load(app.extensions["palazzo.store"], game_id).meta["join"]


def test_the_host_fills_open_seats_invites_into_one_and_removes_a_joiner_before_the_start(app, client):
    created = _create(client, [OPEN, OPEN, OPEN])
    game_id, host, link = created["game"]["id"], bearer(created["tokens"]["host"]), created["join"]["link"]
    bea = joiner(app, client, "bea@example.org", link)
    assert _join(client, game_id, bea, link, "Bea").get_json()["you"]["seat"] == 0

    filled = client.put(f"/api/v1/games/{game_id}/seats/1", headers=host, json={"name": "Robo", "bot": "random"})
    assert filled.status_code == 200 and filled.get_json()["game"]["seats"][1]["bot"] == "random"
    invited = client.put(f"/api/v1/games/{game_id}/seats/2", headers=host,
                         json={"name": "Dan", "email": "dan@example.org"})
    assert invited.status_code == 200 and [m["kind"] for m in _outbox(app, "dan@example.org")] == ["invitation"]

    removed = client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"open": True})
    assert removed.status_code == 200
    seat = removed.get_json()["game"]["seats"][0]
    assert seat["open"] and seat["name"] is None and seat["email"] is None
    assert client.get(f"/api/v1/games/{game_id}", headers=bea).get_json()["you"]["role"] == "spectator", \
        "his token no longer acts for the seat"
    feed = [e["event"] for e in client.get(f"/api/v1/games/{game_id}/events").get_json()["events"]]
    assert feed[-1] == {"type": "seat_opened", "seat": 0}
    _refused(client.post(f"/api/v1/games/{game_id}/start", headers=host), 409, "seats_open")
    _refused(client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"open": True, "name": "X"}),
             422, "invalid_request")
    _refused(client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={}), 422, "invalid_request")

    assert _join(client, game_id, bea, link, "Bea").status_code == 200, "the seat is open again, for anyone"
    assert client.post(f"/api/v1/games/{game_id}/start", headers=host).status_code == 200
    before = client.get(f"/api/v1/games/{game_id}", headers=host).get_json()
    _refused(client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"open": True}), 409, "game_running")
    assert client.get(f"/api/v1/games/{game_id}", headers=host).get_json() == before


def test_a_game_full_from_the_start_starts_when_full_at_once(client):
    created = _create(client, [{"name": "A"}, {"name": "B", "bot": "random"}, {"name": "C", "bot": "greedy"}],
                      start_when_full=True)
    assert created["game"]["status"] == "running"


def test_the_lobby_lists_public_games_with_an_open_seat_newest_first_in_pages(app, client):
    public = [_create(client, [{"name": f"Host{n}", "bot": "random"}, OPEN, OPEN], public=True) for n in range(3)]
    _create(client, [OPEN, OPEN, OPEN])  # private
    _create(client, [{"name": "A", "bot": "random"}, {"name": "B"}, {"name": "C"}], public=True)  # nothing open
    ids = [game["game"]["id"] for game in reversed(public)]

    first = client.get("/api/v1/lobby?limit=2").get_json()
    assert [g["id"] for g in first["games"]] == ids[:2] and first["next"]
    second = client.get(f"/api/v1/lobby?limit=2&after={first['next']}").get_json()
    assert [g["id"] for g in second["games"]] == ids[2:] and second["next"] is None
    listed = first["games"][0]
    assert listed["title"] == public[-1]["game"]["title"] and listed["open_seats"] == 2 and listed["status"] == "open"
    assert [(s["name"], s["open"]) for s in listed["seats"]] == [("Host2", False), (None, True), (None, True)]
    assert listed["options"]["seats"] == 3 and listed["deadlines"] == {} and listed["missed_turns"] == 3
    assert seats.read(app.extensions["palazzo.links"], listed["join"]["link"])[0] == ids[0]
    assert "email" not in str(listed)

    host = bearer(public[2]["tokens"]["host"])
    for seat in (1, 2):
        client.put(f"/api/v1/games/{ids[0]}/seats/{seat}", headers=host, json={"name": f"R{seat}", "bot": "random"})
    assert client.post(f"/api/v1/games/{ids[1]}/cancel", headers=bearer(public[1]["tokens"]["host"])).status_code == 200
    assert [g["id"] for g in client.get("/api/v1/lobby").get_json()["games"]] == ids[2:], "full and cancelled go"
    assert client.delete(f"/api/v1/games/{ids[2]}/join-link", headers=bearer(public[0]["tokens"]["host"])
                         ).status_code == 200
    assert client.get("/api/v1/lobby").get_json() == {"games": [], "next": None}, "no link, no listing"
    client.post(f"/api/v1/games/{ids[2]}/join-link", headers=bearer(public[0]["tokens"]["host"]))
    assert [g["id"] for g in client.get("/api/v1/lobby").get_json()["games"]] == ids[2:]
    _refused(client.get("/api/v1/lobby?after=nonsense"), 422, "invalid_request")
    _refused(client.get("/api/v1/lobby?limit=0"), 422, "invalid_request")


def test_a_join_link_mails_a_sign_in_link_to_a_new_address_counted_as_an_invitation(redis_url):
    app = make_app(redis_url, INVITE_LIMIT="2 per hour")
    client = app.test_client()
    link = _create(client, [OPEN, OPEN, OPEN])["join"]["link"]
    assert client.post("/api/v1/sign-in", json={"email": "new@example.org"}).status_code == 202
    assert not _outbox(app, "new@example.org"), "without a join link an address new here gets nothing"
    _refused(client.post("/api/v1/sign-in", json={"email": "new@example.org", "join": "forged"}), 403, "bad_join_link")
    assert not _outbox(app, "new@example.org")
    for _ in range(2):
        assert client.post("/api/v1/sign-in", json={"email": "new@example.org", "join": link}).status_code == 202
    assert [m["kind"] for m in _outbox(app, "new@example.org")] == ["sign_in", "sign_in"]
    limited = client.post("/api/v1/sign-in", json={"email": "other@example.org", "join": link})
    _refused(limited, 429, "rate_limited")
    assert not _outbox(app, "other@example.org")


def test_joiners_racing_for_the_last_seats_each_get_one_or_hear_it_is_full(app, client):
    import threading
    created = _create(client, [{"name": "Robo", "bot": "greedy"}, OPEN, OPEN], start_when_full=True)
    game_id, link = created["game"]["id"], created["join"]["link"]
    players = [joiner(app, client, f"racer{n}@example.org", link) for n in range(4)]
    answers: list = [None] * 4

    def race(n: int) -> None:
        answers[n] = _join(app.test_client(), game_id, players[n], link, f"Racer{n}").get_json()

    threads = [threading.Thread(target=race, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = sorted(answer["you"]["seat"] for answer in answers if "you" in answer)
    assert won == [1, 2] and sorted(a["code"] for a in answers if "code" in a) == ["game_full", "game_full"]
    feed = [e["event"]["type"] for e in client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()["events"]]
    assert feed.count("game_started") == 1 and feed.count("seat_replaced") == 2
