"""The local outbox backend, and `service.mailbox.outbox`, which reads it for the rest of the service."""
from __future__ import annotations

import fakeredis

from service import mailbox
from service.mail import outbox, render
from service.mail.backends import deliver
from service.mail.message import Mail
from service.mail.settings import MailSettings
from service.store import Store


def test_deliver_keeps_the_whole_mail_in_the_outbox_list():
    redis = fakeredis.FakeRedis(decode_responses=True)
    first = render.sign_in("ann@example.org", "https://palazzo.example/sign-in?link=a", "a", "palazzo.example")
    second = render.invitation("bea@example.org", "Bea", 1, "g1", "https://palazzo.example/sign-in?link=b", "b",
                               "palazzo.example", title="Ann's game", played="Princes of Florence")
    settings = MailSettings()
    assert settings.backend == "outbox"
    assert [deliver(first, settings, redis), deliver(second, settings, redis)] == ["outbox-1", "outbox-2"]
    assert redis.llen("pz:outbox") == 2
    kept = mailbox.outbox(Store(redis))
    assert [Mail.from_json(entry) for entry in kept] == [first, second]
    assert kept[1]["to"] == "bea@example.org" and kept[1]["headers"]["References"] == "<game-g1@palazzo.example>"


def test_a_plain_mail_is_kept_and_listed_with_the_defaults_of_a_mail():
    redis = fakeredis.FakeRedis(decode_responses=True)
    outbox.push(redis, Mail(to="cid@example.org", subject="Hello", text="Plain words."))
    [entry] = mailbox.outbox(Store(redis))
    assert (entry["to"], entry["subject"], entry["text"], entry["kind"]) == ("cid@example.org", "Hello", "Plain words.",
                                                                            "plain")
    assert Mail.from_json(entry) == Mail(to="cid@example.org", subject="Hello", text="Plain words.")
