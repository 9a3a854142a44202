"""The vacation bank on a real redis-server (no workers: moves and mail inside the request): the creation
option, taking time off and coming back by the API, by moving and by the seat page's forms, what the
table reads (the seat list, the feed, the pages), a substitute's whole bank, decision mails that wait,
and every bad input refused with its code and nothing changed. Replies by mail: `vacation 3 days`,
`vacation 12 hours`, `back`, and the refusals, each answered by mail."""
from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from service import deadlines, games, vacation
from service.inbound import address
from service.mail import seats as mail_seats
from service.store import game_key
from tests.conftest import bearer, make_app, new_game, seat_tokens
from tests.mail_games import decision_mail, mails, start
from tests.test_inbound import SECRET, multipart, parse_fields
from tests.web_client import csrf, enter_seat

ANN, BEA = "ann@example.org", "bea@example.org"
DOMAIN = "127.0.0.1"
DAY = timedelta(days=1)


@pytest.fixture
def app(redis_url, moving_clock):
    """The app without workers, taking replies by mail too, on a clock the test moves."""
    return make_app(redis_url, INBOUND_SECRET=SECRET)


def _table(app, game_id: str) -> games.Table:
    return games.load(app.extensions["palazzo.store"], game_id)


def _events(client, game_id: str, *kinds: str) -> list[dict]:
    feed = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()
    return [entry["event"] for entry in feed["events"] if entry["event"]["type"] in kinds]


def _due(table: games.Table) -> dict[int, str]:
    return {d["seat"]: d["deadline_at"] for d in table.pending}


def _shifted(stamp: str, by: timedelta) -> str:
    return deadlines.stamp(deadlines.parse(stamp) + by)


@pytest.fixture
def toy(app, client):
    """A running toy game of three seats without addresses: (game id, seat tokens as headers, host)."""
    created = new_game(client, seats=3)
    return created["game"]["id"], {seat: bearer(token) for seat, token in seat_tokens(created).items()}, \
        bearer(created["tokens"]["host"])


def test_the_bank_is_a_creation_option_of_0_to_30_days(app, client):
    assert new_game(client, start=False)["game"]["vacation_days"] == 7
    game = new_game(client, start=False, vacation_days=0)["game"]
    assert game["vacation_days"] == 0 and {s["vacation_left"] for s in game["seats"]} == {0}
    assert {s["vacation_left"] for s in new_game(client, start=False, vacation_days=30)["game"]["seats"]} == {720}
    for wrong in (31, -1, "7", 2.5, None):
        body = {"game": "toy-count", "seats": [{"name": f"P{n}"} for n in range(3)], "vacation_days": wrong}
        refused = client.post("/api/v1/games", json=body)
        assert refused.status_code == 422 and refused.get_json()["code"] == "invalid_request", wrong
    page = client.get("/new").get_data(as_text=True)
    assert 'name="vacation_days"' in page and 'value="7"' in page


def test_two_days_off_move_only_his_deadlines_and_the_table_reads_it(app, client, toy, moving_clock):
    game_id, seats, _ = toy
    before = _table(app, game_id)
    taken = client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"days": 2})
    assert taken.status_code == 200, taken.get_json()
    answer = taken.get_json()
    until = answer["away"]["until"]
    assert answer["seat"] == 0 and answer["hours_left"] == 7 * 24 - 48 and answer["hours"] is None
    assert deadlines.parse(until) - deadlines.parse(answer["away"]["from"]) == 2 * DAY
    after = _table(app, game_id)
    assert _due(after) == {0: _shifted(_due(before)[0], 2 * DAY), 1: _due(before)[1], 2: _due(before)[2]}
    seat = answer["game"]["seats"][0]
    assert seat["away"] == answer["away"] and seat["vacation_left"] == 120
    assert [s["away"] for s in answer["game"]["seats"][1:]] == [None, None]
    [use] = answer["game"]["vacations"]
    assert use == {"seat": 0, "holder": 0, "from": answer["away"]["from"], "until": until, "asked": 48,
                   "hours": None, "ended": None, "how": None}
    assert _events(client, game_id, "vacation_started") == [{"type": "vacation_started", "seat": 0, "until": until}]
    watch = client.get(f"/games/{game_id}/log").get_data(as_text=True)
    assert "P0 is away until" in watch
    for seat in (1, 2):
        _pick(client, game_id, seats[seat])
    assert _table(app, game_id).meta["seats"][0]["away"]["until"] == until, "the others play on; he stays away"


def _pick(client, game_id: str, headers: dict) -> None:
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                         json={"move": {"type": "pick", "value": 1}, "version": version})
    assert played.status_code == 200, played.get_json()


def test_a_decision_that_comes_while_he_is_away_starts_when_he_is_due_back(app, client, toy):
    game_id, seats, _ = toy
    _pick(client, game_id, seats[0])
    taken = client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"days": 1})
    until = taken.get_json()["away"]["until"]
    _pick(client, game_id, seats[1])
    _pick(client, game_id, seats[2])
    [turn] = _table(app, game_id).pending
    assert turn["seat"] == 0 and turn["deadline_at"] == _shifted(until, DAY), "a day from his return, not from now"


def test_coming_back_early_refunds_the_unused_part_rounded_up_to_whole_hours(app, client, toy, moving_clock):
    game_id, seats, _ = toy
    original = _due(_table(app, game_id))
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"hours": 30}).status_code == 200
    moving_clock.advance(timedelta(hours=5, minutes=20))
    back = client.delete(f"/api/v1/games/{game_id}/vacation", headers=seats[0])
    assert back.status_code == 200, back.get_json()
    answer = back.get_json()
    assert answer["hours"] == 6 and answer["away"] is None and answer["hours_left"] == 168 - 6
    assert _due(_table(app, game_id)) == {**original, 0: _shifted(original[0], timedelta(hours=6))}, \
        "his deadline moved by exactly the hours spent; the others' not at all"
    assert _events(client, game_id, "vacation_ended") == [{"type": "vacation_ended", "seat": 0, "hours": 6}]
    [use] = answer["game"]["vacations"]
    assert (use["hours"], use["how"], use["asked"]) == (6, "back", 30)
    again = client.delete(f"/api/v1/games/{game_id}/vacation", headers=seats[0])
    assert again.status_code == 409 and again.get_json()["code"] == "not_away"


def test_his_own_move_ends_it_in_the_same_commit_and_private_orders_do_not(app, client, toy, moving_clock):
    game_id, seats, _ = toy
    original = _due(_table(app, game_id))
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"days": 1}).status_code == 200
    moving_clock.advance(timedelta(hours=2, seconds=1))
    version = client.get(f"/api/v1/games/{game_id}").get_json()["version"]
    assert client.put(f"/api/v1/games/{game_id}/orders", headers=seats[0],
                      json={"limits": {}, "step_out_otherwise": True}).status_code == 200
    assert _table(app, game_id).meta["seats"][0].get("away"), "a private move tells nobody he is back"
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=seats[0],
                         json={"move": {"type": "pick", "value": 2}, "version": version})
    assert played.status_code == 200, played.get_json()
    after = _table(app, game_id)
    assert not after.meta["seats"][0].get("away") and vacation.hours_left(after.meta, 0) == 168 - 3
    assert after.version == version + 1, "the end of the vacation rode in the move's own commit"
    feed = client.get(f"/api/v1/games/{game_id}/events?limit=500").get_json()["events"]
    ended = [e for e in feed if e["event"]["type"] == "vacation_ended"]
    assert [e["event"] for e in ended] == [{"type": "vacation_ended", "seat": 0, "hours": 3}]
    assert ended[0]["version"] == after.version
    assert _due(after)[1] == original[1] and _due(after)[2] == original[2]
    assert after.meta["vacations"][0]["how"] == "moved"


def test_bad_input_is_refused_with_its_code_and_changes_nothing(app, client, toy):
    game_id, seats, host = toy
    url = f"/api/v1/games/{game_id}/vacation"
    rev = _table(app, game_id).rev
    for body, status, code in (({"hours": 3, "days": 1}, 422, "vacation_hours_or_days"),
                               ({}, 422, "vacation_hours_or_days"),
                               ({"hours": 0}, 422, "vacation_too_short"),
                               ({"days": -2}, 422, "vacation_too_short"),
                               ({"days": 8}, 422, "vacation_too_long"),
                               ({"hours": 169}, 422, "vacation_too_long"),
                               ({"hours": "3"}, 422, "invalid_request"),
                               ({"hours": 2.5}, 422, "invalid_request"),
                               ({"weeks": 1}, 422, "invalid_request")):
        refused = client.post(url, headers=seats[0], json=body)
        assert (refused.status_code, refused.get_json()["code"]) == (status, code), body
    assert client.post(url, json={"hours": 3}).get_json()["code"] == "token_required"
    assert client.post(url, headers=host, json={"hours": 3}).get_json()["code"] == "not_a_seat"
    assert client.delete(url, headers=seats[1]).get_json()["code"] == "not_away"
    assert _table(app, game_id).rev == rev, "nothing was changed"

    assert client.post(url, headers=seats[0], json={"hours": 168}).status_code == 200, "the whole bank"
    rev = _table(app, game_id).rev
    twice = client.post(url, headers=seats[0], json={"hours": 1})
    assert twice.status_code == 409 and twice.get_json()["code"] == "away_already"
    assert _table(app, game_id).rev == rev
    # a game not under way
    unstarted = new_game(client, start=False)
    opened = client.post(f"/api/v1/games/{unstarted['game']['id']}/vacation",
                         headers=bearer(seat_tokens(unstarted)[0]), json={"hours": 3})
    assert opened.status_code == 409 and opened.get_json()["code"] == "game_open"
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 2}).status_code == 200
    paused = client.post(url, headers=seats[1], json={"hours": 3})
    assert paused.status_code == 409 and paused.get_json()["code"] == "game_paused"
    nothing = new_game(client, vacation_days=0)
    none_left = client.post(f"/api/v1/games/{nothing['game']['id']}/vacation",
                            headers=bearer(seat_tokens(nothing)[0]), json={"hours": 1})
    assert none_left.status_code == 422 and none_left.get_json()["code"] == "vacation_too_long"


def test_a_substitute_starts_with_a_whole_bank_and_not_away(app, client, toy):
    game_id, seats, host = toy
    original = _due(_table(app, game_id))
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"days": 5}).status_code == 200
    handed = client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"name": "Dee"})
    assert handed.status_code == 200, handed.get_json()
    seat = handed.get_json()["game"]["seats"][0]
    assert seat["away"] is None and seat["vacation_left"] == 168
    after = _table(app, game_id)
    assert deadlines.parse(_due(after)[0]) < deadlines.parse(original[0]) + DAY, "the old player's days are gone"
    assert after.meta["vacations"][0]["how"] == "handed"


def test_a_decision_mail_to_an_away_player_waits_and_its_claim_is_let_go(app, client):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bo", "bot": "random"},
                             {"name": "Cy", "bot": "greedy"}])
    game_id = created["game"]["id"]
    store = app.extensions["palazzo.store"]
    table = _table(app, game_id)
    claim = mail_seats.decision_claim(0, 0, table.decision_of(0)["since"])
    assert store.claim(game_id, f"mailed:{claim}", 60)
    vacation.start(store, table, 0, days=1)
    mail = decision_mail(app, game_id, 0)
    assert "away" in mail_seats.still_due(store, mail)
    assert not store.redis.hexists(game_key(game_id, "claims"), f"mailed:{claim}"), \
        "the end of the vacation, a commit, mails the decision again"
    vacation.end(store, _table(app, game_id), 0)
    assert mail_seats.still_due(store, decision_mail(app, game_id, 0)) is None


def test_the_seat_page_takes_time_off_and_brings_him_back_without_scripts(app, client, toy):
    game_id, seats, _ = toy
    browser = app.test_client()
    enter_seat(app, browser, game_id, 0)
    page = browser.get(f"/games/{game_id}").get_data(as_text=True)
    assert "7 days</strong> left of 7 days" in page and 'action="/games/' + game_id + '/vacation"' in page
    token = csrf(browser, f"/games/{game_id}")
    assert browser.post(f"/games/{game_id}/vacation", data={"amount": "2", "unit": "days"}).status_code == 403, "CSRF"
    for amount, unit, said in (("0", "days", "at least one hour"), ("two", "days", "whole number"),
                               ("9", "days", "have 7 days"), ("3", "weeks", "whole number")):
        refused = browser.post(f"/games/{game_id}/vacation", data={"csrf": token, "amount": amount, "unit": unit})
        assert refused.status_code == 422 and said in refused.get_data(as_text=True), (amount, unit)
    assert not _table(app, game_id).meta["seats"][0].get("away")
    taken = browser.post(f"/games/{game_id}/vacation", data={"csrf": token, "amount": "36", "unit": "hours"})
    assert taken.status_code == 303
    page = browser.get(f"/games/{game_id}").get_data(as_text=True)
    assert "You are away until" in page and "I am back" in page and "5 days and 12 hours of vacation left" in page
    other = app.test_client()
    enter_seat(app, other, game_id, 1)
    assert "P0 is away until" in other.get(f"/games/{game_id}").get_data(as_text=True)
    assert "P0 is away until" in client.get(f"/games/{game_id}/log").get_data(as_text=True)
    back = browser.post(f"/games/{game_id}/vacation/back", data={"csrf": token})
    assert back.status_code == 303
    page = browser.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Welcome back" in page and "You are away" not in page
    assert vacation.hours_left(_table(app, game_id).meta, 0) == 167, "back at once: one hour spent, rounded up"
    again = browser.post(f"/games/{game_id}/vacation/back", data={"csrf": token})
    assert again.status_code == 409 and "not away" in again.get_data(as_text=True)


def test_the_host_page_shows_who_is_away(app, client):
    from tests.web_client import enter_host
    created = new_game(client, game="princes-of-florence", seats=3)
    game_id = created["game"]["id"]
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=bearer(seat_tokens(created)[1]),
                       json={"hours": 5}).status_code == 200
    host = app.test_client()
    enter_host(app, host, game_id)
    assert 'data-away="1"' in host.get(f"/games/{game_id}/host").get_data(as_text=True)
    watch = client.get(f"/games/{game_id}/watch").get_data(as_text=True)
    assert "P1 is away until" in watch


def _reply(client, app, game_id: str, text: str, message_id: str | None = None) -> str:
    to = address.address(app.extensions["palazzo.links"], game_id, 0, 0, DOMAIN)
    answered = client.post(f"/inbound/sendgrid/{SECRET}", data=multipart(parse_fields(ANN, to, text,
                                                                                        message_id=message_id)),
                           content_type="multipart/form-data; boundary=xYzZY")
    assert answered.status_code == 200, answered.get_data(as_text=True)
    return answered.get_json()["status"]


def test_replies_take_time_off_and_come_back_and_each_is_answered(app, client, moving_clock):
    created = start(client, [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA},
                             {"name": "Cy", "bot": "greedy"}])
    game_id = created["game"]["id"]
    original = _due(_table(app, game_id))

    assert _reply(client, app, game_id, "vacation 3 days\n\nThanks, Ann", "<ann-1@example.org>") == "vacation"
    [answer] = mails(app, ANN, ("reply_vacation",))
    assert answer["subject"].startswith("Your time off") and "you are away from “Ann's game” until" in answer["text"]
    assert "4 days of vacation is left" in answer["text"] and answer["headers"]["In-Reply-To"] == "<ann-1@example.org>"
    table = _table(app, game_id)
    assert _due(table)[0] == _shifted(original[0], 3 * DAY) and _due(table)[1] == original[1]
    assert _reply(client, app, game_id, "vacation 3 days\n\nThanks, Ann", "<ann-1@example.org>") == "duplicate", \
        "the same mail posted twice is played once"
    assert len(mails(app, ANN, ("reply_vacation",))) == 1

    version = table.version
    for text, said in (("vacation 12 hours", "away already"), ("vacation next week", "vacation 3 days"),
                       ("vacation 2 days\nkeep painter sculptor architect", "a reply of its own")):
        assert _reply(client, app, game_id, text) == "refused", text
        assert said in mails(app, ANN, ("reply_refused",))[-1]["text"], text
    assert _table(app, game_id).version == version, "no refusal changed anything"

    moving_clock.advance(timedelta(hours=11, minutes=30))
    assert _reply(client, app, game_id, "Back!") == "vacation"
    welcome = mails(app, ANN, ("reply_vacation",))[-1]
    assert welcome["subject"].startswith("Welcome back") and "your vacation took 12 hours" in welcome["text"]
    assert "6 days and 12 hours of vacation is left" in welcome["text"]
    assert _due(_table(app, game_id))[0] == _shifted(original[0], timedelta(hours=12))

    assert _reply(client, app, game_id, "vacation 12 hours") == "vacation"
    assert _reply(client, app, game_id, "vacation 200 hours") == "refused", "one vacation at a time, and no longer"
    assert _reply(client, app, game_id, "back\nkeep painter sculptor architect") in ("applied", "refused")
    table = _table(app, game_id)
    assert not table.meta["seats"][0].get("away") and vacation.hours_left(table.meta, 0) == 168 - 12 - 1
    assert "welcome back" in mails(app, ANN, ("reply_done", "reply_refused"))[-1]["text"].lower()


def test_his_moved_deadline_leaves_his_quiet_hours_and_he_may_come_back_in_a_paused_game(app, client, toy):
    game_id, seats, host = toy
    store = app.extensions["palazzo.store"]
    table = _table(app, game_id)
    moved = deadlines.parse(_due(table)[0]) + 2 * DAY
    rome = ZoneInfo("Europe/Rome")
    quiet = {"zone": "Europe/Rome", "from": f"{(moved - timedelta(hours=1)).astimezone(rome):%H:%M}",
             "to": f"{(moved + timedelta(hours=2)).astimezone(rome):%H:%M}"}
    entries = [dict(entry) for entry in table.meta["seats"]]
    entries[0]["quiet"] = quiet
    games._host_change(store, table, (games.RUNNING,), meta={**table.meta, "seats": entries})
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=seats[0], json={"days": 2}).status_code == 200
    due = deadlines.parse(_due(_table(app, game_id))[0])
    assert due == deadlines.quiet_end(moved, quiet) and due > moved, "out of his quiet hours, as every deadline of his"

    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 2}).status_code == 200
    back = client.delete(f"/api/v1/games/{game_id}/vacation", headers=seats[0])
    assert back.status_code == 200 and back.get_json()["hours"] == 1 and back.get_json()["game"]["status"] == "paused"
