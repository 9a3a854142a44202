"""A player who knows only the seat page: given the page, which form to submit or link to follow.

Both the test-client tests and the Chromium test play with it, so they play the same game. It aims
to do, at least once, what the issue's proof asks: win an auction, place a landscape, build, and
publish a work with a bonus card.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.web_forms import Form, parse

LANDSCAPES = ("woods", "lake", "park")
BID_UP_TO = 600


@dataclass
class Submit:
    index: int  # the form's place among the page's forms
    form: Form
    changes: dict[str, str | list[str]] = field(default_factory=dict)


@dataclass
class Follow:
    href: str


@dataclass
class Page:
    html: str

    def __post_init__(self) -> None:
        self.main, self.forms = parse(self.html)

    @property
    def decision(self) -> str:
        return self.main.get("data-decision", "none")

    def form(self, move: str, button: str | None = None, post: bool = True) -> tuple[int, Form] | None:
        for index, found in enumerate(self.forms):
            if found.move == move and (found.method == "post") == post and (
                    button is None or any(button in text for text in found.buttons)):
                return index, found
        return None

    def submit(self, move: str, button: str | None = None, **changes) -> Submit | None:
        found = self.form(move, button)
        return Submit(found[0], found[1], changes) if found else None

    def attr(self, name: str) -> str | None:
        match = re.search(rf'{name}="([^"]*)"', self.html)
        return match.group(1) if match else None

    def anchors(self) -> list[str]:
        return [href.replace("&amp;", "&") for href in re.findall(r'<a class="anchor" href="([^"]+)"', self.html)]

    def build_links(self) -> list[str]:
        return [href.replace("&amp;", "&") for href in re.findall(r'<a href="([^"]+)" data-build-link=', self.html)]


def next_step(page: Page, done: set[str]) -> Submit | Follow | None:
    """What to do on this page; `done` names what the player has achieved so far (he adds to it)."""
    kind = page.decision
    if kind == "none":
        return None
    if kind == "keep_professions":
        return page.submit("keep_professions")
    if kind == "open_auction":
        for item in (*LANDSCAPES, "architect", "juggler"):
            step = page.submit("open_auction", f"the {item} ")
            if step:
                return step
        return page.submit("open_auction") or page.submit("pass_auction")
    if kind == "bid":
        item = page.attr("data-lot-item")
        bid = page.submit("bid")
        amount = int(dict(bid.form.fields).get("amount", "0")) if bid else 0
        if bid and item in (*LANDSCAPES, "architect") and amount <= BID_UP_TO:
            return bid
        return page.submit("step_out")
    if kind == "place_landscape":
        confirm = page.submit("place_landscape", "Place the landscape")
        if confirm:
            done.add("landscape")
            return confirm
        anchors = page.anchors()
        return Follow(anchors[0]) if anchors else page.submit("discard_landscape")
    if kind == "choose_card":
        return page.submit("choose_card")
    if kind == "use_enticement":
        return page.submit("keep_enticement")
    if kind == "split_payout":
        return page.submit("split_payout")
    return _action(page, done)


def _action(page: Page, done: set[str]) -> Submit | Follow | None:
    confirm = page.submit("publish", "Publish a work")
    if confirm and "data-preview" in page.html:
        if any(name == "bonus_cards" for name, _ in confirm.form.fields):
            done.add("publish with a bonus card")
        return confirm
    picked = page.form("publish", post=False)
    if picked and "data-preview" not in page.html:
        index, form = picked
        cards = list(dict.fromkeys(re.findall(r'name="bonus_cards" value="([^"]+)"', page.html)))
        return Submit(index, form, {"bonus_cards": cards})
    if page.attr("data-bonus-cards") == "0" and "data-piece=" not in page.html:
        bought = page.submit("buy_bonus_card")
        if bought:
            return bought
    build = page.submit("build", "Build the")
    if build:
        done.add("build")
        return build
    if "data-piece=" in page.html and page.anchors():
        return Follow(page.anchors()[0])
    wanted = re.findall(r'data-wanted>.*?<a href="([^"]+)" data-build-link=', page.html, re.S)
    links = [href.replace("&amp;", "&") for href in wanted] or (page.build_links() if "build" not in done else [])
    if links:
        return Follow(links[0])
    for freedom in re.findall(r'data-freedom="([^"]+)"', page.html):
        bought = page.submit("buy_freedom", f"freedom of {freedom} ")
        if bought:
            return bought
    plain = page.submit("publish", "Publish a work")
    if plain and "publish with a bonus card" in done:
        return plain
    return page.submit("end_turn")
