"""The pages in a real browser: Debian's Chromium, driven by Playwright, against the real app served
on a loopback port and the real redis-server.

One seat plays a whole game through the pages alone, with JavaScript off, while two bots play the
others; the game is created on the create page and entered from the mailed link. Screenshots of
every page kind are written as artefacts (tests/browser.py says where).
"""
from __future__ import annotations

import re
import struct
import time
from pathlib import Path

import pytest

from service.web import session
from tests.browser import Served, screenshot
from tests.conftest import bearer, mailed_link, make_app, new_game, seat_tokens, signed_ago
from tests.web_client import follow_seat_link, path, send, table
from tests.web_leaks import leaked, text_of
from tests.web_player import Follow, Page, Submit, next_step

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("engine.pof")

LAPTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def served(redis_url):
    with Served(make_app(redis_url, WEB_POLL_SECONDS=1)) as running:
        yield running


@pytest.fixture
def browse(chromium, served):
    """New browser contexts (a person each), closed before the server stops: no page polls a dead one."""
    opened = []

    def context(**options):
        opened.append(chromium.new_context(**{"viewport": LAPTOP, **options}))
        return opened[-1]
    yield context
    for each in opened:
        each.close()


def _width(png: Path) -> int:
    """A PNG's width from its header: a full-page screenshot is as wide as the page scrolls."""
    return struct.unpack(">I", png.read_bytes()[16:20])[0]


def _open(page, url: str) -> None:
    page.goto(url)


def _enter(page, seat_link: str) -> None:
    """Follow a seat link as its player does: the page asks, and its button signs the browser in."""
    _open(page, seat_link)
    with page.expect_navigation():
        page.get_by_role("button", name="Open my seat").click()


def _do(page, step: Submit | Follow) -> None:
    """Carry out the player's step as a person would: follow the link, or fill in the form and press its button."""
    if isinstance(step, Follow):
        with page.expect_navigation():
            page.locator(f'a[href="{step.href}"]').first.click()
        return
    form = page.locator("form").nth(step.index)
    for name, values in step.changes.items():
        values = values if isinstance(values, list) else [values]
        fields = form.locator(f'[name="{name}"]')
        if fields.first.get_attribute("type") == "checkbox":
            for box in fields.all():
                (box.check if box.get_attribute("value") in values else box.uncheck)()
        elif form.locator(f'select[name="{name}"]').count():
            fields.first.select_option(values[0])
        else:
            fields.first.fill(values[0])
    with page.expect_navigation():
        form.locator('button[type="submit"]').click()


def _create(page, seed: int, email: str | None = None) -> str:
    """Fill the open create page: Ann (a person, with `email` if given) against two bots; its game id."""
    page.fill("#name0", "Ann")
    if email:
        page.fill("#email0", email)
    page.fill("#name1", "Bianca")
    page.select_option("#player1", "random")
    page.fill("#name2", "Cosimo")
    page.select_option("#player2", "greedy")
    page.fill("#seed", str(seed))
    with page.expect_navigation():
        page.get_by_role("button", name="Create the game").click()
    return re.search(r"/games/([0-9a-f]+)/host", page.url).group(1)


def test_a_whole_game_through_the_pages_with_javascript_off(browse, served):
    app, base = served.app, served.base
    host = browse(java_script_enabled=False)
    creating = host.new_page()
    _open(creating, f"{base}/new")
    screenshot(creating, "create")
    game_id = _create(creating, seed=11, email="ann@example.org")
    assert creating.locator("main").get_attribute("data-status") == "running"
    screenshot(creating, "host")

    player = browse(java_script_enabled=False)
    page = player.new_page()
    _open(page, f"{base}/sign-in?link={mailed_link(app, 'ann@example.org')}")
    screenshot(page, "sign-in-link")
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url == f"{base}/", "the link leaves the address bar"
    [cookie] = [c for c in player.cookies() if c["name"] == session.COOKIE]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    screenshot(page, "home")
    with page.expect_navigation():
        page.locator(f'a[href="/games/{game_id}"]').click()

    spectator = browse(java_script_enabled=False).new_page()
    done: set[str] = set()
    shots: set[str] = set()
    started = time.monotonic()
    for _ in range(2000):
        html = page.content()
        shown = Page(html)
        kind = shown.decision
        name = _shot_name(shown)
        if name and name not in shots:
            shots.add(name)
            screenshot(page, name)
        state = table(app, game_id).state
        if kind == "action" and state["round"] == 4 and "readme" not in shots:
            shots.add("readme")
            screenshot(page, "seat-mid-game")
            screenshot(page, "seat-mid-game-top", height=1500)  # docs/seat-page.png in the README
            page.set_viewport_size(PHONE)
            assert _width(screenshot(page, "seat-phone")) == PHONE["width"], "nothing is wider than a phone"
            page.set_viewport_size(LAPTOP)
            _open(spectator, f"{base}/games/{game_id}/watch")
            screenshot(spectator, "watch")
            assert not leaked(state, text_of(spectator.content()), None)
        step = next_step(shown, done)
        if step is None:
            break
        _do(page, step)
        assert "data-problem" not in page.content(), page.locator("[data-problem]").inner_text()
    else:
        raise AssertionError("the game did not end")
    elapsed = time.monotonic() - started
    final = table(app, game_id)
    assert final.status == "finished" and page.locator("main").get_attribute("data-status") == "finished"
    screenshot(page, "game-over")
    assert page.locator("#scores tbody tr").count() == 3
    _open(page, f"{base}/games/{game_id}/log")
    screenshot(page, "log")

    store = app.extensions["palazzo.store"]
    mine = [entry["move"] for entry in store.log(game_id) if entry["seat"] == 0]
    assert {"build", "place_landscape"} <= {move["type"] for move in mine}
    assert any(move["type"] == "publish" and move["bonus_cards"] for move in mine)
    won = [e["event"] for e in store.events(game_id, 0, 10_000)[0] if e["event"]["type"] == "auction_won"]
    assert any(event["seat"] == 0 for event in won)
    assert {"seat-place_landscape-preview", "seat-build-preview", "seat-publish-preview"} <= shots
    print(f"whole game through the pages: {elapsed:.1f} s")


def _public_game(client) -> dict:
    """A public game of Ann (a bot) with two open seats, that starts when full; its creation body."""
    answer = client.post("/api/v1/games", json={"game": "princes-of-florence", "seed": 8, "public": True,
                                                 "title": "Bea's first table",
                                                 "start_when_full": True, "seats": [
                                                     {"name": "Ann", "bot": "greedy"}, {"open": True}, {"open": True}]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def test_a_stranger_finds_a_game_in_the_lobby_signs_in_by_mail_and_joins_with_javascript_off(browse, served):
    app, base = served.app, served.base
    game_id = _public_game(app.test_client())["game"]["id"]
    page = browse(java_script_enabled=False).new_page()
    _open(page, base)
    with page.expect_navigation():
        page.get_by_role("link", name="Lobby", exact=True).click()
    assert page.locator(f'[data-game="{game_id}"]').get_by_text("2 open").is_visible()
    screenshot(page, "lobby")
    with page.expect_navigation():
        page.get_by_role("link", name="Join Bea's first table").click()
    assert page.locator("main").get_attribute("data-page") == "join"
    page.get_by_label("Your address").fill("bea@example.org")
    with page.expect_navigation():
        page.get_by_role("button", name="Mail me a sign-in link").click()
    assert page.get_by_text("A sign-in link is on its way").is_visible()

    _open(page, f"{base}/sign-in?link={mailed_link(app, 'bea@example.org')}")
    with page.expect_navigation():
        page.get_by_role("button", name="Sign in").click()
    assert page.url.startswith(f"{base}/join?link="), "the mailed link leads back to the join page"
    screenshot(page, "join")
    page.get_by_label("Your name at this table").fill("Bea")
    page.get_by_label("Seat").select_option("2")
    with page.expect_navigation():
        page.get_by_role("button", name="Take a seat").click()
    assert page.url == f"{base}/games/{game_id}"
    assert page.get_by_text("You have taken seat 3.").is_visible()
    seats_now = table(app, game_id).meta["seats"]
    assert seats_now[2]["name"] == "Bea" and seats_now[2]["email"] == "bea@example.org" and seats_now[1]["open"]


def _shot_name(page: Page) -> str | None:
    """Which kind of page this is, for its screenshot: the decision, and the preview steps."""
    kind = page.decision
    if kind == "none":
        return None
    if 'class="ghost"' in page.html:
        return f"seat-{'build' if kind == 'action' else kind}-preview"
    if "data-preview" in page.html:
        return "seat-publish-preview"
    if "data-piece=" in page.html:
        return f"seat-{'build' if kind == 'action' else kind}-choose-place"
    return f"seat-{kind}"



def test_links_and_stale_forms_show_the_right_page(browse, served):
    app, base = served.app, served.base
    client = app.test_client()
    created = new_game(client, game="princes-of-florence", seats=3, bots={1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    key = table(app, game_id).meta["seats"][0]["token"]
    context = browse(java_script_enabled=False)
    page = context.new_page()

    _open(page, f"{base}/seat?t={signed_ago('seat', {'g': game_id, 's': 0, 'h': 0, 'k': key}, 8 * 24 * 3600)}")
    assert page.locator("main").get_attribute("data-error") == "link_expired"
    assert page.get_by_role("heading", name="This link has expired").is_visible()
    screenshot(page, "link-expired")
    tampered = signed_ago("seat", {"g": game_id, "s": 0, "h": 0, "k": key}, 0)[:-2] + "xx"
    _open(page, f"{base}/seat?t={tampered}")
    assert page.locator("main").get_attribute("data-error") == "bad_link"
    screenshot(page, "link-tampered")
    _open(page, f"{base}/games/{game_id}")
    assert page.url == f"{base}/games/{game_id}/watch", "neither link let the browser in"

    _enter(page, f"{base}/seat?t={signed_ago('seat', {'g': game_id, 's': 0, 'h': 0, 'k': key}, 0)}")
    assert page.url == f"{base}/games/{game_id}"
    other = context.new_page()
    _open(other, page.url)
    keep = page.locator('form[data-move="keep_professions"] button')
    with page.expect_navigation():
        keep.first.click()
    before = len(app.extensions["palazzo.store"].log(game_id))
    with other.expect_navigation():
        other.locator('form[data-move="keep_professions"] button').nth(1).click()
    assert "moved on" in other.locator("[data-problem]").inner_text()
    assert other.locator("main").get_attribute("data-decision") == "open_auction"
    assert len(app.extensions["palazzo.store"].log(game_id)) == before
    screenshot(other, "stale-form")


def test_the_page_follows_the_game_with_javascript_on(browse, served):
    """Live refresh: the page redraws itself when another seat moves (event-driven, no timing asserted)."""
    app, base = served.app, served.base
    client = app.test_client()
    created = new_game(client, game="princes-of-florence", seats=3, bots={2: "greedy"})
    game_id = created["game"]["id"]
    tokens = seat_tokens(created)
    page = browse().new_page()
    key = table(app, game_id).meta["seats"][0]["token"]
    _enter(page, f"{base}/seat?t={signed_ago('seat', {'g': game_id, 's': 0, 'h': 0, 'k': key}, 0)}")
    with page.expect_navigation():
        page.locator('form[data-move="keep_professions"] button').first.click()
    main = page.locator("main")
    assert main.get_attribute("data-decision") == "none"  # seat 1 still keeps his professions
    listed = client.get(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[1])).get_json()
    moved = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(tokens[1]),
                        json={"move": listed["moves"][0]["move"], "version": listed["version"]})
    assert moved.status_code == 200
    sync_api.expect(main).to_have_attribute("data-decision", "open_auction", timeout=30_000)
    screenshot(page, "seat-live-refreshed")


def test_the_pages_pass_axe_and_work_from_the_keyboard(browse, served):
    """axe-core finds nothing on any page kind (contrast, labels, names, landmarks), and a decision
    can be answered with the keyboard alone."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    app, base = served.app, served.base
    page = browse(bypass_csp=True).new_page()  # axe is injected as a script
    axe = axe_module.Axe()
    found = {}

    def check(name: str) -> None:
        results = axe.run(page)
        assert len(results.response["passes"]) > 10, name  # axe did run its rules
        found[name] = [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"]]

    _open(page, f"{base}/new")
    check("create")
    game_id = _create(page, seed=5)
    check("host")
    seat_link = page.get_by_label("Seat link for Ann").input_value()
    _enter(page, seat_link)
    assert page.url == f"{base}/games/{game_id}"
    for _ in range(30):  # tab to the first answer of the decision, and press it with the keyboard
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#decision form') !== null"):
            break
    else:
        raise AssertionError("the decision's buttons cannot be reached with Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("main").get_attribute("data-decision") == "open_auction"
    check("seat")

    page.goto("about:blank")  # the seat page would redraw itself as the driver moves
    driver = app.test_client()  # plays the same seat on, until a work may be published with a bonus card
    assert follow_seat_link(driver, seat_link).status_code == 303
    done: set[str] = set()
    for _ in range(400):
        shown = Page(driver.get(f"/games/{game_id}").get_data(as_text=True))
        if shown.form("publish", post=False) and shown.build_links():
            break
        step = next_step(shown, done)
        while isinstance(step, Follow):
            shown = Page(driver.get(step.href.replace(base, "")).get_data(as_text=True))
            step = next_step(shown, done)
        send(driver, step.form, **step.changes)
    else:
        raise AssertionError("the seat never came to publish and build in one turn")
    _open(page, f"{base}/games/{game_id}")
    check("seat-action")
    with page.expect_navigation():
        page.locator("[data-build-link]").first.click()
    check("seat-build-choose-place")
    with page.expect_navigation():
        page.locator("svg a.anchor").first.click()
    check("seat-build-preview")
    _open(page, f"{base}/games/{game_id}")
    publish = page.locator("form.publish-pick").first
    publish.locator("input[type=checkbox]").first.check()
    assert "worth" in publish.locator("[data-total]").inner_text()  # the script adds the value up at once
    with page.expect_navigation():
        publish.get_by_role("button", name="Show the work's value").click()
    check("seat-publish-preview")
    public = _public_game(app.test_client())
    for name, url in {"watch": f"/games/{game_id}/watch", "log": f"/games/{game_id}/log", "home": "/",
                      "sign-in": "/sign-in", "error": "/seat?t=nonsense", "lobby": "/lobby",
                      "join": path(public["join"]["url"])}.items():
        _open(page, base + url)
        check(name)
    assert found == {name: [] for name in found}, found


def test_the_archive_pages_pass_axe_and_step_by_their_links(browse, served):
    """A finished game's archive page of each served game, at its start, in the middle and at its end:
    axe-core finds nothing (it runs as a script), and its Next and Previous links, plain links, step."""
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    client, base = served.app.test_client(), served.base
    page = browse(bypass_csp=True).new_page()  # axe is injected as a script
    axe = axe_module.Axe()
    found = {}
    for game in ("princes-of-florence", "goofspiel"):
        game_id = new_game(client, game=game, seats=3, bots={0: "greedy", 1: "random", 2: "greedy"})["game"]["id"]
        last = len(client.get(f"/api/v1/games/{game_id}/record").get_json()["moves"])
        for step in (0, last // 2, last):
            _open(page, f"{base}/games/{game_id}/archive?step={step}")
            results = axe.run(page)
            assert len(results.response["passes"]) > 10
            found[f"{game}-{step}"] = [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"]]
            screenshot(page, f"archive-{game}-{'start' if step == 0 else 'end' if step == last else 'middle'}")
        with page.expect_navigation():
            page.get_by_role("link", name="Previous").click()
        assert page.locator("main").get_attribute("data-step") == str(last - 1)
        with page.expect_navigation():
            page.get_by_role("link", name="Next").click()
        assert page.locator("main").get_attribute("data-step") == str(last)
    assert found == {name: [] for name in found}, found
