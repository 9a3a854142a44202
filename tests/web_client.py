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
    """Open the seat's link in this client, as its player does from his mail."""
    answer = client.get(path(seat_url(app.extensions["palazzo.links"], table(app, game_id), seat)))
    assert answer.status_code == 303, answer.status_code


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
