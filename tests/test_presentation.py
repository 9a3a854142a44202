"""A game is shown through `engine.presentation`: a game that brings none gets the generic mails
(`PlainMails`) and pages; a game's own board partial (package data under games/<name>/) is drawn on them."""
from __future__ import annotations

import re

from engine.core import register
from engine.presentation import (EVERY_ANSWER_MOST, asked, asking, listing, option_fields, options_from_form, presentation_of, seat_namer,
                                 sentence, title_of)
from tests.conftest import SECRET, make_app, new_game, wait_for
from tests.mail_games import mails
from tests.toy_game import GAME as TOY
from tests.toy_game import ToyCount
from tests.web_client import enter_seat

ACT = re.compile(r"(http://\S+/act\?t=[\w.\-]+)")


class ToyBoard:
    """A presentation with a board partial (tests/toy_templates/board.html) and a line of its own."""

    templates = "toy_templates"
    board = "board.html"

    def board_facts(self, view, viewer, names):
        return {"scores": [f"{names[p['seat']]} {p['score']}" for p in view["players"]]}

    def decision_lines(self, view, seat, decision, names):
        return [f"Your score is {view['players'][seat]['score']}."]


class ToyShown(ToyCount):
    name = "toy-shown"
    presentation = ToyBoard()


register(ToyShown())


def test_a_game_without_a_presentation_gets_the_plain_one():
    shown = presentation_of(TOY)
    assert shown.seat_page is None and shown.mails is None and shown.board is None
    assert shown.decision_lines({}, 0, {}, []) == []
    assert sentence(TOY, {"type": "added", "seat": 1, "amount": 2}, ["Ann", "Bea", "Cy"], None) == "Bea: added (amount 2)"
    assert [field["name"] for field in option_fields(TOY)] == ["turns", "bidding", "auction_pass"]
    assert options_from_form(TOY, {"turns": "3", "auction_pass": "true"}, "") == {"turns": 3, "auction_pass": True}


def test_a_part_a_game_leaves_out_is_the_plain_one():
    shown = presentation_of(ToyShown())
    assert shown.board == "board.html" and shown.watch_page is None and shown.picture({}, None) is None


def test_a_game_without_mails_of_its_own_gets_the_generic_decision_mail(redis_url, workers):
    app = make_app(redis_url, JOBS="rq", BOT_DELAY=0)
    client = app.test_client()
    created = new_game(client, game="toy-count", seats=3, emails=True)
    workers(1)
    for to in ("p0@example.org", "p1@example.org", "p2@example.org"):
        wait_for(lambda: any(m["kind"] == "your_turn" for m in mails(app, to)))
        [mail] = [m for m in mails(app, to) if m["kind"] == "your_turn"]
        assert mail["game"] == created["game"]["id"] and "it is your move" in mail["text"]
        assert "a game of toy-count: pick" in mail["text"] and ACT.search(mail["text"]) and ACT.search(mail["html"])


def test_the_seat_and_watch_pages_draw_the_games_own_board(redis_url):
    app = make_app(redis_url, GAMES=["princes-of-florence", "toy-count", "toy-shown"])
    client = app.test_client()
    created = new_game(client, game="toy-shown", seats=3)
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    seat_page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "data-toy-board" in seat_page and "<pre>" not in seat_page
    assert "data-toy-board" in client.get(f"/games/{game_id}/watch").get_data(as_text=True)


def test_the_create_page_offers_each_served_game_with_its_options(client):
    page = client.get("/new").get_data(as_text=True)
    assert "A new game of Princes of Florence" in page and 'href="/new?game=toy-count"' in page
    toy = client.get("/new?game=toy-count").get_data(as_text=True)
    assert "A new game of toy-count" in toy and 'name="turns"' in toy and 'value="toy-count"' in toy
    assert 'name="bidding"' in toy and SECRET not in toy


def test_what_a_decision_asks_and_the_answers_offered_come_from_the_game():
    """A game that says nothing of its decisions gets the generic sentence and, as one-click answers,
    each legal move when they are few (a hand of cards), none when they are many; Princes of Florence says what its auction asks and offers stepping out and the
    smallest raise."""
    from engine import get_game
    import engine.pof  # noqa: F401  (registers it)
    assert asking(TOY, {"pending": []}, {"seat": 0, "kind": "pick"}) == "You have a decision to make: pick."
    few = [{"type": "pick", "n": n} for n in range(EVERY_ANSWER_MOST)]
    assert presentation_of(TOY).answers({"seat": 0, "kind": "pick"}, few) == [("", move) for move in few]
    assert presentation_of(TOY).answers({"seat": 0, "kind": "pick"}, few + [{"type": "pick", "n": 99}]) == []
    pof = get_game("princes-of-florence")
    bids = [{"type": "step_out"}, {"type": "bid", "amount": 400}, {"type": "bid", "amount": 300}]
    assert [move for _, move in presentation_of(pof).answers({"seat": 1, "kind": "bid"}, bids)] == bids[:1] + bids[2:]
    assert presentation_of(pof).answers({"seat": 1, "kind": "action"}, bids) == []
    assert asking(pof, {"pending": []}, {"seat": 1, "kind": "bid"}) == "Raise the bid or step out of the auction."


def test_a_decision_is_asked_with_what_the_seats_own_view_adds():
    view = {"pending": [{"seat": 1, "kind": "keep", "private": {"dealt": ["a"]}}, {"seat": 2, "kind": "keep"}]}
    assert asked(view, {"seat": 1, "kind": "keep", "since": 4}) == {"seat": 1, "kind": "keep", "since": 4,
                                                                    "private": {"dealt": ["a"]}}
    assert listing(["Ann", "Bea", "Cy"]) == "Ann, Bea and Cy" and listing(["Ann"]) == "Ann"
    assert seat_namer(["Ann", "Bea"], 1)(1) == "Bea (you)" and seat_namer(["Ann", "Bea"], 1)(0) == "Ann"
    assert title_of(TOY) == "toy-count"


def test_the_answer_to_a_reply_needs_no_mails_of_the_games_own():
    """A game without `mails` still gets its players' replies answered: what waits for him, in its words."""
    from datetime import datetime, timezone
    from service.mail import render
    options = TOY.normalize_options({"seats": 3})
    state = TOY.new_state(options, TOY.make_setup(options, 1))
    pending = {**TOY.pending(state)[0], "deadline_at": "2025-12-02T17:00:00Z", "since": 1}
    seat = pending["seat"]
    table = render.Table("g1", ["Ann", "Bea", "Cy"], "p.example", "Toy night", TOY.name)
    to = render.Recipient("p@example.org", table.names[seat], seat)
    now = datetime(2025, 12, 2, 6, 0, tzinfo=timezone.utc)
    mail = render.answer(TOY.view(state, seat), pending, table, to, {}, now, {"kind": "stale"})
    assert f"You have a decision to make: {pending['kind']}. Answer by Tuesday 2 December, 17:00 UTC" in mail.text
    assert "Round" not in mail.text and "prestige" not in mail.text + mail.html
