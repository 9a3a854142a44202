"""Mails rendered from real seats' views of a real Princes of Florence game played by bots."""
from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta, timezone

import pytest

from engine.bots import choose_move
from engine.pof import GAME
from engine.pof.data import ECONOMY
from engine.pof.presentation import phrases as game_phrases
from service import phrases
from service.mail import render
from service.mail.message import Mail

SEATS = 3
NAMES = ["Ann", "Bea <script>alert(1)</script>", "Cid"]
TITLE = "Ann & <Bea>'s game"  # a title as typed: escaped in HTML, as it is in text
TABLE = render.Table("e1f24b4c321c85fa", NAMES, "palazzo.example", TITLE)
DEADLINE = "2025-12-02T17:00:00Z"  # 18:00 in Rome (CET)
NOW = datetime(2025, 12, 2, 6, 0, tzinfo=timezone.utc)  # 11 hours before
ROOT = "<game-e1f24b4c321c85fa@palazzo.example>"


def links(seat: int) -> render.MailLinks:
    base = "https://palazzo.example"
    return {
        "seat": f"{base}/games/g/seats/{seat}?t=a&u=b",
        "one_click": [{"label": "Step out of this auction", "url": f"{base}/one-click?m=1&s={seat}"},
                      {"move": {"type": "bid", "amount": 300}, "url": f"{base}/one-click?m=2&s={seat}"}],
        "unsubscribe": f"{base}/unsubscribe?s={seat}&x=1",
    }


def play_until(stop, seed: int = 7) -> tuple[dict, list[dict]]:
    """Greedy bots play a 3-seat game until `stop(state, events)` holds; the state then and the last events."""
    options = GAME.normalize_options({"seats": SEATS})
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(SEATS)]
    events: list[dict] = []
    while not stop(state, events):
        assert GAME.result(state) is None, "the game ended before the wanted moment"
        seat = GAME.pending(state)[0]["seat"]
        state, events = GAME.apply(state, seat, choose_move("greedy", GAME, state, seat, rngs[seat]))
    return state, events


def waiting(kind: str):
    return lambda state, events: bool(state["pending"]) and state["pending"][0]["kind"] == kind


def decision_mail(kind: str, time_zone: str = "Europe/Rome", mail=render.decision, now: datetime = NOW):
    """The mail for the first `kind` decision of the game, from the deciding seat's own view."""
    state, _ = play_until(waiting(kind))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, time_zone)
    return state, seat, mail(GAME.view(state, seat), pending, TABLE, to, links(seat), now,
                             GAME.default_move(state, seat))


def both(mail: Mail) -> str:
    return mail.text + mail.html


@pytest.fixture(scope="module")
def finished():
    return play_until(lambda state, events: GAME.result(state) is not None)[0]


@pytest.fixture(scope="module")
def after_round_one():
    return play_until(lambda state, events: any(e["type"] == "best_work" for e in events))


@pytest.mark.parametrize("kind, expected", [
    ("bid", "your_bid"), ("action", "your_turn"), ("open_auction", "your_turn"),
    ("keep_professions", "choose"), ("choose_card", "choose"), ("place_landscape", "choose"),
    ("split_payout", "choose"), ("use_enticement", "choose"),
])
def test_each_decision_gets_its_mail_in_text_and_html(kind, expected):
    _, seat, mail = decision_mail(kind)
    assert mail.kind == expected and mail.game == TABLE.game_id and mail.seat == seat
    assert mail.to == f"p{seat}@example.org" and mail.subject.endswith(f" · {TITLE}")
    assert f"“{TITLE}”" in mail.text, "named by its title"
    assert "“Ann &amp; &lt;Bea&gt;&#39;s game”" in mail.html, "and escaped in HTML"
    assert mail.text.strip() and mail.html.startswith("<!DOCTYPE html>") and mail.html.rstrip().endswith("</html>")
    assert "Tuesday 2 December, 18:00 CET" in mail.text and "in 11 hours" in mail.text
    assert "Tuesday 2 December, 18:00 CET" in mail.html and "in 11 hours" in mail.html


def test_bid_mail_names_the_item_the_bid_and_who_is_still_in():
    state, seat, mail = decision_mail("bid")
    lot = GAME.view(state, seat)["auction"]["lot"]
    item = game_phrases.name(lot["item"])
    assert mail.subject.startswith(f"Your bid: the {item} stands at {lot['bid']}")
    assert f"On offer: the {item}" in mail.text and f"The bid stands at {lot['bid']}" in mail.text
    assert f"the next bid is {lot['bid'] + 100}" in mail.text
    still_in = [("you" if other == seat else NAMES[other]) for other in lot["in"]]
    assert f"Still in: {game_phrases.listing(still_in)}." in mail.text
    me = GAME.view(state, seat)["players"][seat]
    assert seat != 0 and f"You have {me['private']['cash']:,} florins and {me['prestige']} prestige" in mail.text
    assert f"<strong>the {item}</strong>" in mail.html and f"<strong>{lot['bid']}</strong>" in mail.html
    assert "Palazzo plays for you: Step out of this auction." in mail.text  # describe() of the default move


def test_turn_mail_shows_the_round_the_minimum_work_value_and_the_seats_own_means():
    state, seat, mail = decision_mail("action")
    me = GAME.view(state, seat)["players"][seat]
    assert f"it is your turn in round {state['round']} of 7" in mail.text
    assert f"You have {me['private']['cash']:,} florins and {me['prestige']} prestige points" in mail.text
    assert f"at least {GAME.view(state, seat)['min_work_value']}" in mail.text
    left = ECONOMY["actions_per_turn"] - state["turn"]["actions"]
    assert f"{game_phrases.NUMBERS[left]} of two actions left" in mail.text
    assert f"<strong>{me['private']['cash']:,} florins</strong>" in mail.html


@pytest.mark.parametrize("kind, facts", [
    ("keep_professions", lambda d: [game_phrases.name(p) for p in d["private"]["dealt"]]),
    ("choose_card", lambda d: [game_phrases.shown(c) for c in d["private"]["cards"]]),
    ("place_landscape", lambda d: [f"Place your new {d['landscape']}"]),
    ("split_payout", lambda d: [f"Split your payout of {d['payout']:,} florins"]),
])
def test_choice_mail_says_what_there_is_to_choose(kind, facts):
    state, seat, mail = decision_mail(kind)
    [details] = [d for d in GAME.view(state, seat)["pending"] if d["seat"] == seat]
    for fact in facts(details):
        assert fact in mail.text and fact in mail.html


def test_deadline_shows_in_the_players_zone_and_relative_to_now():
    assert "Tuesday 2 December, 12:00 EST" in decision_mail("bid", "America/New_York")[2].text
    assert "Tuesday 2 December, 17:00 UTC" in decision_mail("bid", "Not/AZone")[2].text  # unknown: UTC
    soon = decision_mail("bid", now=NOW + timedelta(hours=10, minutes=15))[2]
    assert "(in 45 minutes)" in soon.text
    summer = datetime(2026, 7, 14, 16, 30, tzinfo=timezone.utc)
    assert phrases.clock(summer, "Europe/Rome") == "Tuesday 14 July, 18:30 CEST"
    assert [phrases.relative(summer, summer - gap) for gap in
            (timedelta(seconds=20), timedelta(minutes=59, seconds=50), timedelta(hours=11, minutes=20),
             timedelta(days=3, hours=2), timedelta(seconds=-5))] == [
        "in less than a minute", "in 1 hour", "in 11 hours", "in 3 days", "already passed"]


def test_every_one_click_link_is_a_button_and_a_line_and_labels_come_from_describe():
    _, seat, mail = decision_mail("bid")
    for label, url in (("Step out of this auction", f"https://palazzo.example/one-click?m=1&s={seat}"),
                       (GAME.describe({"type": "bid", "amount": 300}), f"https://palazzo.example/one-click?m=2&s={seat}")):
        assert f"{label}: {url}\n" in mail.text
        assert re.search(rf'<a href="{re.escape(url.replace("&", "&amp;"))}"[^>]*>{re.escape(label)}</a>', mail.html)
    assert f"Your seat: https://palazzo.example/games/g/seats/{seat}?t=a&u=b" in mail.text


def test_a_mail_shows_nothing_private_to_another_seat():
    state, _ = play_until(waiting("keep_professions"))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 1}
    to = render.Recipient("p0@example.org", NAMES[0], 0)
    mail = render.decision(GAME.view(state, 0), pending, TABLE, to, links(0), NOW)
    mine = state["pending"][0]["private"]["dealt"]
    others = [card for d in state["pending"][1:] for card in d["private"]["dealt"]]
    assert others and not set(others) & set(mine)
    for card in mine:
        assert game_phrases.name(card) in mail.text
    for card in others:
        assert game_phrases.name(card) not in both(mail) and card not in both(mail)

    state, seat, mail = decision_mail("action")
    public = json.dumps(GAME.view(state, seat)["players"])
    hidden = [card for other in state["players"] if other["seat"] != seat
              for card in other["private"]["hand"] + other["private"]["bonus_cards"] if card not in public]
    assert hidden
    for card in hidden:
        assert card not in both(mail) and game_phrases.name(card) not in both(mail)


def test_a_mail_refuses_the_raw_state_and_another_seats_view():
    state, _ = play_until(waiting("bid"))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    to = render.Recipient("p@example.org", NAMES[seat], seat)
    with pytest.raises(ValueError, match="raw state"):
        render.decision(state, pending, TABLE, to, links(seat), NOW)
    with pytest.raises(ValueError, match="own view"):
        render.decision(GAME.view(state, (seat + 1) % SEATS), pending, TABLE, to, links(seat), NOW)
    with pytest.raises(ValueError, match="own view"):
        render.decision(GAME.view(state, None), pending, TABLE, to, links(seat), NOW)


def test_html_is_escaped_and_text_is_not():
    state, _ = play_until(waiting("keep_professions"))
    pending = {**GAME.pending(state)[1], "deadline_at": DEADLINE, "since": 1}
    to = render.Recipient("p1@example.org", NAMES[1], 1)
    mail = render.decision(GAME.view(state, 1), pending, TABLE, to, links(1), NOW)
    assert "<script>" not in mail.html and "Bea &lt;script&gt;alert(1)&lt;/script&gt;" in mail.html
    assert mail.text.startswith("Bea <script>alert(1)</script>, you have a choice to make")
    assert 'href="https://palazzo.example/unsubscribe?s=1&amp;x=1"' in mail.html


def test_game_mails_thread_under_the_game_and_offer_one_click_unsubscribe():
    _, seat, first = decision_mail("bid")
    _, _, second = decision_mail("bid")
    for mail in (first, second):
        assert re.fullmatch(r"<[0-9a-f]{32}@palazzo\.example>", mail.headers["Message-ID"])
        assert mail.headers["In-Reply-To"] == mail.headers["References"] == ROOT
        assert mail.headers["List-Unsubscribe"] == f"<https://palazzo.example/unsubscribe?s={seat}&x=1>"
        assert mail.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert first.message_id != second.message_id


def test_reminder_repeats_the_decision_under_a_reminder_heading():
    _, seat, mail = decision_mail("bid", mail=render.reminder, now=NOW + timedelta(hours=9))
    _, _, original = decision_mail("bid")
    assert mail.kind == "reminder" and mail.subject == "Reminder: " + original.subject
    assert mail.text.startswith(f"Reminder: {NAMES[seat]}, it is your bid in “{TITLE}”.")
    assert original.text.split("\n", 1)[1].replace("in 11 hours", "in 2 hours") == mail.text.split("\n", 1)[1]
    assert "Reminder: " in mail.html and mail.headers["In-Reply-To"] == ROOT


def test_round_result_tells_everyone_the_best_work_and_the_standings(after_round_one):
    state, events = after_round_one
    [best] = [e for e in events if e["type"] == "best_work"]
    for viewer in (None, 2):
        to = render.Recipient("x@example.org", "Host" if viewer is None else NAMES[viewer], viewer)
        mail = render.round_result(GAME.view(state, viewer), TABLE, to, {"unsubscribe": "https://palazzo.example/u"})
        assert mail.kind == "round_result" and mail.subject.startswith("Round 1 is over")
        winners = game_phrases.listing(sorted(NAMES[seat] for seat in best["seats"]))
        assert f"Best work ({best['value']}): {winners}, +{best['points']} prestige points" in mail.text
        for player in state["players"]:
            assert f"- {NAMES[player['seat']]}: {player['prestige']}\n" in mail.text
            for work in player["works"]:
                assert f"the {game_phrases.name(work['profession'])}, worth {work['value']}" in mail.text
        assert f"Round 2 starts with {NAMES[state['start_player']]}" in mail.text
        assert "Bea &lt;script&gt;" in mail.html and "<script>" not in mail.html
        assert mail.headers["In-Reply-To"] == ROOT and mail.headers["List-Unsubscribe"] == "<https://palazzo.example/u>"


def test_game_over_lists_ranks_scores_and_each_prestige_cards_points(finished):
    result = GAME.result(finished)
    to = render.Recipient("p0@example.org", NAMES[0], 0)
    mail = render.game_over(GAME.view(finished, 0), TABLE, to, {})
    assert any(score["prestige_cards"] for score in result["scores"])
    ranked = sorted(result["scores"], key=lambda s: (s["rank"], s["seat"]))
    lines = mail.text.splitlines()
    positions = [lines.index(f"{s['rank']}. {NAMES[s['seat']]}: {s['prestige']} prestige points, {s['cash']:,} florins")
                 for s in ranked]
    assert positions == sorted(positions)
    for score, at in zip(ranked, positions):
        cards = [f"   prestige card {game_phrases.name(c['card'])}: {c['points']} points" for c in score["prestige_cards"]]
        assert lines[at + 1: at + 1 + len(cards)] == cards
        for card in cards:
            assert f"<li>{card.strip()}</li>" in mail.html
    assert "List-Unsubscribe" not in mail.headers and mail.headers["References"] == ROOT
    with pytest.raises(ValueError, match="not over"):
        render.game_over(GAME.view(play_until(waiting("bid"))[0], 0), TABLE, to, {})


def test_sign_in_and_invitation_mails_carry_the_link_in_text_and_html():
    url = "https://palazzo.example/sign-in?link=eyJl.abc&x=1"
    mail = render.sign_in("ann@example.org", url, "eyJl.abc", "palazzo.example")
    assert mail.kind == "sign_in" and mail.subject == "Your Palazzo sign-in link" and mail.game is None
    assert f"\n  {url}\n" in mail.text and '{"link": "eyJl.abc"}' in mail.text
    assert f'href="{url.replace("&", "&amp;")}"' in mail.html
    assert set(mail.headers) == {"Message-ID"}
    invite = render.invitation("bea@example.org", NAMES[1], 1, "g1", url, "eyJl.abc", "palazzo.example",
                               title="Ann's game", played="Princes of Florence")
    assert invite.subject == "You have a seat in “Ann's game” · Palazzo"
    assert invite.text.startswith("You have been given seat 2 in “Ann's game”, a game of Princes of Florence")
    assert "seat 2 in “Ann&#39;s game”" in invite.html and "Game id: g1" in invite.text
    assert invite.headers["References"] == "<game-g1@palazzo.example>"


def test_an_invitation_carries_only_our_words_and_the_title():
    """Anyone may create a game naming any address: what he typed (the seat's name) must not reach that
    address, or game creation would carry a stranger's text to whoever he likes. The title does, and
    may hold no link (`service.titles`: refused at creation, and a default made of a name that reads
    as one is not used)."""
    typed = "Cheap watches at http://spam.example"
    invite = render.invitation("bea@example.org", typed, 0, "g1", "https://palazzo.example/sign-in?link=x", "x",
                               "palazzo.example", title="Friday game", played="Princes of Florence")
    assert "spam.example" not in invite.text + invite.html + invite.subject
    assert "Cheap watches" not in invite.text + invite.html + invite.subject
    assert "“Friday game”" in invite.subject + invite.text


def test_a_subject_stays_one_line_whatever_a_title_holds():
    """A title is checked when typed; the subject makes any line break or control character a space
    all the same, so no stored text can add a header."""
    to = render.Recipient("p0@example.org", NAMES[0], 0)
    table = render.Table("g1", NAMES, "palazzo.example", "Ann\r\nBcc: all@example.org\x00")
    state, _ = play_until(waiting("bid"))
    mail = render.round_result(GAME.view(state, 0), table, to, {}, finished=1)
    assert mail.subject == "Round 1 is over · Ann  Bcc: all@example.org"
    invite = render.invitation("bea@example.org", "B", 1, "g1", "https://p.example/x", "x", "p.example",
                               title="A\nBcc: b@example.org", played="Princes of Florence")
    assert "\n" not in invite.subject and "\r" not in invite.subject


def test_a_mail_survives_its_json_round_trip():
    _, _, mail = decision_mail("bid")
    assert Mail.from_json(json.loads(json.dumps(mail.to_json()))) == mail
    assert (mail.game, mail.seat, mail.since) == (TABLE.game_id, mail.seat, 3) and mail.seat is not None


def test_a_mail_queued_before_it_named_what_it_was_made_for_still_loads():
    _, _, mail = decision_mail("bid")
    older = {key: value for key, value in mail.to_json().items() if key not in ("holder", "since", "parts")}
    loaded = Mail.from_json(older)
    assert (loaded.holder, loaded.since, loaded.parts) == (None, None, []) and loaded.text == mail.text


def test_the_daily_digest_lists_the_decision_the_rounds_and_the_talk_of_each_game(after_round_one):
    state, _ = after_round_one
    seat = 2
    to = render.Recipient("x@example.org", NAMES[seat], seat, "Europe/Rome")
    mine = links(seat)
    round_part = render.round_part(GAME.view(state, seat), TABLE, to, mine, 1)
    decision_state, decider, _ = decision_mail("bid")
    bidder = render.Recipient("x@example.org", NAMES[decider], decider, "Europe/Rome")
    decision = render.decision_part(GAME.view(decision_state, decider),
                                    {**GAME.pending(decision_state)[0], "deadline_at": DEADLINE, "since": 3},
                                    TABLE, bidder, links(decider), NOW)
    mail = render.digest([decision, round_part], "x@example.org", "palazzo.example")
    assert mail.kind == "digest" and mail.subject == "Your day at Palazzo: 1 game waits for you, 1 round over"
    assert "it is your bid" in mail.text and "Round 1 of 7 is over" in mail.text and "Round 1 of 7 is over" in mail.html
    assert mail.parts == [decision, round_part], "each part is checked again when the digest leaves"
    assert render.remade(mail, [round_part], "palazzo.example").kind == "digest"
    assert render.remade(mail, [], "palazzo.example") is None, "nothing left: no mail"
