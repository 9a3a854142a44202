"""The seat page over Flask's test client: every legal move is a form, each form posts exactly the
API's move through the one submit path, and bad or stale forms change nothing."""
from __future__ import annotations

import re

import pytest
from werkzeug.datastructures import MultiDict

from engine.pof import scoring
from engine.pof.presentation import words
from service.web import forms
from tests.conftest import assert_replays, bearer, new_game, seat_tokens
from tests.web_client import enter_seat, play_game, send, table, to_action
from tests.web_forms import parse
from tests.web_player import Follow, Page, next_step

pytest.importorskip("engine.pof")


@pytest.fixture
def one_human(app, client):
    """Seat 0 a player (this client holds his seat), seats 1 and 2 bots that move inside requests."""
    created = new_game(client, game="princes-of-florence", seats=3, bots={1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    return game_id


def _page(client, game_id: str, query: str = "") -> Page:
    shown = client.get(f"/games/{game_id}{query}")
    assert shown.status_code == 200
    return Page(shown.get_data(as_text=True))


def _posted_moves(app, page: Page, game) -> list[dict]:
    """The move each POST form of the page would play, read back as the server reads it."""
    moves = []
    for form in page.forms:
        if form.method == "post" and form.action.endswith("/play") and form.move != "set_orders":
            moves.append(forms.move_from(game, MultiDict(form.fields)))
    return moves


def test_a_whole_game_is_played_through_the_pages_alone(app, client, one_human):
    done, pages = play_game(client, one_human)
    assert {"landscape", "build", "publish with a bonus card"} <= done
    final = table(app, one_human)
    assert final.status == "finished"
    store = app.extensions["palazzo.store"]
    mine = [entry["move"] for entry in store.log(one_human) if entry["seat"] == 0]
    kinds = {move["type"] for move in mine}
    assert {"keep_professions", "open_auction", "place_landscape", "build", "publish", "end_turn"} <= kinds
    assert any(move["type"] == "publish" and move["bonus_cards"] for move in mine)
    won = [e["event"] for e in store.events(one_human, 0, 10_000)[0] if e["event"]["type"] == "auction_won"]
    assert any(event["seat"] == 0 for event in won)
    assert_replays(app, one_human)
    over = _page(client, one_human)
    assert over.decision == "none" and 'id="scores"' in over.html
    assert all(re.search(rf">{re.escape(card)}<|{re.escape(card)} \(", over.html) for card in
               [words.name(c["card"]) for s in final.state["result"]["scores"] for c in s["prestige_cards"]])


def test_every_form_posts_a_move_the_rules_list_now(app, client, one_human):
    """At each decision of a game, the simple forms post legal moves, and all legal ones are offered."""
    seen_kinds = set()
    for _ in range(60):
        now = table(app, one_human)
        decision = now.decision_of(0)
        if decision is None:
            break
        page = _page(client, one_human)
        legal = now.game.legal_moves(now.state, 0)
        posted = _posted_moves(app, page, now.game)
        for move in posted:
            if move["type"] != "sell_prestige":  # free: never listed, any number up to the seat's prestige
                assert move in legal, move
        for move in legal:
            if move["type"] in ("keep_professions", "open_auction", "step_out", "end_turn", "buy_freedom",
                                "buy_profession", "buy_bonus_card", "keep_enticement", "entice"):
                assert move in posted, move
        if decision["kind"] == "bid":
            assert any(m["type"] == "bid" for m in posted) == any(m["type"] == "bid" for m in legal)
        seen_kinds.add(decision["kind"])
        step = page.submit("end_turn") or page.submit("step_out") or page.submit(
            "keep_professions") or page.submit("open_auction") or page.submit("choose_card") or page.submit(
            "split_payout") or page.submit("discard_landscape") or page.submit("keep_enticement")
        assert send(client, step.form).status_code == 303
    assert {"keep_professions", "open_auction", "action"} <= seen_kinds


def test_a_stale_form_is_refused_and_the_page_redrawn(app, client, one_human):
    page = _page(client, one_human)
    keep = page.submit("keep_professions")
    assert send(client, keep.form).status_code == 303
    before = len(app.extensions["palazzo.store"].log(one_human))
    other = next(f for i, f in enumerate(page.forms) if f.move == "keep_professions" and i != keep.index)
    stale = send(client, other)  # another answer on the page drawn before the game moved on
    assert stale.status_code == 409
    redrawn = Page(stale.get_data(as_text=True))
    assert "moved on" in redrawn.html and "nothing was played" in redrawn.html
    assert redrawn.decision == "open_auction" and redrawn.main["data-version"] == str(table(app, one_human).version)
    assert len(app.extensions["palazzo.store"].log(one_human)) == before


def test_a_double_submit_plays_once(app, client, one_human):
    keep = _page(client, one_human).submit("keep_professions")
    first, second = send(client, keep.form), send(client, keep.form)
    assert (first.status_code, second.status_code) == (303, 303)
    kept = [e for e in app.extensions["palazzo.store"].log(one_human) if e["seat"] == 0]
    assert len(kept) == 1


@pytest.mark.parametrize("changes, status, words", [
    ({"type": "teleport"}, 422, "no move called"),
    ({"professions": ["astronomer"]}, 422, "refused"),
    ({"professions": ["nobody", "astronomer", "poet"]}, 422, "could not be read (professions 1: Must be one of"),
    ({"version": "seven"}, 400, "version"),
    ({"csrf": "forged"}, 403, "nothing was done"),
])
def test_bad_input_gets_a_clear_page_and_changes_nothing(app, client, one_human, changes, status, words):
    keep = _page(client, one_human).submit("keep_professions")
    before = table(app, one_human).rev
    answer = send(client, keep.form, **changes)
    assert answer.status_code == status
    assert words in answer.get_data(as_text=True)
    assert table(app, one_human).rev == before


def test_a_page_without_a_seat_here_is_the_spectators(app, client, one_human):
    other = app.test_client()
    answer = other.get(f"/games/{one_human}")
    assert answer.status_code == 303 and answer.headers["Location"].endswith(f"/games/{one_human}/watch")
    keep = _page(client, one_human).submit("keep_professions")
    data = dict(keep.form.data())
    data["csrf"] = re.search(r'name="csrf" value="([^"]+)"', other.get("/sign-in").get_data(as_text=True)).group(1)
    refused = other.post(f"/games/{one_human}/play", data=data)
    assert refused.status_code == 403 and "hold no seat" in refused.get_data(as_text=True)


def test_placing_offers_exactly_the_legal_places_and_previews_before_building(app, client, one_human):
    to_action(app, client, one_human)
    now = table(app, one_human)
    legal = [m for m in now.game.legal_moves(now.state, 0) if m["type"] == "build" and m["building"] == "tower"]
    choose = _page(client, one_human, "?piece=tower")
    turns = re.findall(r'data-turn="(\d+)"', choose.html)
    offered = []
    for turn in turns:
        shown = _page(client, one_human, f"?piece=tower&turn={turn}")
        offered += [href for href in shown.anchors()]
        select = shown.form("build")[1]
        assert len(select.selects["squares"]) == len(shown.anchors())
    assert len(offered) == len(legal)
    preview = _page(client, one_human, "?" + offered[0].split("?")[1].split("#")[0])
    assert "Preview: the tower on" in preview.html and 'class="ghost"' in preview.html
    confirm = preview.submit("build", "Build the tower")
    move = forms.move_from(now.game, MultiDict(confirm.form.fields))
    assert move in legal
    assert send(client, confirm.form).status_code == 303
    assert [e for e in app.extensions["palazzo.store"].log(one_human) if e["seat"] == 0][-1]["move"] == move
    assert any(b["kind"] == "tower" for b in table(app, one_human).state["players"][0]["buildings"])


def test_the_publish_preview_shows_the_rules_value_before_publishing(app, client, one_human):
    """Play on through the pages until a work may be published with bonus cards; preview, then publish."""
    done: set[str] = set()
    for _ in range(400):
        page = _page(client, one_human)
        if page.form("publish", post=False):
            break
        step = next_step(page, done)
        while isinstance(step, Follow):
            page = _page(client, one_human, "?" + step.href.split("?")[1].split("#")[0])
            step = next_step(page, done)
        assert send(client, step.form, **step.changes).status_code in (200, 303)
    else:
        raise AssertionError("no work could be published with bonus cards")
    now = table(app, one_human)
    me = now.state["players"][0]
    index, pick = page.form("publish", post=False)
    profession = dict(pick.fields)["publish"]
    for cards in ([], me["private"]["bonus_cards"][:1], me["private"]["bonus_cards"]):
        query = "&".join([f"publish={profession}", *[f"bonus_cards={card}" for card in cards]])
        shown = _page(client, one_human, f"?{query}")
        value = scoring.work_value(me, profession, cards)
        assert f"the work is worth <strong>{value}</strong>" in shown.html
        confirm = shown.submit("publish", "Publish a work")
        confirmed = confirm is not None and "confirm" in confirm.form.attrs["class"]
        assert confirmed == (value >= now.game.view(now.state, 0)["min_work_value"])
    assert confirmed
    move = forms.move_from(now.game, MultiDict(confirm.form.fields))
    assert move == {"type": "publish", "profession": profession, "bonus_cards": me["private"]["bonus_cards"]}
    assert send(client, confirm.form).status_code == 303
    assert app.extensions["palazzo.store"].log(one_human)[-1]["move"] == move


def test_standing_orders_are_set_from_the_page_and_seen_by_their_owner_only(app, client, one_human):
    page = _page(client, one_human)
    orders = page.submit("set_orders", "Save standing orders")
    answer = send(client, orders.form, **{"limits.juggler": "700", "step_out_otherwise": "true"})
    assert answer.status_code == 303
    mine = table(app, one_human).state["players"][0]["private"]["orders"]
    assert mine["limits"] == {"juggler": 700} and mine["step_out_otherwise"] is True
    assert 'value="700"' in _page(client, one_human).html
    assert not re.search(r"\b700\b", app.test_client().get(f"/games/{one_human}/watch").get_data(as_text=True))
    cancel = _page(client, one_human).submit("set_orders", "Cancel standing orders")
    assert send(client, cancel.form).status_code == 303
    assert table(app, one_human).state["players"][0]["private"]["orders"] is None


def test_the_generic_page_plays_any_game(app, client):
    created = new_game(client, game="toy-count", seats=3)
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    page = _page(client, game_id)
    pick = next(form for form in page.forms if form.move == "pick")
    assert send(client, pick).status_code == 303
    assert table(app, game_id).decision_of(0) is None
    response = client.get(f"/api/v1/games/{game_id}", headers=bearer(seat_tokens(created)[0]))
    assert response.get_json()["view"]["players"][0]["picked"] is True
    assert parse(client.get(f"/games/{game_id}/watch").get_data(as_text=True))[0]["data-page"] == "watch"
