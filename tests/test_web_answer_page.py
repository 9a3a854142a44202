"""The page a one-click answer opens says when its decision is due, as the seat page does
(`tableau.due`, in the player's own zone: UTC for a seat without an address)."""
from __future__ import annotations

from service import deadlines
from service import phrases
from service.mailed_links import answer_links
from tests.conftest import new_game
from tests.web_client import path, table


def test_the_confirm_page_says_when_the_decision_is_due(app, client):
    game_id = new_game(client)["game"]["id"]
    answer = answer_links(app.extensions["palazzo.links"], table(app, game_id), 0)["one_click"][0]
    page = client.get(path(answer["url"]))
    due = deadlines.parse(table(app, game_id).decision_of(0)["deadline_at"])
    assert page.status_code == 200
    assert f"Due {phrases.clock(due, 'UTC')} (in ".encode() in page.data
