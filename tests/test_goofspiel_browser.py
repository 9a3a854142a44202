"""A whole Goofspiel game in Debian's Chromium with JavaScript off: the host creates it on the create page,
and each of its three players opens his seat link and bids only by pressing a card of his hand on his
seat page, until the game is over; meanwhile no page shows another seat's bid before its round is
revealed, and the spectator page and the log tell the rounds."""
from __future__ import annotations

import random
import re

import pytest

from service.mailed_links import seat_url
from tests.browser import Served, screenshot
from tests.conftest import make_app
from tests.web_client import table

pytest.importorskip("playwright.sync_api")

GAMES = ["goofspiel", "princes-of-florence"]
NAMES = ("Ann", "Bea", "Cy")
CARDS = 4


@pytest.fixture
def served(redis_url):
    with Served(make_app(redis_url, GAMES=GAMES)) as running:
        yield running


def _create(page, base: str) -> str:
    """Fill the create page for Goofspiel: three persons without addresses, four cards; its game id."""
    page.goto(f"{base}/new?game=goofspiel")
    for row, name in enumerate(NAMES):
        page.fill(f"#name{row}", name)
    page.fill("#cards", str(CARDS))
    page.check("#start")
    with page.expect_navigation():
        page.get_by_role("button", name="Create the game").click()
    assert "data-problem" not in page.content(), page.locator("[data-problem]").inner_text()
    return re.search(r"/games/([0-9a-f]+)/host", page.url).group(1)


def _enter(page, link: str) -> None:
    page.goto(link)
    with page.expect_navigation():
        page.get_by_role("button", name="Open my seat").click()


def test_a_whole_goofspiel_game_through_the_seat_pages_with_javascript_off(chromium, served):
    app, base = served.app, served.base
    contexts = [chromium.new_context(java_script_enabled=False) for _ in range(len(NAMES) + 1)]
    try:
        game_id = _create(contexts[0].new_page(), base)
        links = app.extensions["palazzo.links"]
        pages = []
        for seat, context in enumerate(contexts[1:]):
            page = context.new_page()
            _enter(page, seat_url(links, table(app, game_id), seat))
            assert page.url.endswith(f"/games/{game_id}"), page.url
            pages.append(page)
        rng = random.Random(3)
        bids = 0
        for _ in range(CARDS * len(NAMES) * 3):
            if table(app, game_id).status == "finished":
                break
            for seat, page in enumerate(pages):
                page.goto(f"{base}/games/{game_id}")
                buttons = page.locator("[data-hand] form button")
                if not buttons.count():
                    continue
                round_now = table(app, game_id).state["round"]
                others = [other for other in range(len(NAMES)) if other != seat]
                hidden = {p["seat"]: p["private"]["bid"] for p in table(app, game_id).state["players"]
                          if p["has_bid"]}
                if hidden and bids == 1:
                    screenshot(page, "goofspiel-seat")
                text = page.locator("main").inner_text()
                for other in others:  # its bid this round is nowhere on this seat's page
                    if other in hidden:
                        assert f"{NAMES[other]} {hidden[other]};" not in text
                        assert f"Round {round_now}, prize" not in text
                with page.expect_navigation():
                    buttons.nth(rng.randrange(buttons.count())).click()
                bids += 1
                assert "data-problem" not in page.content(), page.locator("[data-problem]").inner_text()
                assert "You bid" in page.content() or table(app, game_id).state["round"] > round_now
        else:
            raise AssertionError("the game did not end")
        final = table(app, game_id)
        assert final.status == "finished" and bids == (CARDS - 1) * len(NAMES), "the last round plays itself"
        moves = [entry for entry in app.extensions["palazzo.store"].log(game_id)]
        assert {entry["seat"] for entry in moves} == {0, 1, 2}
        pages[0].goto(f"{base}/games/{game_id}")
        screenshot(pages[0], "goofspiel-over")
        result = pages[0].locator("[data-result]").inner_text()
        assert result.startswith("Game over: ") and ("wins" in result or "share the win" in result)
        assert pages[0].locator("[data-rounds] li").count() == CARDS
        watch = contexts[0].new_page()
        watch.goto(f"{base}/games/{game_id}/watch")
        assert watch.locator("[data-rounds] li").count() == CARDS and not watch.locator("[data-hand]").count()
        watch.goto(f"{base}/games/{game_id}/log")
        assert f"Round {CARDS} is the last" in watch.content() and "Round 1, prize" in watch.content()
    finally:
        for context in contexts:
            context.close()
