"""The HTML part of every mail kind, as a mail program gets it: one well-formed document (parsed
here), and what a reader sees of it in Chromium: each reply command on its own line, the one-click
buttons, no template text. Screenshots of each kind go to build/artefacts/mail/."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser

import pytest

from engine.core import answers
from engine.pof import GAME
from service.mail import render
from service.mail.message import Mail
from tests import goofspiel_helpers as goofspiel
from tests.browser import MAIL_ARTEFACTS, screenshot
from tests.test_mail_render import (
    DEADLINE,
    NAMES,
    NOW,
    TABLE,
    links,
    play_until,
    waiting,
)

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BLOCKS = {"address", "article", "div", "h1", "h2", "h3", "hr", "ol", "p", "pre", "section", "table", "ul"}
ONCE = ("html", "head", "title", "body")
TEMPLATE_TEXT = re.compile(r"\{\{|\}\}|\{%|%\}|\bNone\b|Undefined")
OUTCOMES = [{"kind": "done", "done": ["Keep painter, sculptor, architect"]},
            {"kind": "refused", "reason": "You cannot bid that much.", "line": "bid 9000"},
            {"kind": "refused", "done": ["Buy freedom of travel"], "reason": "No such building.", "line": "biuld"},
            {"kind": "stale"}, {"kind": "help", "ignored": ["Thanks, Ann"]},
            {"kind": "closed", "reason": "The game is over."},
            {"kind": "not_yours", "reason": "it came from another address than the one your seat has."},
            {"kind": "unverified", "reason": "SPF and DKIM failed."},
            {"kind": "leave", "confirm_url": "https://palazzo.example/leave?t=x"}]


class Shape(HTMLParser):
    """What a strict reader finds in a document: doctypes, how often each element opens, and every
    end tag that closes nothing, or closes across another, or a block opened inside a paragraph."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.doctypes = 0
        self.opened: Counter[str] = Counter()
        self.stack: list[str] = []
        self.faults: list[str] = []

    def handle_decl(self, decl: str) -> None:
        self.doctypes += decl.lower().startswith("doctype")

    def handle_starttag(self, tag: str, attrs) -> None:
        self.opened[tag] += 1
        if tag in BLOCKS and "p" in self.stack:
            self.faults.append(f"<{tag}> inside <p>")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.faults.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def reply_of(state, seat: int) -> render.Reply:
    """The seat's real commands and notes, from the grammar, as the notify job would give them."""
    found = answers(GAME, state, seat)
    return {"address": f"play+{TABLE.game_id}-{seat}-tag@palazzo.example", "commands": found.commands,
            "notes": found.notes, "picture": found.picture, "guide": ["One command a line.", "Case does not matter."]}


def decision_at(kind: str, reminder: bool = False) -> render.Part:
    state, _ = play_until(waiting(kind))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 0)
    return render.decision_part(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW,
                                GAME.default_move(state, seat), reply_of(state, seat), reminder=reminder)


def notice_at(started: bool = False, pending: bool = True, with_decision: bool = False) -> render.Part:
    """What a deadline played for the seat whose bid is pending (`told`): the default, or the stand-in's
    takeover (`started`); with or without his next decision in words, or beside its part."""
    state, _ = play_until(waiting("bid"))
    decision = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = decision["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 0)
    timed_out = {"since": 2, "kind": "keep_professions", "version": 3, "at": "2025-12-02T09:00:00Z", "holder": 0,
                 "by": "default"}
    misses = {"missed": 3 if started else 1, "standin": "greedy" if started else None,
              "standin_since": timed_out["at"] if started else None, "before_standin": 0 if started else 2,
              "before_removal": 2 if started else None}
    return render.notice_part(GAME.view(state, seat), timed_out, "Keep painter, sculptor, architect", misses, TABLE,
                              to, {"seat": "https://palazzo.example/seat?t=s", **links(seat)}, NOW,
                              decision if pending else None, with_decision)


@dataclass(frozen=True)
class Case:
    """A mail and what its reader must find in it: the reply commands of each decision it shows (as
    (command, note)) and the URL of each one-click answer."""
    mail: Mail
    replies: list[list[tuple[str, str]]]
    one_click: list[str]


def _case(mail: Mail, parts: list[render.Part] | None = None, reply: render.Reply | None = None,
          mail_links: render.MailLinks | None = None) -> Case:
    if parts is not None:
        return Case(mail, [list(map(tuple, p["facts"]["reply"]["commands"])) for p in parts],
                    [link["url"] for p in parts for link in p["facts"]["one_click"]])
    return Case(mail, [list(map(tuple, reply["commands"]))] if reply else [],
                [link["url"] for link in (mail_links or {}).get("one_click", [])])


def every_kind() -> dict[str, Case]:
    """One mail of each kind Palazzo sends, from real game states (the reply answers of every outcome)."""
    cases: dict[str, Case] = {}
    for decision in ("action", "bid", "place_landscape"):
        part = decision_at(decision)
        cases[f"{part['kind']}-{decision}"] = _case(render.part_mail(part, "p@example.org", TABLE.domain), [part])
    part = decision_at("bid", reminder=True)
    cases["reminder"] = _case(render.part_mail(part, "p@example.org", TABLE.domain), [part])
    parts = [decision_at(kind) for kind in ("keep_professions", "bid", "action")]
    cases["merged"] = _case(render.merged(parts, "p@example.org", TABLE.domain), parts)
    state, _ = play_until(lambda state, events: any(e["type"] == "best_work" for e in events))
    cases["round_result"] = _case(render.round_result(GAME.view(state, 0), TABLE, render.Recipient("p0@x.org", "Ann", 0),
                                                      {"unsubscribe": "https://palazzo.example/unsubscribe?t=x"}))
    over = play_until(lambda state, events: GAME.result(state) is not None)[0]
    cases["game_over"] = _case(render.game_over(GAME.view(over, 0), TABLE, render.Recipient("p0@x.org", "Ann", 0), {}))
    url = "https://palazzo.example/sign-in?link=eyJl.abc"
    cases["sign_in"] = _case(render.sign_in("ann@example.org", url, "eyJl.abc", TABLE.domain))
    cases["invitation"] = _case(render.invitation("bea@example.org", NAMES[1], 1, TABLE.game_id, url, "eyJl.abc",
                                                  TABLE.domain, title=TABLE.title, played="Princes of Florence"))
    cases["host_link"] = _case(render.host_link("host@example.org", TABLE.game_id, url, "eyJl.abc", TABLE.domain,
                                                title=TABLE.title))
    for why, reason in (("left", None), ("removed", "No moves for a week.")):  # "missed" reads as "removed" does
        cases[f"seat_left-{why}"] = _case(render.seat_left("ann@example.org", NAMES[0], TABLE.game_id, TABLE.title, why,
                                                           reason, "https://palazzo.example/games/g/watch",
                                                           TABLE.domain))
    state, _ = play_until(waiting("action"))
    pending = [{**d, "deadline_at": DEADLINE, "since": 3} for d in GAME.pending(state)]
    seat = pending[0]["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 2)
    cases["welcome"] = _case(render.welcome(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW, NAMES[1],
                                            reply_of(state, seat)), reply=reply_of(state, seat), mail_links=links(seat))
    cases.update(time_cases())
    cases.update(generic_cases())
    cases.update(talk_cases())
    for name, notice in (("defaulted", notice_at()), ("standin", notice_at(started=True, pending=False))):
        cases[name] = _case(render.merged([notice], "p@example.org", TABLE.domain))
    bid = decision_at("bid")
    cases["defaulted-with-decision"] = _case(render.merged([bid, notice_at(with_decision=True)], "p@example.org",
                                                           TABLE.domain), [bid])
    state, _ = play_until(waiting("bid"))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat)
    for number, outcome in enumerate(OUTCOMES):
        reply = reply_of(state, seat) if outcome["kind"] != "closed" else None
        answered = render.answer(GAME.view(state, seat), pending if number % 2 == 0 else None, TABLE, to, links(seat),
                                 NOW, outcome, reply)
        cases[f"{answered.kind}-{number}"] = _case(answered, reply=reply, mail_links=links(seat))
    return cases


def generic_cases() -> dict[str, Case]:
    """A game without mails of its own (Goofspiel), in the service's generic templates: a decision, a
    welcome, the end."""
    table = render.Table(TABLE.game_id, NAMES, TABLE.domain, TABLE.title, "goofspiel")
    state = goofspiel.new_game([2, 1, 3], seats=3)
    mine = {"seat": "https://palazzo.example/seat?t=s", "unsubscribe": "https://palazzo.example/unsubscribe?t=u",
            "one_click": [{"move": {"type": "bid", "card": card}, "url": f"https://palazzo.example/one-click?c={card}"}
                          for card in (1, 2, 3)]}
    to = render.Recipient("p1@example.org", NAMES[1], 1, "Europe/Rome", 0)
    found = answers(goofspiel.GAME, state, 1)
    reply = {"address": f"play+{TABLE.game_id}-1-tag@palazzo.example", "commands": found.commands,
             "notes": found.notes, "picture": found.picture, "guide": ["One command a line."]}
    pending = {**goofspiel.GAME.pending(state)[1], "deadline_at": DEADLINE, "since": 3}
    part = render.decision_part(goofspiel.GAME.view(state, 1), pending, table, to, mine, NOW,
                                goofspiel.GAME.default_move(state, 1), reply)
    over, _ = goofspiel.play_round(goofspiel.play_round(state, 1, 2, 3)[0], 2, 3, 1)
    return {
        "generic-your_turn": _case(render.part_mail(part, to.email, TABLE.domain), [part]),
        "generic-welcome": _case(render.welcome(goofspiel.GAME.view(state, 1), [pending], table, to, mine, NOW, "Cid",
                                                reply), reply=reply, mail_links=mine),
        "generic-game_over": _case(render.game_over(goofspiel.GAME.view(over, 1), table, to,
                                                          {"seat": mine["seat"], "unsubscribe": mine["unsubscribe"]})),
    }


def time_cases() -> dict[str, Case]:
    """The grace given instead of a default move, and the host's pause starting and ending."""
    state, _ = play_until(waiting("action"))
    pending = {**GAME.pending(state)[0], "deadline_at": DEADLINE, "since": 3}
    seat = pending["seat"]
    to = render.Recipient(f"p{seat}@example.org", NAMES[seat], seat, "Europe/Rome", 0)
    reply = reply_of(state, seat)
    return {
        "grace": _case(render.grace(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW, 12,
                                    GAME.default_move(state, seat), reply), reply=reply, mail_links=links(seat)),
        "paused": _case(render.paused(TABLE, to, {"seat": links(seat)["seat"]}, NOW, NOW + timedelta(hours=48))),
        "resumed": _case(render.resumed(GAME.view(state, seat), pending, TABLE, to, links(seat), NOW, 7500),
                         mail_links=links(seat)),
    }


def message(seq: int, by: int | None, to: int | None, text: str) -> dict:
    return {"seq": seq, "at": "2025-12-02T10:00:00Z", "by": by, "name": NAMES[by] if by is not None else "the host",
            "to": to, "text": text, "hidden": False}


def talk_cases() -> dict[str, Case]:
    """Mails of table talk: one message, several (a private one of the host's last), a decision with its
    game's messages, decisions and messages of several games, a digest."""
    reader = render.Recipient("p1@example.org", NAMES[1], 1, "Europe/Rome", 0)
    talk_links = {"seat": "https://palazzo.example/seat?t=s", "unsubscribe": "https://palazzo.example/unsubscribe?t=u"}
    address = f"play+{TABLE.game_id}-1-0-tag@palazzo.example"
    said = [message(1, 0, None, "Good luck <b>all</b>!\nSee https://example.org/x"), message(2, 2, 1, "Just you"),
            message(3, None, 1, "From the host")]
    parts = [render.talk_part(m, TABLE, reader, talk_links, address) for m in said]
    other = render.Table("0a0b0c0d0e0f0a0b", NAMES, "palazzo.example", "Elsewhere")
    elsewhere = render.talk_part(message(7, 0, None, "Elsewhere"), other, reader, talk_links, None)
    decision = decision_at("bid")
    decision = {**decision, "game": TABLE.game_id}
    return {
        "talk-one": _case(render.merged(parts[:1], reader.email, TABLE.domain)),
        "talk-several": _case(render.merged(parts, reader.email, TABLE.domain)),
        "talk-with-decision": _case(render.merged([decision, *parts[:2]], reader.email, TABLE.domain), [decision]),
        "talk-merged": _case(render.merged([decision, elsewhere], reader.email, TABLE.domain), [decision]),
        "talk-digest": _case(render.digest([render.talk_part(m, TABLE, reader, talk_links, None, True) for m in said]
                                           + [elsewhere], reader.email, TABLE.domain)),
        "reply_said": _case(render.answer(GAME.view(play_until(waiting("bid"))[0], 0), None, TABLE,
                                          render.Recipient("p0@example.org", NAMES[0], 0), links(0), NOW,
                                          {"kind": "said", "said": ['to the table: "hello"'],
                                           "unsaid": [["tell Zed hi", "no player at this table is called so"]]}),
                            mail_links=links(0)),
    }


CASES = every_kind()


def test_every_mail_kind_is_covered():
    kinds = {case.mail.kind for case in CASES.values()}
    assert kinds >= {"your_turn", "your_bid", "choose", "reminder", "round_result", "game_over", "merged", "sign_in",
                     "invitation", "host_link", "welcome", "seat_left", "talk", "digest", "reply_said", "grace", "paused",
                     "resumed", "defaulted", "standin"} | {
        f"reply_{outcome['kind']}" for outcome in OUTCOMES}
    assert all(case.replies for case in CASES.values() if case.mail.kind not in (
        "round_result", "game_over", "sign_in", "invitation", "host_link", "reply_closed", "seat_left", "talk", "digest",
        "reply_said", "paused", "resumed", "defaulted", "standin"))


def test_message_text_is_text_in_every_mail_that_carries_it():
    for name in ("talk-one", "talk-several", "talk-with-decision", "talk-digest"):
        mail = CASES[name].mail
        assert "Good luck &lt;b&gt;all&lt;/b&gt;!" in mail.html and "<b>all</b>" not in mail.html, name
        assert 'href="https://example.org' not in mail.html, f"{name}: a link in a message is not made one"
        assert "  | Good luck <b>all</b>!\n  | See https://example.org/x" in mail.text, name
    several = CASES["talk-several"].mail
    assert "The host wrote to you alone; a reply to this mail cannot reach him." in several.text
    assert [p["seq"] for p in several.parts] == [1, 2, 3] and several.kind == "talk"
    assert CASES["talk-merged"].mail.kind == "merged" and "Elsewhere" in CASES["talk-merged"].mail.text


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_html_part_is_one_well_formed_document(name):
    html = CASES[name].mail.html
    shape = Shape()
    shape.feed(html)
    shape.close()
    assert html.startswith("<!DOCTYPE html>") and shape.doctypes == 1
    assert [shape.opened[tag] for tag in ONCE] == [1] * len(ONCE)
    assert shape.faults == [] and shape.stack == []
    assert not TEMPLATE_TEXT.search(html), TEMPLATE_TEXT.search(html)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_reader_sees_each_command_on_its_line_and_the_buttons(chromium, name):
    case = CASES[name]
    page = chromium.new_page(viewport={"width": 600, "height": 900})
    page.set_content(case.mail.html)
    lines = [[line for line in block.splitlines() if line] for block in page.locator("pre").all_inner_texts()]
    expected = [[command + (f"    ({note})" if note else "") for command, note in reply] for reply in case.replies]
    assert [block for block in lines if block in expected] == expected, "each command on a line of its own"
    buttons = page.locator("a[href*='one-click']")
    assert [buttons.nth(i).get_attribute("href") for i in range(buttons.count())] == case.one_click
    for index in range(buttons.count()):
        box = buttons.nth(index).bounding_box()
        assert box and box["height"] >= 30 and buttons.nth(index).inner_text().strip(), "a button one can press"
    visible = page.locator("body").inner_text()
    assert not TEMPLATE_TEXT.search(visible), TEMPLATE_TEXT.search(visible)
    assert page.title() == case.mail.subject
    screenshot(page, name, folder=MAIL_ARTEFACTS)
    page.close()
