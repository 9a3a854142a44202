"""Every page carries the pages' headers, whatever route drew it and however it answered: the view, a
refusal, a 404, a redirect. The routes are read off the app's url_map, so a new page that is not made
with `service.web.pages.blueprint` fails here; and a page from another site cannot frame one."""
from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from service import seats
from service.web import pages, unsubscribe
from tests.browser import CHROMIUM, Served, launch
from tests.conftest import make_app
from tests.web_client import csrf, enter_seat, path, table

pytest.importorskip("engine.pof")

EVENTS_SECRET, INBOUND_SECRET = "events-" + "e" * 20, "inbound-" + "i" * 20
EXPECTED = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "X-Robots-Tag": "noindex",
}
NOT_PAGES = {"static", "web_assets.static", "inbound.sendgrid", "mail_events.sendgrid_events",
             "metrics.metrics"}  # never HTML


def _missing(response) -> list[str]:
    """The pages' headers this answer lacks or gets wrong."""
    wrong = [name for name, value in EXPECTED.items() if response.headers.get(name) != value]
    policy = response.headers.get("Content-Security-Policy", "")
    if "frame-ancestors 'none'" not in policy or "default-src 'self'" not in policy:
        wrong.append("Content-Security-Policy")
    return wrong


def _game(app) -> tuple[object, str]:
    """A browser that created a princes-of-florence game on the page (its host) and holds seat 0."""
    browser = app.test_client()
    form = {"csrf": csrf(browser, "/new"), "name0": "Ann", "email0": "ann@example.org", "player0": "human",
            "name1": "Bo", "player1": "human", "name2": "Robo", "player2": "greedy", "bidding": "step",
            "seed": "3", "start": "true"}
    created = browser.post("/new", data=form)
    game_id = re.search(r"/games/([0-9a-f]+)/host", created.headers["Location"]).group(1)
    enter_seat(app, browser, game_id, 1)
    return browser, game_id


def _urls(rule, game_id: str) -> list[str]:
    """The URLs to try for a route: with a real game and with one that does not exist."""
    values = {"secret": EVENTS_SECRET, "seat": "1", "action": "start", "change": "new", "seq": "1"}
    urls = []
    for game in (game_id, "0000000000000000"):
        url = rule.rule
        for name in rule.arguments:
            url = re.sub(rf"<(\w+:)?{name}>", game if name == "game_id" else values[name], url)
        urls.append(url)
    return sorted(set(urls))


def test_every_route_that_answers_html_carries_the_pages_headers(redis_url):
    app = make_app(redis_url, MAIL_EVENTS_SECRET=EVENTS_SECRET, INBOUND_SECRET=INBOUND_SECRET)
    browser, game_id = _game(app)
    links = app.extensions["palazzo.links"]
    join = seats.sign(links, game_id, table(app, game_id).meta["join"])
    queries = {"/act": "?t=forged", "/seat": "?t=forged", "/sign-in": "?link=x", "/join": f"?link={join}",
               "/unsubscribe": "?t=" + path(unsubscribe.link(links, "0" * 64)).split("t=")[1]}
    answers = []
    last = "home_page.sign_out"  # signing out ends the session the other routes are tried with
    late = "host_page.join_link"  # a new join link ends the one the join page is tried with
    for rule in sorted(app.url_map.iter_rules(), key=lambda rule: (rule.endpoint == last, rule.endpoint == late)):
        if rule.rule.startswith("/api/v1/") or rule.endpoint in ("static", "web_assets.static"):
            continue
        for url in _urls(rule, game_id):
            url += queries.get(url, "")
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                for client in (browser, app.test_client()):  # with the session's grants, and a stranger
                    # a form of this session, and one without its token
                    for data in ({"csrf": csrf(client), "email": "ann@example.org"}, {}):
                        answer = client.open(url, method=method, data=data if method == "POST" else None)
                        answers.append((rule.endpoint, method, url, answer))
    answers.append(("dev_mailbox.show", "GET", "/dev/mailbox", app.test_client().get(
        "/dev/mailbox", environ_base={"REMOTE_ADDR": "203.0.113.9"})))  # its 404 to anyone else
    answers.append(("mail_events.sendgrid_events", "POST", "/hooks/sendgrid/...",
                    app.test_client().post(f"/hooks/sendgrid/{EVENTS_SECRET}", json=[{"event": "delivered"}])))
    html = [(endpoint, method, url, answer) for endpoint, method, url, answer in answers
            if answer.mimetype == "text/html"]
    assert not [(endpoint, url) for endpoint, _, url, _ in html if endpoint in NOT_PAGES], "a hook answered HTML"
    lacking = [(method, url, answer.status_code, _missing(answer)) for endpoint, method, url, answer in answers
               if endpoint not in NOT_PAGES and _missing(answer)]
    assert not lacking
    shown = {(endpoint, answer.status_code) for endpoint, _, _, answer in html}
    for seen in [("oneclick.confirm", 403), ("unsubscribe_page.confirm", 200), ("unsubscribe_page.unsubscribe", 200),
                 ("dev_mailbox.show", 200), ("seat_page.show", 200), ("host_page.act", 403), ("seat_page.play", 403),
                 ("host_page.host", 404), ("sign_in_page.mail_link", 200), ("join_page.show", 200),
                 ("join_page.lobby", 200), ("join_page.take", 403), ("host_page.join_link", 403),
                 ("talk_page.everything", 200), ("talk_page.write", 403), ("talk_page.host_write", 403),
                 ("talk_page.hide", 403)]:
        assert seen in shown, seen  # the views, their refusals and their error pages were all looked at
    assert ("dev_mailbox.show", 404) in {(endpoint, answer.status_code) for endpoint, _, _, answer in answers}


def test_pages_reached_from_a_mail_client_set_no_cookie_and_need_no_csrf(app, client):
    """`/act` and `/unsubscribe` take posts from mail programs and providers (RFC 8058), which keep no
    cookie: the factory's `session=False` gives them the headers but no session."""
    url = path(unsubscribe.link(app.extensions["palazzo.links"], "1" * 64))
    for answer in (client.get(url), client.post(url, data={"List-Unsubscribe": "One-Click"}), client.get("/act?t=x")):
        assert not answer.headers.getlist("Set-Cookie") and not _missing(answer), answer.request.path
    assert client.post(url, data={"List-Unsubscribe": "One-Click"}).status_code == 200  # no CSRF token needed
    assert client.get("/sign-in").headers.getlist("Set-Cookie"), "a page of the site does keep a session"


def test_every_page_layout_draws_with_the_policy_in_force(app, client):
    """The policy allows no inline style: a page's styles come from the stylesheets it links."""
    for url in ("/unsubscribe?t=x", "/act?t=x", "/sign-in"):
        drawn = client.get(url).get_data(as_text=True)
        assert "<style" not in drawn and ' style="' not in drawn, url
        assert re.search(rf'<link rel="stylesheet" href="{pages.STATIC_PATH}/[a-z]+\.css">', drawn), url
    mailbox = client.get("/dev/mailbox")
    assert "'unsafe-inline'" in mailbox.headers["Content-Security-Policy"].split("style-src")[1].split(";")[0], \
        "the local mailbox shows HTML mail, whose styles are inline, as a mail program would"
    assert "'unsafe-inline'" not in client.get("/sign-in").headers["Content-Security-Policy"]


class _Framing(BaseHTTPRequestHandler):
    """Another site: a page that frames one of ours."""

    target = ""

    def do_GET(self) -> None:
        body = f'<!doctype html><title>x</title><iframe id="f" src="{self.target}"></iframe>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("page", ["/unsubscribe?t=x", "/act?t=x", "/dev/mailbox", "/sign-in"])
def test_another_site_cannot_frame_a_page(redis_url, page):
    """In Chromium: a page served from another site (localhost, not 127.0.0.1) frames ours, and
    Chromium draws its own error page in the frame instead."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"this test needs Debian's chromium at {CHROMIUM}")
    with Served(make_app(redis_url)) as served:
        _Framing.target = served.base + page
        other = ThreadingHTTPServer(("127.0.0.1", 0), _Framing)
        threading.Thread(target=other.serve_forever, daemon=True).start()
        try:
            with sync_api.sync_playwright() as playwright:
                browser = launch(playwright)
                tab = browser.new_page()
                tab.goto(served.base + page)
                assert tab.query_selector("h1"), "the page draws on its own"
                with tab.expect_response(lambda response: response.url == served.base + page):
                    tab.goto(f"http://localhost:{other.server_address[1]}/")
                for _ in range(100):  # Playwright learns of the frame's navigation while it waits
                    if tab.frames[1].url not in ("", "about:blank"):
                        break
                    tab.wait_for_timeout(100)
                assert tab.frames[1].url.startswith("chrome-error://"), "the page drew inside another site's frame"
                browser.close()
        finally:
            other.shutdown()
