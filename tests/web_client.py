"""Driving the pages over Flask's test client, as a browser without scripts would."""
from __future__ import annotations

from typing import Callable
from urllib.parse import urlencode, urlsplit

from werkzeug.datastructures import MultiDict

from service import games
from service.web.seat_link import seat_url
from tests.web_forms import Form, parse
from tests.web_player import Follow, Page, next_step


def path(url: str) -> str:
    """A link as the test client requests it (links are built from PALAZZO_BASE_URL)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def table(app, game_id: str) -> games.Table:
    return games.load(app.extensions["palazzo.store"], game_id)


def enter_seat(app, client, game_id: str, seat: int) -> None:
    """Open the seat's link in this client, as its player does from his mail, and press its button."""
    answer = follow_seat_link(client, seat_url(app.extensions["palazzo.links"], table(app, game_id), seat))
    assert answer.status_code == 303, answer.status_code


def follow_seat_link(client, url: str):
    """A seat link as a person follows it: open it (a page with a button), then press the button."""
    page = client.get(path(url))
    assert page.status_code == 200 and b'action="/seat"' in page.data, page.status_code
    token = page.get_data(as_text=True).split('name="t" value="')[1].split('"')[0]
    return client.post("/seat", data={"t": token, "csrf": csrf(client, path(url))})


def enter_host(app, client, game_id: str) -> None:
    """Give this client the host's grant for the game, as the browser that created it holds (a game made
    over the API has no browser of its host's)."""
    from service.web import session
    with app.test_request_context():
        visitor = session.sign_in(host=[game_id, table(app, game_id).meta["host"]])
        client.set_cookie(session.COOKIE, session._signer().sign(visitor.sid).decode())


def csrf(client, url: str = "/sign-in") -> str:
    html = client.get(url).get_data(as_text=True)
    return html.split('name="csrf" value="')[1].split('"')[0]


def send(client, form: Form, **changes):
    data = form.data(**changes)
    action = form.action.split("#")[0]
    if form.method == "get":
        return client.get(f"{action}?{urlencode(data)}")
    return client.post(action, data=MultiDict(data))


def play_game(client, game_id: str, limit: int = 3000,
              on_page: Callable[[str, str], None] | None = None) -> tuple[set[str], int]:
    """Play the seat this client holds through its page until nothing waits for it; (what was done, pages).
    `on_page` is shown the address and the HTML of every page the player reads."""
    done: set[str] = set()
    url = f"/games/{game_id}"
    for count in range(limit):
        shown = client.get(url)
        assert shown.status_code == 200, shown.get_data(as_text=True)[:2000]
        if on_page is not None:
            on_page(url, shown.get_data(as_text=True))
        step = next_step(Page(shown.get_data(as_text=True)), done)
        if step is None:
            return done, count
        if isinstance(step, Follow):
            url = path(step.href).split("#")[0]
            continue
        if step.form.method == "get":
            url = f"{step.form.action.split('#')[0]}?{urlencode(step.form.data(**step.changes))}"
            continue
        answer = send(client, step.form, **step.changes)
        assert answer.status_code == 303, (step.form.move, parse(answer.get_data(as_text=True))[0],
                                           answer.get_data(as_text=True).split('role="alert"')[-1][:300])
        url = f"/games/{game_id}"
    raise AssertionError(f"the game did not end within {limit} pages")


def to_action(app, client, game_id: str) -> Page:
    """Answer seat 0's decisions through its page (this client holds the seat) until it is to take an action."""
    for _ in range(40):
        shown = client.get(f"/games/{game_id}")
        assert shown.status_code == 200
        page = Page(shown.get_data(as_text=True))
        if table(app, game_id).decision_of(0)["kind"] == "action":
            return page
        step = page.submit("keep_professions") or page.submit("open_auction", "the woods") or page.submit(
            "open_auction") or page.submit("step_out") or page.submit("discard_landscape") or page.submit(
            "choose_card") or page.submit("split_payout")
        assert send(client, step.form).status_code == 303
    raise AssertionError("never came to an action")
