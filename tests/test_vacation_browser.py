"""Vacation from the seat page in Debian's Chromium with JavaScript off: the player takes two days off
with the page's form, reads "away until ..." (and the other seats read it too), and comes back with
its button; a refused length says why and changes nothing. Screenshots go to the browser artefacts."""
from __future__ import annotations

import pytest

from service import games, vacation
from tests.browser import Served, screenshot
from tests.conftest import make_app, new_game, signed_ago

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("engine.pof")


@pytest.fixture
def served(redis_url):
    with Served(make_app(redis_url)) as running:
        yield running


def _enter(page, base: str, game_id: str, seat: int, key: str) -> None:
    page.goto(f"{base}/seat?t={signed_ago('seat', {'g': game_id, 's': seat, 'h': 0, 'k': key}, 0)}")
    with page.expect_navigation():
        page.get_by_role("button", name="Open my seat").click()


def test_time_off_from_the_seat_page_with_javascript_off(chromium, served):
    app, base = served.app, served.base
    store = app.extensions["palazzo.store"]
    created = new_game(app.test_client(), game="princes-of-florence", seats=3, bots={2: "greedy"})
    game_id = created["game"]["id"]
    keys = [entry.get("token") for entry in games.load(store, game_id).meta["seats"]]
    context = chromium.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    other_context = chromium.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        _enter(page, base, game_id, 0, keys[0])
        panel = page.locator("#vacation")
        assert "7 days left of 7 days" in panel.inner_text()

        page.fill("#vacation-amount", "9")
        page.select_option("#vacation-unit", "days")
        with page.expect_navigation():
            panel.get_by_role("button", name="Take time off").click()
        assert "have 7 days" in page.locator("[data-problem]").inner_text()
        assert not games.load(store, game_id).meta["seats"][0].get("away")

        page.fill("#vacation-amount", "2")
        page.select_option("#vacation-unit", "days")
        with page.expect_navigation():
            page.locator("#vacation").get_by_role("button", name="Take time off").click()
        assert "You are away until" in page.locator(".flash").inner_text()
        assert "You are away until" in page.locator("[data-away-until]").inner_text()
        assert page.locator('p.away[data-away="0"]').is_visible()
        table = games.load(store, game_id)
        assert table.meta["seats"][0]["away"] and vacation.hours_left(table.meta, 0) == 5 * 24
        screenshot(page, "seat-away")

        other = other_context.new_page()
        _enter(other, base, game_id, 1, keys[1])
        assert "P0 is away until" in other.locator('p.away[data-away="0"]').inner_text()
        other.goto(f"{base}/games/{game_id}/watch")
        assert "P0 is away until" in other.locator("main").inner_text()

        with page.expect_navigation():
            page.get_by_role("button", name="I am back").click()
        assert "Welcome back" in page.locator(".flash").inner_text()
        assert page.locator("[data-away-until]").count() == 0 and page.locator("p.away").count() == 0
        assert not games.load(store, game_id).meta["seats"][0].get("away")
        assert "6 days and 23 hours left" in page.locator("#vacation").inner_text()
        screenshot(page, "seat-back")
    finally:
        context.close()
        other_context.close()
