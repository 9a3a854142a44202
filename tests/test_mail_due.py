"""A mail is true when it leaves: `service.mail.sending.send`, the one way every mail leaves, checks
it against the game and the player's choices as they are then, and sends it once. Real games on a
real redis-server, the local outbox as the provider."""
from __future__ import annotations

import pytest

from service import preferences, tokens
from service.config import Config
from service.mail import render, sending
from service.mail.message import Mail
from service.web import unsubscribe
from tests.conftest import bearer, make_app
from tests.mail_games import answer, decision_mail, decision_part, mails, player, start

ANN, BEA = "ann@example.org", "bea@example.org"
SEATS = [{"name": "Ann", "email": ANN}, {"name": "Bea", "email": BEA}, {"name": "Cy"}]


@pytest.fixture
def app(redis_url):
    return make_app(redis_url)


def send(app, mail) -> str:
    return sending.send(app.extensions["palazzo.store"], mail, Config.from_env().mail)


def dropped(app, kind: str) -> int:
    return int(app.extensions["palazzo.store"].redis.hget(sending.DROPPED, kind) or 0)


def test_a_decision_mail_answered_before_it_leaves_is_not_sent(app):
    client = app.test_client()
    game_id = start(client, SEATS)["game"]["id"]
    for_ann, reminder, for_bea = (decision_mail(app, game_id, 0), decision_mail(app, game_id, 0, reminder=True),
                                  decision_mail(app, game_id, 1))
    answer(client, player(app, client, ANN), game_id)
    assert send(app, for_ann) == "" and send(app, reminder) == ""
    assert send(app, for_bea).startswith("outbox-"), "Bea's decision still waits"
    assert [m["to"] for m in mails(app, kinds=("choose", "reminder"))] == [BEA]
    assert (dropped(app, "choose"), dropped(app, "reminder")) == (1, 1)


def test_after_unsubscribing_a_player_gets_no_game_mail_but_still_his_sign_in_link(app):
    client = app.test_client()
    game_id = start(client, SEATS)["game"]["id"]
    made = decision_mail(app, game_id, 0)
    links = app.extensions["palazzo.links"]
    path = unsubscribe.link(links, tokens.email_hash(ANN)).removeprefix(links.base_url)
    assert client.post(path, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    assert send(app, made) == "" and not mails(app, ANN, ("choose",))
    player(app, client, ANN)  # waits for the sign-in mail: an account mail checks only bounces


def test_a_bounced_address_gets_nothing_more(redis_url):
    app = make_app(redis_url, MAIL_EVENTS_SECRET="hook")
    client = app.test_client()
    game_id = start(client, SEATS)["game"]["id"]
    made = decision_mail(app, game_id, 0)
    assert client.post("/hooks/sendgrid/hook", json=[{"email": ANN, "event": "bounce", "reason": "550"}]).status_code == 204
    sign_in = render.sign_in(ANN, "http://127.0.0.1:8000/sign-in?link=x", "x", "127.0.0.1")
    assert send(app, made) == "" and send(app, sign_in) == ""
    assert not mails(app, ANN, ("choose", "sign_in")) and (dropped(app, "choose"), dropped(app, "sign_in")) == (1, 1)


def test_players_who_chose_only_decisions_get_their_decisions_but_no_round_results(app):
    client = app.test_client()
    game_id = start(client, SEATS)["game"]["id"]
    preferences.write(app.extensions["palazzo.store"], tokens.email_hash(ANN), {"mail": "decisions"})
    made = decision_mail(app, game_id, 0)
    to_everyone = Mail(**{**made.to_json(), "kind": "round_result", "headers": {}})
    assert send(app, made).startswith("outbox-") and send(app, to_everyone) == ""


def test_a_mail_made_for_a_seats_earlier_holder_is_not_sent(app):
    """Even to the same address: the seat was handed over since, and the mail's links were his."""
    client = app.test_client()
    created = start(client, SEATS)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    made = decision_mail(app, game_id, 1)
    assert client.put(f"/api/v1/games/{game_id}/seats/1", headers=host,
                      json={"name": "Bea again", "email": BEA}).status_code == 200
    assert send(app, made) == "" and not mails(app, BEA, ("choose",))
    assert send(app, decision_mail(app, game_id, 1)).startswith("outbox-"), "a mail made for her now goes"


def test_a_merged_mail_leaves_with_the_decisions_still_waiting(app):
    client = app.test_client()
    ids = [start(client, SEATS)["game"]["id"] for _ in range(3)]
    parts = [decision_part(app, game_id, 0)[1] for game_id in ids]
    domain = Config.from_env().mail.domain
    ann = player(app, client, ANN)
    answer(client, ann, ids[0])
    assert send(app, render.merged(parts, ANN, domain)).startswith("outbox-")
    [two] = mails(app, ANN, ("merged",))
    assert ids[0] not in two["text"] + two["html"] and all(i in two["text"] and i in two["html"] for i in ids[1:])
    assert [(p["game"], p["since"]) for p in two["parts"]] == [(p["game"], p["since"]) for p in parts[1:]]
    assert two["subject"].startswith("2 decisions") and two["html"].count("<!DOCTYPE html>") == 1
    answer(client, ann, ids[1])
    assert send(app, render.merged(parts, ANN, domain)).startswith("outbox-")
    [one] = mails(app, ANN, ("choose",))
    assert one["game"] == ids[2] and ids[1] not in one["text"], "one left: its own decision mail"
    answer(client, ann, ids[2])
    assert send(app, render.merged(parts, ANN, domain)) == "" and dropped(app, "merged") == 1


def test_a_mail_sent_once_is_not_sent_again(app):
    client = app.test_client()
    game_id = start(client, SEATS)["game"]["id"]
    made = decision_mail(app, game_id, 0)
    first = send(app, made)
    assert first.startswith("outbox-") and send(app, made) == first
    assert len(mails(app, ANN, ("choose",))) == 1
    assert app.extensions["palazzo.store"].redis.ttl(sending.sent_key(made)) > 24 * 3600


def test_a_decision_mail_of_a_paused_game_waits_for_the_resume(app):
    """Its deadline moves on resume, so it is not sent now; its claim is let go, so that the mail the
    resume calls for (with the new deadline) is sent."""
    from service.mail import seats
    from service.store import game_key
    client = app.test_client()
    created = start(client, SEATS)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    made = decision_mail(app, game_id, 0)
    store = app.extensions["palazzo.store"]
    claim = seats.decision_claim(0, made.holder, made.since)
    assert seats.claim(store, game_id, claim, 60)
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 1}).status_code == 200
    assert send(app, made) == "" and not store.redis.exists(game_key(game_id, f"mailed:{claim}"))
    assert client.post(f"/api/v1/games/{game_id}/resume", headers=host).status_code == 200
    assert seats.claim(store, game_id, claim, 60), "the resume's mail may claim it"
    assert send(app, decision_mail(app, game_id, 0)).startswith("outbox-")
