"""One-click answers from mails: GET only asks, POST plays once, and a link acts for its own seat's
own decision only, until that decision's deadline."""
from __future__ import annotations

import json
import zlib
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from itsdangerous import URLSafeTimedSerializer
from itsdangerous.encoding import base64_decode, base64_encode
from markupsafe import escape

from service import games
from service.mailed_links import answer_links, choice
from tests.conftest import bearer, mailed_link, new_game, seat_tokens
from tests.web_client import follow_seat_link

pof = pytest.importorskip("engine.pof")


def _path(url: str) -> str:
    """A mailed URL as the test client requests it (links are built from PALAZZO_BASE_URL)."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def _token(url: str) -> str:
    return parse_qs(urlsplit(url).query)["t"][0]


def _table(app, game_id: str) -> games.Table:
    return games.load(app.extensions["palazzo.store"], game_id)


def _log(app, game_id: str) -> list[dict]:
    return app.extensions["palazzo.store"].log(game_id)


def _links(app):
    return app.extensions["palazzo.links"]


def _answers(app, game_id: str, seat: int) -> dict:
    return answer_links(_links(app), _table(app, game_id), seat)


def _act_payload(app, game_id: str, seat: int, move: dict, **changes) -> dict:
    decision = _table(app, game_id).decision_of(seat)
    return {"g": game_id, "s": seat, "h": _table(app, game_id).holder(seat), "d": decision["since"],
            "m": choice(_links(app), move),
            "x": int(time.time()) + 3600, **changes}


def _payload(signed: str) -> tuple[dict, str]:
    """What a link's token says (itsdangerous compresses it when that is shorter), and its signature."""
    compressed = signed.startswith(".")
    payload, rest = signed.removeprefix(".").split(".", 1)
    raw = base64_decode(payload)
    return json.loads(zlib.decompress(raw) if compressed else raw), rest


def _with_payload(signed: str, **changes) -> str:
    """The link with its payload altered and its signature kept: a forgery."""
    payload, rest = _payload(signed)
    changed = {**payload, **changes}
    return base64_encode(json.dumps(changed, separators=(",", ":")).encode()).decode() + "." + rest


@pytest.fixture
def toy(app, client):
    created = new_game(client)
    return created["game"]["id"], seat_tokens(created)


def test_the_toy_pick_offers_each_legal_move_the_default_marked_with_a_seat_page(app, toy):
    """A game with the plain mails gets a link per legal move, when they are few."""
    game_id, _ = toy
    links = _answers(app, game_id, 0)
    assert links["seat"].startswith("http://127.0.0.1:8000/seat?t=")
    assert [(a["label"], a["move"]) for a in links["one_click"]] == [
        ("pick 1 (the default)", {"type": "pick", "value": 1}), ("pick 2", {"type": "pick", "value": 2}),
        ("pick 3", {"type": "pick", "value": 3})]
    assert links["one_click"][0]["url"].startswith("http://127.0.0.1:8000/act?t=")
    payload = _links(app).open("act", _token(links["one_click"][0]["url"]), 60)
    decision = _table(app, game_id).decision_of(0)
    assert payload["g"] == game_id and payload["s"] == 0 and payload["d"] == decision["since"]
    assert payload["x"] == int(games.deadlines.parse(decision["deadline_at"]).timestamp())


def test_opening_a_link_never_acts(app, client, toy):
    game_id, _ = toy
    links = _answers(app, game_id, 0)
    url = _path(links["one_click"][0]["url"])
    before = len(_log(app, game_id))
    for _ in range(3):
        page = client.get(url)
        assert page.status_code == 200 and b'method="post"' in page.data and b"pick 1" in page.data
        assert client.head(url).status_code == 200
    assert client.get(_path(links["seat"])).status_code == 200  # the seat link only asks, too
    assert len(_log(app, game_id)) == before
    assert _table(app, game_id).decision_of(0) is not None
    assert page.headers["Cache-Control"] == "no-store" and page.headers["Referrer-Policy"] == "no-referrer"


def test_the_confirm_plays_once_and_a_replay_shows_the_same_result(app, client, toy):
    game_id, _ = toy
    token = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    before = len(_log(app, game_id))
    first = client.post("/act", data={"t": token})
    second = client.post("/act", data={"t": token})
    assert first.status_code == second.status_code == 200
    assert b"Done: pick 1" in first.data and b"Done: pick 1" in second.data
    assert first.headers["Cache-Control"] == "no-store" and first.headers["Referrer-Policy"] == "no-referrer"
    log = _log(app, game_id)
    assert len(log) == before + 1 and log[-1]["seat"] == 0 and log[-1]["move"] == {"type": "pick", "value": 1}
    assert client.get(f"/act?t={token}").status_code == 409, "a used link shows the game as it is now"


def test_other_seats_moves_do_not_make_a_link_stale(app, client, toy):
    game_id, tokens = toy
    token = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    version = _table(app, game_id).version
    _play(app, client, game_id, tokens, {1: {"type": "pick", "value": 3}})
    assert _table(app, game_id).version > version
    assert client.post("/act", data={"t": token}).status_code == 200
    assert _log(app, game_id)[-1]["seat"] == 0


def test_a_tampered_or_forged_link_is_refused(app, client, toy):
    game_id, _ = toy
    token = _token(_answers(app, game_id, 1)["one_click"][0]["url"])
    other_secret = URLSafeTimedSerializer("another-secret-" + "y" * 40, salt="palazzo:act").dumps(
        _act_payload(app, game_id, 1, {"type": "pick", "value": 1}))
    before = len(_log(app, game_id))
    for bad in (token[:-3] + "abc", _with_payload(token, m={"type": "pick", "value": 3}), other_secret, "", "x" * 5000):
        assert client.get(f"/act?t={bad}").status_code == 403
        refused = client.post("/act", data={"t": bad})
        assert refused.status_code == 403 and b"not a link we sent" in refused.data
    assert len(_log(app, game_id)) == before


def test_a_link_acts_for_its_own_seat_only(app, client, toy):
    game_id, _ = toy
    token = _token(_answers(app, game_id, 1)["one_click"][0]["url"])
    other = new_game(client)["game"]["id"]
    before, other_before = len(_log(app, game_id)), len(_log(app, other))
    for forged in (_with_payload(token, s=0), _with_payload(token, g=other)):
        assert client.post("/act", data={"t": forged}).status_code == 403
    assert client.post("/act", data={"t": token}).status_code == 200
    log = _log(app, game_id)
    assert len(log) == before + 1 and log[-1]["seat"] == 1
    assert _table(app, game_id).decision_of(0) is not None, "seat 0 still has its pick to make"
    assert len(_log(app, other)) == other_before


def test_links_made_for_another_purpose_do_not_act(app, client):
    created = new_game(client, emails=True)
    game_id = created["game"]["id"]
    links = _links(app)
    sign_in = mailed_link(app, "p0@example.org")
    act_shaped = _act_payload(app, game_id, 0, {"type": "pick", "value": 1})
    seat_link = _token(_answers(app, game_id, 0)["seat"])
    act_link = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    before = len(_log(app, game_id))
    for foreign in (sign_in, links.sign("sign-in", act_shaped), links.sign("seat", act_shaped), seat_link):
        assert client.get(f"/act?t={foreign}").status_code == 403
        assert client.post("/act", data={"t": foreign}).status_code == 403
    assert client.get(f"/seat?t={act_link}").status_code == 403
    assert client.post("/sign-in", data={"link": act_link}).status_code == 403
    assert len(_log(app, game_id)) == before


def test_a_link_past_its_deadline_plays_nothing(app, client, toy):
    game_id, _ = toy
    expired = _links(app).sign("act", _act_payload(app, game_id, 0, {"type": "pick", "value": 2},
                                                    x=int(time.time()) - 1))
    before = len(_log(app, game_id))
    shown = client.get(f"/act?t={expired}")
    acted = client.post("/act", data={"t": expired})
    assert shown.status_code == acted.status_code == 410
    assert b"expired" in acted.data and b"method=\"post\"" not in shown.data
    title = escape(games.title_of(_table(app, game_id)))
    assert f"{title} (toy-count), seat 1".encode() in acted.data, "the page shows the game as it is now"
    assert b"/act?t=" not in acted.data, "an expired link hands out no fresh ones"
    assert len(_log(app, game_id)) == before and _table(app, game_id).decision_of(0) is not None


def test_a_stale_link_shows_the_current_situation_and_plays_nothing(app, client, toy):
    game_id, tokens = toy
    token = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    _play(app, client, game_id, tokens, {seat: {"type": "pick", "value": 2} for seat in (0, 1, 2)})
    before = _log(app, game_id)
    assert client.get(f"/act?t={token}").status_code == 409
    stale = client.post("/act", data={"t": token})
    assert stale.status_code == 409 and b"This decision has moved on" in stale.data
    assert _log(app, game_id) == before
    assert _table(app, game_id).decision_of(0)["kind"] == "add"
    assert b"add 1 (the default)" in stale.data and b"/act?t=" in stale.data, "with fresh answers"
    fresh = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    assert client.post("/act", data={"t": fresh}).status_code == 200
    assert _log(app, game_id)[-1]["move"] == {"type": "add", "amount": 1}


def test_an_old_link_never_answers_a_later_decision_of_the_same_kind(app, client, toy):
    game_id, tokens = toy
    _play(app, client, game_id, tokens, {0: {"type": "pick", "value": 1}, 1: {"type": "pick", "value": 1},
                                         2: {"type": "pick", "value": 1}})
    old = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    _play(app, client, game_id, tokens, {0: {"type": "add", "amount": 2}})
    _play(app, client, game_id, tokens, {1: {"type": "add", "amount": 2}})
    _play(app, client, game_id, tokens, {2: {"type": "add", "amount": 2}})
    assert _table(app, game_id).decision_of(0)["kind"] == "add", "the same kind again, a new decision"
    before = _log(app, game_id)
    assert client.get(f"/act?t={old}").status_code == 409
    assert client.post("/act", data={"t": old}).status_code == 409
    assert _log(app, game_id) == before


def _play(app, client, game_id: str, tokens: dict[int, str], moves: dict[int, dict]) -> None:
    for seat, move in moves.items():
        response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                               json={"move": move, "version": _table(app, game_id).version})
        assert response.status_code == 200, response.get_json()


def test_a_link_to_a_paused_game_plays_nothing(app, client):
    created = new_game(client)
    game_id = created["game"]["id"]
    token = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    paused = client.post(f"/api/v1/games/{game_id}/pause", headers=bearer(created["tokens"]["host"]),
                         json={"hours": 1})
    assert paused.status_code == 200, paused.get_json()
    before = len(_log(app, game_id))
    acted = client.post("/act", data={"t": token})
    assert acted.status_code == 409 and b"paused" in acted.data
    assert len(_log(app, game_id)) == before


def _pof_game(client, bidding: str = "step") -> tuple[str, dict[int, str]]:
    created = new_game(client, game="princes-of-florence", seats=3, options={"bidding": bidding})
    return created["game"]["id"], seat_tokens(created)


def _play_defaults_until(app, client, game_id: str, tokens: dict[int, str], kind: str) -> int:
    """Answer every pending decision with its default over the API until some seat is to `kind`."""
    for _ in range(50):
        table = _table(app, game_id)
        waiting = [d for d in table.pending if d["kind"] == kind]
        if waiting:
            return waiting[0]["seat"]
        seat = table.pending[0]["seat"]
        move = table.game.default_move(table.state, seat)
        response = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[seat]),
                               json={"move": move, "version": table.version})
        assert response.status_code == 200, response.get_json()
    raise AssertionError(f"no {kind} decision came up")


@pytest.mark.parametrize("bidding", ["step", "open"])
def test_a_bid_offers_stepping_out_raising_by_the_step_and_the_default(app, client, bidding):
    game_id, tokens = _pof_game(client, bidding)
    seat = _play_defaults_until(app, client, game_id, tokens, "bid")
    lot = _table(app, game_id).state["auction"]["lot"]
    raised = lot["bid"] + pof.data.ECONOMY["auction_step"]
    table = _table(app, game_id)
    amounts = [m["amount"] for m in table.game.legal_moves(table.state, seat) if m["type"] == "bid"]
    assert len(amounts) == 1 if bidding == "step" else len(amounts) > 1
    offered = {a["label"]: a["move"] for a in _answers(app, game_id, seat)["one_click"]}
    assert offered == {"Step out of this auction (the default)": {"type": "step_out"},
                       f"Bid {raised} (raise by the step)": {"type": "bid", "amount": raised}}
    raise_url = next(a["url"] for a in _answers(app, game_id, seat)["one_click"] if a["move"]["type"] == "bid")
    page = client.get(_path(raise_url))
    assert page.status_code == 200 and f"Bid {raised}".encode() in page.data
    assert f"stands at {lot['bid']}".encode() in page.data
    before = len(_log(app, game_id))
    done = client.post("/act", data={"t": _token(raise_url)})
    assert done.status_code == 200, done.data
    log = _log(app, game_id)
    assert log[before]["seat"] == seat and log[before]["move"] == {"type": "bid", "amount": raised}
    assert _table(app, game_id).state["auction"]["lot"]["bid"] == raised


def test_the_seat_page_shows_the_decision_from_the_seats_own_view(app, client):
    game_id, _ = _pof_game(client)
    state = _table(app, game_id).state
    own = {p.replace("_", " ") for p in state["pending"][0]["private"]["dealt"]}
    others = {p.replace("_", " ") for d in state["pending"][1:] for p in d["private"]["dealt"]} - own
    assert others, "the seats were dealt different professions"
    entered = follow_seat_link(client, _answers(app, game_id, 0)["seat"])
    assert entered.status_code == 303  # the seat link's button signs in and leads to the seat page
    page = client.get(entered.headers["Location"])
    text = page.data.decode()
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    assert "Round 1" in text and "3,500 florins" in text and "Keep " in text
    assert all(name in text for name in own) and not any(name in text for name in others)
    assert client.get(_path(_answers(app, game_id, 0)["seat"]) + "x").status_code == 403


def test_a_link_does_not_show_the_move_it_plays(app, client):
    """The opening choice names the professions a seat keeps: his secret, never in a URL."""
    created = new_game(client, game="princes-of-florence", seats=3)
    game_id = created["game"]["id"]
    [answer] = _answers(app, game_id, 0)["one_click"]
    payload, _ = _payload(_token(answer["url"]))
    assert answer["move"]["type"] == "keep_professions"
    assert not any(name in json.dumps(payload) for name in answer["move"]["professions"])


def test_a_seat_handed_over_takes_its_old_links_with_it(app, client):
    """Bob's one-click links, seat link and mailed answers die when the host gives his seat away: they
    show nothing of the newcomer's seat and play nothing for him."""
    created = new_game(client, game="princes-of-florence", seats=3, emails=True)
    game_id = created["game"]["id"]
    old = _answers(app, game_id, 1)
    cash = f"{pof.data.ECONOMY['start_cash']:,}".encode()
    assert client.get(_path(old["one_click"][0]["url"])).status_code == 200
    host = bearer(created["tokens"]["host"])
    handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=host,
                        json={"name": "Newcomer", "email": "new@example.org"})
    assert handed.status_code == 200, handed.get_json()
    before = _table(app, game_id)
    for url in (old["one_click"][0]["url"],):
        shown, acted = client.get(_path(url)), client.post("/act", data={"t": _token(url)})
        for page in (shown, acted):
            assert page.status_code == 403 and b"handed to someone else" in page.data
            assert cash not in page.data and b"/seat?t=" not in page.data and b"/act?t=" not in page.data
    assert client.get(_path(old["seat"])).status_code == 403
    assert _table(app, game_id).rev == before.rev, "nothing was played for the newcomer"
    fresh = _answers(app, game_id, 1)
    assert client.get(_path(fresh["one_click"][0]["url"])).status_code == 200, "the newcomer's own links work"


def test_a_seat_handed_away_and_back_to_the_same_address_keeps_the_first_links_dead(app, client):
    """Bob's seat goes to another address, then back to Bob's: his address, which a seat link is bound
    to, is the seat's again, and the decision is the same one, so only the holder generation tells the
    links of his first turn at the seat from those of his second."""
    created = new_game(client, game="princes-of-florence", seats=3, emails=True)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    old = _answers(app, game_id, 1)
    for name, email in (("Newcomer", "new@example.org"), ("P1", "p1@example.org")):
        handed = client.put(f"/api/v1/games/{game_id}/seats/1", headers=host, json={"name": name, "email": email})
        assert handed.status_code == 200, handed.get_json()
    before = _table(app, game_id)
    url = old["one_click"][0]["url"]
    shown, acted = client.get(_path(url)), client.post("/act", data={"t": _token(url)})
    assert (shown.status_code, acted.status_code) == (403, 403) and b"handed to someone else" in acted.data
    assert client.get(_path(old["seat"])).status_code == 403
    assert _table(app, game_id).rev == before.rev, "nothing was played"
    fresh = _answers(app, game_id, 1)
    assert client.get(_path(fresh["one_click"][0]["url"])).status_code == 200
    assert client.get(_path(fresh["seat"])).status_code == 200, "his new links work"

def test_no_act_page_hands_out_a_seat_link(app, client, toy):
    game_id, tokens = toy
    token = _token(_answers(app, game_id, 0)["one_click"][0]["url"])
    shown = client.get(f"/act?t={token}")
    done = client.post("/act", data={"t": token})
    again = client.get(f"/act?t={token}")
    assert (shown.status_code, done.status_code, again.status_code) == (200, 200, 409)
    for page in (shown, done, again):
        assert b"/seat?t=" not in page.data, "an act link is forwarded and scanned: it is no way into the seat"
        assert f"/games/{game_id}".encode() in page.data
