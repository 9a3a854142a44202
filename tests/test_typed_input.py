"""Numbers and time zones a person types are read strictly: an unreadable one is refused with a 4xx
(a problem document, or the page again saying why), never a 500, and nothing changes.

Each input here crashed a reader once: `"²".isdigit()` is true but `int("²")` raises; `float("inf")`
and `float("1e308") * 3600` overflow in `round`; `ZoneInfo("America")` raises IsADirectoryError.
"""
from __future__ import annotations

import re

import pytest

from engine.core import Unreadable
from engine.typed import decimal_number, whole_number
from service import preferences, tokens
from tests.conftest import bearer, new_game, seat_tokens, sign_in
from tests.web_client import csrf, enter_seat, table, to_action

pytest.importorskip("engine.pof")

HOURS = ["inf", "-inf", "1e308", "-1e308", "nan", "²", "1_0"]


@pytest.mark.parametrize("text, number", [
    ("7", 7), (" 12 ", 12), ("0", 0), ("²", None), ("①", None), ("٣", None), ("1_000", None), ("-3", None),
    ("+3", None), ("3.0", None), ("", None), (None, None), ("9" * 19, None),
])
def test_a_whole_number_is_ascii_digits_only(text, number):
    assert whole_number(text) == number


@pytest.mark.parametrize("text, number", [
    ("2", 2.0), ("0.5", 0.5), (".5", 0.5), ("48", 48.0), *[(text, None) for text in HOURS], ("1e3", None), ("", None),
])
def test_a_decimal_number_has_no_sign_exponent_or_infinity(text, number):
    assert decimal_number(text) == number


def _games_in(app) -> list[str]:
    return list(app.extensions["palazzo.store"].redis.scan_iter(match="pz:{*}:*:game"))


def _create(client, **fields):
    form = {"csrf": csrf(client, "/new"), "name0": "Ann", "player0": "human", "name1": "Bo", "player1": "human",
            "name2": "Robo", "player2": "greedy", "bidding": "step", "start": "true", **fields}
    return client.post("/new", data=form)


@pytest.mark.parametrize("fields", [
    {"missed_turns": "²"}, {"seed": "²"},
    *[{"deadline_bid": hours} for hours in HOURS], {"deadline_turn": "1e308"}, {"deadline_setup": "inf"},
])
def test_the_create_page_refuses_an_unreadable_number_and_creates_nothing(app, client, fields):
    answer = _create(client, **fields)
    assert answer.status_code == 422
    html = answer.get_data(as_text=True)
    assert "The game was not created" in html and "Not a valid integer." in html
    assert not _games_in(app)


def _hosted(app, client) -> str:
    created = _create(client)
    assert created.status_code == 303
    return re.search(r"/games/([0-9a-f]+)/host", created.headers["Location"]).group(1)


@pytest.mark.parametrize("hours", ["²", "inf", "1e308", "٣"])
def test_the_host_page_refuses_an_unreadable_pause_and_changes_nothing(app, client, hours):
    game_id = _hosted(app, client)
    before = table(app, game_id)
    host_url = f"/games/{game_id}/host"
    answer = client.post(f"{host_url}/pause", data={"csrf": csrf(client, host_url), "hours": hours})
    assert answer.status_code == 422
    assert "A pause lasts 1 to 168 hours; nothing was changed." in answer.get_data(as_text=True)
    after = table(app, game_id)
    assert (after.status, after.rev, after.meta["pauses_used"]) == ("running", before.rev, before.meta["pauses_used"])


@pytest.mark.parametrize("query", ["turn=²", "turn=%C2%B2", "turn=1e308", "at=²-1", "at=1-2-3"])
def test_the_seat_page_says_a_placement_step_is_unreadable_and_shows_the_rest(app, client, query):
    created = new_game(client, game="princes-of-florence", seats=3, bots={1: "random", 2: "greedy"})
    game_id = created["game"]["id"]
    enter_seat(app, client, game_id, 0)
    to_action(app, client, game_id)
    before = table(app, game_id).rev
    answer = client.get(f"/games/{game_id}?piece=tower&{query}")
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    assert "could not be read" in html and 'data-decision="action"' in html
    assert 'class="anchor"' in html, "the placement is still offered, from its first orientation"
    assert table(app, game_id).rev == before
    assert client.get(f"/games/{game_id}?piece=tower&turn=0").status_code == 200


@pytest.mark.parametrize("zone", ["America", "__pycache__", "Etc", "zone.tab", "tzdata.zi", "a" * 64,
                                  "Europe/../Europe/Rome"])
def test_settings_refuse_a_name_that_is_no_time_zone(app, client, zone):
    new_game(client, emails=True)
    player = bearer(sign_in(app, client, "p0@example.org"))
    refused = client.put("/api/v1/me/settings", headers=player, json={"time_zone": zone})
    assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request", refused.get_data()
    assert "time_zone" in refused.get_json()["errors"]["json"]
    stored = preferences.read(app.extensions["palazzo.store"], tokens.email_hash("p0@example.org"))
    assert stored["time_zone"] == "UTC"


@pytest.mark.parametrize("tag", ['"²"', "²", '"7²"', '"1e3"', '"7.zz"', '"7:gzip:br"'])
def test_a_move_refuses_an_if_match_that_is_no_version(app, client, tag):
    created = new_game(client)
    game_id = created["game"]["id"]
    before = table(app, game_id).rev
    answer = client.post(f"/api/v1/games/{game_id}/moves", headers={**bearer(seat_tokens(created)[0]), "If-Match": tag},
                         json={"move": {"type": "pick", "value": 1}})
    assert answer.status_code == 422 and answer.get_json()["code"] == "bad_if_match", answer.get_data()
    assert table(app, game_id).rev == before


@pytest.mark.parametrize("line", ["bid ²", "sell ²", "prestige ²", "take ² prestige", "² prestige"])
def test_a_mailed_command_with_an_unreadable_number_is_refused_in_words(line):
    from engine.pof import GAME
    with pytest.raises(Unreadable):
        GAME.grammar.parse([line])
