"""Every name a person reads comes from the game's one table of words (engine/pof/words.py): whole
random games are played, and every mail of every kind, every page a seat and a spectator see, every
label, reply answer, refusal, grammar note and log sentence is searched for raw ids ("organ_builder",
"per_building_size", "open prestige_card", "enticement" for the enticement card)."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser

import pytest

from engine.bots import choose_move
from engine.core import Unreadable, answers, read_commands, redact
from engine.pof import GAME
from engine.pof.data import AUCTION_ITEMS, DATA
from engine.pof.grammar import GRAMMAR
from engine.pof.words import CARD_RECORDS, NAMES, name
from service import games
from service.links import Links
from service.mail import render
from service import story
from service.mailed_links import answer_links
from tests.conftest import new_game
from tests.web_client import enter_seat, play_game, table

URL = re.compile(r"https?://\S+|\S+@\S+")
RAW = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # an id with an underscore ("organ_builder")
DATA_IDS = {record["id"] for records in CARD_RECORDS for record in DATA[records]} | set(AUCTION_ITEMS)
RENAMED = sorted(thing for thing in DATA_IDS if "_" not in thing and name(thing).lower() != thing)  # "enticement"
SAID = re.compile("|".join(re.escape(said) for said in sorted(set(NAMES.values()), key=len, reverse=True)), re.I)


class _Visible(HTMLParser):
    """What a person reads of a page or an HTML mail: its text, and the attributes shown or spoken
    (a button's value, titles, labels for screen readers), not scripts, styles or form values."""

    SPOKEN = ("aria-label", "title", "alt", "placeholder")

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag in ("script", "style"):
            self.hidden += 1
        self.parts += [found[key] or "" for key in self.SPOKEN if key in found]
        if tag == "input" and found.get("type") in ("submit", "button"):
            self.parts.append(found.get("value") or "")

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return "\n".join(parser.parts)


def raw_ids(text: str) -> list[str]:
    """The raw ids a person would read in the text (links and addresses aside)."""
    text = URL.sub(" ", text)
    unnamed = SAID.sub(" ", text)
    return RAW.findall(text) + [thing for thing in RENAMED if re.search(rf"\b{thing}\b", unnamed, re.I)]


def test_the_search_finds_what_players_saw_before_the_table():
    assert RENAMED == ["enticement"]
    for text in (
        "Keep organ_builder",
        "open prestige_card",
        "Keep per_woods, return most_lakes",
        "open enticement",
        "<p>the <b>bell_maker</b></p>",
    ):
        assert raw_ids(visible(text)), text
    for text in (
        "Keep the enticement card for later",
        "Enticement cards: 2",
        "+2 per building size",
        "https://palazzo.example/seat?t=a_b_c",
        "play+ab_cd@palazzo.example",
        '<input name="a_b" value="x_y">',
    ):
        assert not raw_ids(visible(text)), text


SEATS = ["Ann", "Bea", "Cid", "Dan", "Eve"]
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
DEADLINE = (NOW + timedelta(hours=11)).strftime("%Y-%m-%dT%H:%M:%SZ")
LINKS = Links("x" * 40, "https://palazzo.example")
WRONG = [
    "end",
    "pass",
    "bid",
    "bid 100000",
    "discard",
    "keep enticement card",
    "buy freedom travel",
    "buy profession",
    "buy bonus card",
    "build tower at A1 B1 C1",
    "build university at A1",
    "publish bell maker without bonus",
    "publish organ builder",
    "choose most woods",
    "choose B05 return B01",
    "keep bell maker map maker organ builder",
    "entice organ builder",
    "open prestige card",
    "open enticement card",
    "open architect",
    "prestige 9",
    "sell 9",
    "place at A1",
    "place at A1 B1 C1",
    "open p",
    "keep x",
    "byu bonus card",
    "buy freedom travel\nend\nend",
    "choose most",
]


def _reply(state: dict, seat: int, full: bool = False) -> render.Reply:
    found = answers(GAME, state, seat, full)
    return {
        "address": "play+g-0-tag@palazzo.example",
        "commands": found.commands,
        "notes": found.notes,
        "picture": found.picture,
        "guide": GRAMMAR.guide,
    }


def _table(state: dict) -> games.Table:
    pending = [{**decision, "since": 7, "deadline_at": DEADLINE} for decision in GAME.pending(state)]
    seats = [{"name": SEATS[seat], "email": f"p{seat}@example.org"} for seat in range(len(state["players"]))]
    return games.Table("g1", 7, 7, games.RUNNING, {"game": GAME.name, "seats": seats}, state, pending, game=GAME)


def _reasons(state: dict, seat: int) -> list[str]:
    """What a player is told for lines that are wrong now: the grammar's and the rules' refusals."""
    told = []
    for text in WRONG:
        try:
            read_commands(GAME, GRAMMAR.parse(text), state, seat)
        except Unreadable as refused:
            told.append(refused.message)
    return told


def _mails(state: dict, count: int, shown: list[str]) -> None:
    """Every mail kind the seats of this state get, and what their replies are answered."""
    table = _table(state)
    frame = render.Table(table.id, SEATS[: len(state["players"])], "palazzo.example", "Ann's game")
    for pending in table.pending:
        seat = pending["seat"]
        to = render.Recipient(f"p{seat}@example.org", SEATS[seat], seat, "Europe/Rome")
        view = GAME.view(state, seat)
        links = {
            **answer_links(LINKS, table, seat),
            "seat": "https://palazzo.example/seat?t=x",
            "unsubscribe": "https://palazzo.example/unsubscribe?t=y",
        }
        mail = render.decision(
            view, pending, frame, to, links, NOW, GAME.default_move(state, seat), _reply(state, seat)
        )
        shown += [mail.subject, mail.text, visible(mail.html)]
        if count % 7 == 0:
            reminder = render.reminder(view, pending, frame, to, links, NOW, None, _reply(state, seat))
            parts = [render.decision_part(view, pending, frame, to, links, NOW, None, _reply(state, seat), reminder=r)
                     for r in (False, True)]
            together = render.merged(parts, to.email, "palazzo.example")
            shown += [together.subject, together.text, visible(together.html), visible(reminder.html)]
        reasons = _reasons(state, seat)
        shown += reasons
        legal = GAME.legal_moves(state, seat)
        outcomes = [
            {"kind": "done", "done": [GAME.describe(move) for move in legal[:3]], "ignored": ["Thanks, Ann"]},
            {
                "kind": "refused",
                "reason": reasons[count % len(reasons)],
                "line": WRONG[count % len(WRONG)],
                "done": [GAME.describe(legal[0])],
            },
            {"kind": "help"},
            {"kind": "stale"},
            {"kind": "closed", "reason": "The game is paused."},
            {"kind": "not_yours", "reason": "it came from another address"},
            {"kind": "leave", "confirm_url": "https://palazzo.example/leave?t=z"},
        ]
        outcome = outcomes[count % len(outcomes)]
        answered = render.answer(
            view, pending, frame, to, links, NOW, outcome, _reply(state, seat, full=outcome["kind"] == "help")
        )
        shown += [answered.subject, answered.text, visible(answered.html)]
        if count % 5 == 0:
            welcome = render.welcome(view, table.pending, frame, to, links, NOW, SEATS[(seat + 1) % len(SEATS)],
                                     _reply(state, seat))
            shown += [welcome.subject, welcome.text, visible(welcome.html)]


@pytest.mark.parametrize(
    "seats, options, seed", [(3, {}, 21), (4, {"bidding": "open"}, 22), (5, {"auction_pass": True}, 23)]
)
def test_no_mail_label_answer_or_sentence_of_whole_games_shows_a_raw_id(seats, options, seed):
    opts = GAME.normalize_options({"seats": seats, **options})
    state = GAME.new_state(opts, GAME.make_setup(opts, seed))
    rng = random.Random(seed)
    shown: list[str] = []
    count = 0
    while GAME.result(state) is None:
        _mails(state, count, shown)
        seat = GAME.pending(state)[0]["seat"]
        shown += [GAME.describe(move) for move in GAME.legal_moves(state, seat)]
        move = choose_move(rng.choice(["random", "greedy"]), GAME, state, seat, rng)
        before, (state, events) = state, GAME.apply(state, seat, move)
        for reader in [None, *range(seats)]:
            shown += [story.told(GAME, redact(event, reader), SEATS, reader) for event in events]
        if before["round"] != state["round"] or GAME.result(state):
            for reader in (None, seat):
                to = render.Recipient("x@example.org", "Host" if reader is None else SEATS[reader], reader)
                mail = render.round_result(
                    GAME.view(state, reader), render.Table("g1", SEATS[:seats], "p.example", "Ann's game"), to, {}
                )
                shown += [mail.subject, mail.text, visible(mail.html)]
        count += 1
    for seat in range(seats):
        to = render.Recipient("x@example.org", SEATS[seat], seat)
        frame = render.Table("g1", SEATS[:seats], "p.example", "Ann's game")
        mail = render.game_over(GAME.view(state, seat), frame, to, {})
        shown += [mail.subject, mail.text, visible(mail.html)]
    for mail in (
        render.sign_in("a@example.org", "https://p.example/sign-in?link=s", "s", "p.example"),
        render.invitation("a@example.org", "Ann", 0, "g1", "https://p.example/sign-in?link=s", "s", "p.example",
                          title="Ann's game", played="Princes of Florence"),
        render.host_link("a@example.org", "g1", "https://p.example/sign-in?link=s", "s", "p.example",
                         title="Ann's game"),
        *(render.seat_left("a@example.org", "Ann", "g1", "Ann's game", why, reason, "https://p.example/games/g1/watch",
                           "p.example")
          for why, reason in (("left", None), ("removed", "Gone."), ("missed", "missed 3 decisions in a row"))),
    ):
        shown += [mail.subject, mail.text, visible(mail.html)]
    found = sorted({raw for text in shown for raw in raw_ids(text)})
    assert count > 50 and len(shown) > 2000
    assert not found, found


def test_no_page_of_a_whole_game_shows_a_raw_id(app, client):
    """One seat is played through its pages alone (every decision, placing and publishing previews
    included) against two bots; every page it is shown, and the spectator's and log pages, are searched."""
    created = new_game(client, game="princes-of-florence", seats=3, bots={1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    spectator = app.test_client()
    found: dict[str, set[str]] = {}
    count = [0]

    def seen(url: str, html: str) -> None:
        pages = [(url, html)]
        count[0] += 1
        if count[0] % 10 == 0:
            pages += [
                (path, spectator.get(path).get_data(as_text=True))
                for path in (f"/games/{game_id}/watch", f"/games/{game_id}/log")
            ]
        for where, page in pages:
            found[where] = found.get(where, set()) | set(raw_ids(visible(page)))

    play_game(client, game_id, on_page=seen)
    assert table(app, game_id).status == games.FINISHED
    for path in (f"/games/{game_id}", f"/games/{game_id}/watch", f"/games/{game_id}/log"):
        seen(path, client.get(path).get_data(as_text=True))
    assert count[0] > 50 and len(found) > 10
    assert not {where: raw for where, raw in found.items() if raw}
