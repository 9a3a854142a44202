"""A private message is seen by its sender and its recipient only, on every channel. Private
messages go by the API, the seat page, the host page, `tell` lines in a reply and a reply to a
message mail; then everything each reader can read is searched for every private message he may
not see: the API's talk (paged and long-polled), the feed and the game as him, his seat page, the
talk page, the spectator page, the log, the host page, and every mail in his outbox (message mails,
decision mails that carry messages, his digest, the answers to his replies, subjects and headers
included). The search must also find, on those same channels, each private message he may see,
so a channel that showed nothing at all would fail too."""
from __future__ import annotations

import json

from service import tokens
from tests.conftest import bearer
from tests.test_talk_mail import ANN, BEA, CY, opened  # noqa: F401 (the fixture)
from tests.web_client import csrf, enter_host, enter_seat

PRIVATE = {  # text: (writer, reader) of each private message
    "zq-ann-to-bea": ("ann", "bea"), "zq-di-to-ann": ("di", "ann"), "zq-bea-to-ann": ("bea", "ann"),
    "zq-bea-again": ("bea", "ann"), "zq-ann-back": ("ann", "bea"), "zq-cy-to-di": ("cy", "di"),
    "zq-host-to-cy": ("host", "cy"),
}
PUBLIC = ("zq-public-api", "zq-public-mail")
SEATS = {"ann": 0, "bea": 1, "cy": 2, "di": 3}
EMAILS = {"ann": ANN, "bea": BEA, "cy": CY}


def test_no_channel_shows_a_private_message_to_anyone_but_its_two_ends(opened):  # noqa: F811
    from workers import notify, talk
    table = opened(merge=30)  # decision mails and messages wait for the window, and leave together
    game = table.id
    assert table.client.put("/api/v1/me/settings", headers=bearer(table.token(CY)),
                            json={"talk": {game: "digest"}}).status_code == 200
    table.say(ANN, "zq-public-api")
    table.say(ANN, "zq-ann-to-bea", to=1)
    table.say("di", "zq-di-to-ann", to=0)
    table.work()
    notify.flush(tokens.email_hash(BEA))
    table.work()
    [decision] = [m for m in table.mails(BEA) if m["kind"] == "choose"]
    assert "zq-ann-to-bea" in decision["text"], "the message joined the decision mail"
    table.reply(BEA, decision, "say zq-public-mail\ntell Ann zq-bea-to-ann")
    notify.flush(tokens.email_hash(ANN))
    table.work()
    table.say(BEA, "zq-bea-again", to=0)
    table.work()
    notify.flush(tokens.email_hash(ANN))
    table.work()
    [again] = [m for m in table.mails(ANN, ("talk",)) if "zq-bea-again" in m["text"]]
    table.reply(ANN, again, "zq-ann-back")

    pages = {name: table.app.test_client() for name in ("ann", "bea", "cy", "di", "host")}
    for name, seat in SEATS.items():
        enter_seat(table.app, pages[name], game, seat)
    enter_host(table.app, pages["host"], game)
    cy_form = pages["cy"].post(f"/games/{game}/talk", data={
        "csrf": csrf(pages["cy"], f"/games/{game}"), "text": "zq-cy-to-di", "to": "3", "key": "cy-1"})
    host_form = pages["host"].post(f"/games/{game}/host/talk", data={
        "csrf": csrf(pages["host"], f"/games/{game}/host"), "text": "zq-host-to-cy", "to": "2", "key": "h-1"})
    assert cy_form.status_code == host_form.status_code == 303
    table.work()
    for email in (ANN, BEA, CY):
        notify.flush(tokens.email_hash(email))
    talk.digest(tokens.email_hash(CY))
    table.work()
    kept = {text for _, _, text in table.texts()}
    assert set(PRIVATE) | set(PUBLIC) <= kept, set(PRIVATE) | set(PUBLIC) - kept

    api = {"ann": table.token(ANN), "bea": table.token(BEA), "cy": table.token(CY), "di": table.di,
           "host": table.host, "spectator": None}
    total = len(kept)
    seen: dict[str, dict[str, str]] = {}
    for reader, token in api.items():
        auth = bearer(token) if token else {}
        channels = {
            "api talk": table.client.get(f"/api/v1/games/{game}/messages", headers=auth).get_data(as_text=True),
            "api long-poll": table.client.get(f"/api/v1/games/{game}/messages?after={total - 1}&wait=1",
                                              headers=auth).get_data(as_text=True),
            "api feed": table.client.get(f"/api/v1/games/{game}/events", headers=auth).get_data(as_text=True),
            "api game": table.client.get(f"/api/v1/games/{game}", headers=auth).get_data(as_text=True),
        }
        browser = pages.get(reader) or table.app.test_client()
        paths = [f"/games/{game}", f"/games/{game}/talk", f"/games/{game}/watch", f"/games/{game}/log"]
        if reader == "host":
            paths.append(f"/games/{game}/host")
        for path in paths:
            channels[f"page {path}"] = browser.get(path).get_data(as_text=True)
        for mail in table.mails(EMAILS[reader]) if reader in EMAILS else []:
            channels[f"mail {mail['kind']} {mail['subject']}"] = json.dumps(mail)
        seen[reader] = channels

    leaks = [(reader, channel, text) for reader, channels in seen.items() for channel, body in channels.items()
             for text, ends in PRIVATE.items() if reader not in ends and text in body]
    assert leaks == [], leaks
    for reader, channels in seen.items():
        everything = "".join(channels.values())
        missing = [text for text, ends in PRIVATE.items() if reader in ends and text not in everything]
        assert missing == [], (reader, missing)
        assert all(text in channels["api talk"] for text, ends in PRIVATE.items() if reader in ends), reader
        assert all(text in channels["api talk"] and text in channels[f"page /games/{game}/watch"]
                   for text in PUBLIC), reader
    mailed = {reader: "".join(body for channel, body in channels.items() if channel.startswith("mail "))
              for reader, channels in seen.items() if reader in EMAILS}
    assert all(text in mailed[ends[1]] for text, ends in PRIVATE.items() if ends[1] in EMAILS and ends[0] != ends[1]), \
        "each private message reached its recipient by mail (Cy's in his digest)"
    assert any(mail["kind"] == "digest" for mail in table.mails(CY))
