"""Replies read over IMAP by `palazzo worker` (PALAZZO_IMAP_HOST), from Debian's Dovecot started by the
test with its own config (`tests/mail_servers.py`): each mail a player's reply APPENDed to Palazzo's
INBOX, played once through the same inbound path as an Inbound Parse post, and moved to the done
folder. The whole game sends through a real SMTP server too (aiosmtpd, STARTTLS and AUTH), and its
worker is killed twice at chosen points of its work on the mailbox: nothing is played twice, nothing
is lost."""
from __future__ import annotations

import os
import random
import signal
import time
import uuid
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import formatdate

import pytest
import redis

from service import preferences, tokens
from service.inbound import imap, inbox
from service.mail import headers, undelivered
from tests import delivery_reports
from tests.conftest import jobs_idle, wait_for
from tests.mail_servers import Dovecot, Relay, SmtpServer, certificate
from tests.test_inbound import (ANSWER_KINDS, DOMAIN, SEATS, create, decision_mail, game, listed, live,  # noqa: F401
                                moves_by, outbox, quoting)

PALAZZO = {"palazzo": "imap-secret"}
DONE = "Palazzo.Done"  # PALAZZO_IMAP_DONE_FOLDER's default, "Palazzo/Done", in Dovecot's maildir separator
ANN = "ann@example.org"


def reply(sender: str, to: str, answering: str, text: str) -> tuple[bytes, str]:
    """A player's reply as his mail program sends it: (its RFC 822 bytes, its Message-ID)."""
    message = EmailMessage(policy=SMTP)
    message_id = f"<{uuid.uuid4().hex}@mail.example.org>"
    message["From"], message["To"], message["Subject"] = f"{sender[:3].title()} <{sender}>", to, "Re: Palazzo"
    message["Message-ID"], message["In-Reply-To"], message["References"] = message_id, answering, answering
    message["Date"] = formatdate()
    message.set_content(text)
    return bytes(message), message_id


def kept(live) -> list[str]:
    return list(live.app.extensions["palazzo.store"].redis.scan_iter("pz:inbound:*:state"))


@pytest.mark.parametrize("capabilities", [None, "IMAP4rev1 LITERAL+ UIDPLUS NAMESPACE"],
                         ids=["idle-and-move", "polling-and-copy"])
def test_a_reply_appended_to_the_inbox_is_played_once_and_every_mail_moves_to_the_done_folder(
        live, workers, redis_url, capabilities):
    with Dovecot(PALAZZO, capabilities) as dovecot:
        offered = dovecot.client("palazzo").capabilities()
        assert (b"IDLE" in offered and b"MOVE" in offered) == (capabilities is None)
        game_id = create(live, SEATS)
        workers(1, PALAZZO_MAIL_DOMAIN=DOMAIN, **dovecot.settings("palazzo"))
        first = decision_mail(live, "Ann@example.org")
        commands = listed(first)
        answer, message_id = reply(ANN, first["headers"]["Reply-To"], first["headers"]["Message-ID"],
                                   quoting(first, commands[1]))
        stray, _ = reply(ANN, f"palazzo@{DOMAIN}", first["headers"]["Message-ID"], commands[0])
        for message in (answer, stray, answer):  # the reply twice (a mail program sent it again), and a stray
            dovecot.append("palazzo", message)
        wait_for(lambda: dovecot.count("palazzo", DONE) == 3 and dovecot.count("palazzo", "INBOX") == 0)
        wait_for(lambda: outbox(live.app, "Ann@example.org", ANSWER_KINDS))
        wait_for(lambda: jobs_idle(redis.Redis.from_url(redis_url)))
        [done] = outbox(live.app, "Ann@example.org", ANSWER_KINDS)
        assert done["kind"] == "reply_done" and done["headers"]["In-Reply-To"] == message_id
        [played] = moves_by(live, game_id, 0)
        assert not played.get("timeout") and not played.get("bot")
        assert len(kept(live)) == 1, "the stray mail, to no reply address of ours, left nothing"
        assert dovecot.message_ids("palazzo", DONE).count(message_id) == 2


def test_a_bounce_in_the_mailbox_stops_mail_to_its_address_and_a_forged_one_for_another_does_not(
        live, workers, redis_url):
    """Mail sent through SMTP has no provider's events: the MTA's delivery report comes back to the mailbox."""
    with Dovecot(PALAZZO) as dovecot:
        game_id = create(live, SEATS)
        workers(1, PALAZZO_MAIL_DOMAIN=DOMAIN, **dovecot.settings("palazzo"))
        message_id = decision_mail(live, "Ann@example.org")["headers"]["Message-ID"]
        for recipient in ("ann@example.org", "bea@example.org"):  # Bea's quotes a mail that went to Ann
            dovecot.append("palazzo", delivery_reports.report(f"palazzo@{DOMAIN}", recipient, message_id))
        wait_for(lambda: dovecot.count("palazzo", DONE) == 2 and dovecot.count("palazzo", "INBOX") == 0)
        store = live.app.extensions["palazzo.store"]
        assert preferences.read(store, tokens.email_hash(ANN))["bounced"] == "bounce: 5.1.1"
        assert preferences.read(store, tokens.email_hash("bea@example.org"))["bounced"] is None
        [stopped] = undelivered.listed(store.redis, game_id)
        assert stopped["seat"] == 0 and not kept(live), "a report is never kept as a reply"


def test_the_providers_authentication_results_vouch_for_a_reply_only_under_its_own_name():
    """PALAZZO_IMAP_AUTHSERV: the topmost Authentication-Results header of the mailbox's provider."""
    from service.inbound import message
    raw = (b"Authentication-Results: mx.provider.example; dkim=pass header.i=@example.org header.s=s1;\r\n"
           b" spf=pass (sender allowed) smtp.mailfrom=ann@example.org; dmarc=pass\r\n"
           b"Authentication-Results: mx.forger.example; spf=pass smtp.mailfrom=ann@example.org\r\n"
           b"From: Ann <ann@example.org>\r\nTo: someone@palazzo.example\r\nMessage-ID: <a@b>\r\n\r\nhelp\r\n")
    passed = message.read(imap.post_of(raw, "mx.provider.example"))
    assert (passed.spf, passed.dkim, passed.envelope_from) == ("pass", "{@example.org : pass}", "ann@example.org")
    assert message.authenticated(passed) is True
    failed = raw.replace(b"dkim=pass", b"dkim=fail").replace(b"spf=pass (sender", b"spf=softfail (sender")
    assert message.authenticated(message.read(imap.post_of(failed, "mx.provider.example"))) is False
    assert message.authenticated(message.read(imap.post_of(raw, "mx.other.example"))) is False, "no verdict of ours"
    assert message.authenticated(message.read(imap.post_of(raw))) is None, "unset: nothing is said either way"


def pick(rng: random.Random, commands: list[str]) -> str:
    """Mostly a work or a building when one is offered, so that the game has them; else any command."""
    preferred = [c for c in commands if c.startswith("publish ")] or [c for c in commands if c.startswith("build ")]
    return rng.choice(preferred if preferred and rng.random() < 0.8 else commands)


def test_a_whole_game_through_smtp_and_imap_with_the_worker_killed_mid_fetch_and_before_a_move(
        live, workers, redis_url, tmp_path):
    cert = certificate(tmp_path)
    humans = {"ann@example.org": 0, "bea@example.org": 1}
    seats = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bea", "email": "bea@example.org"},
             {"name": "Cy", "bot": "greedy"}]
    queues = redis.Redis.from_url(redis_url)
    with SmtpServer("starttls", cert) as smtp, Dovecot(PALAZZO) as dovecot:
        relay = Relay(dovecot.port)
        env = {**smtp.settings("starttls"), "SSL_CERT_FILE": str(cert[0]), "PALAZZO_MAIL_DOMAIN": DOMAIN,
               "PALAZZO_MAIL_FROM": f"Palazzo <palazzo@{DOMAIN}>", **dovecot.settings("palazzo", relay.port)}
        [worker] = workers(1, **env)
        game_id = create(live, seats)
        kills = {4: b"BODY.PEEK[]", 9: b" MOVE "}  # the reply whose fetch, or whose move, the worker dies in
        rng, seen, sent, answered = random.Random(3), 0, [], set()
        deadline = time.monotonic() + 240
        while game(live, game_id)["status"] != "finished":
            assert time.monotonic() < deadline, "the game did not reach its end"
            arrived = smtp.keeper.arrived(seen)
            seen += len(arrived)
            for to, mail in arrived:
                decision = headers.decision_in(mail["Message-ID"] or "")
                if to not in humans or decision is None or mail["Auto-Submitted"] or mail["Message-ID"] in answered:
                    continue  # answers to replies list the commands too; the decision mail is answered
                answered.add(mail["Message-ID"])
                text = mail.get_body(("plain",)).get_content().replace("\r\n", "\n")
                raw, message_id = reply(to, mail["Reply-To"], mail["Message-ID"],
                                        quoting({"text": text}, pick(rng, listed({"text": text}))))
                sent.append(message_id)
                hold = kills.get(len(sent))
                if hold:  # the command held is this reply's: every other mail has left the INBOX
                    wait_for(lambda: dovecot.count("palazzo", "INBOX") == 0)
                held = relay.hold(hold) if hold else None
                dovecot.append("palazzo", raw)
                if held is None:
                    continue
                assert held.wait(30), f"the worker never sent {hold!r}"
                if hold == b" MOVE ":  # the reply is played while its move waits
                    wait_for(lambda to=to, answering=message_id: [m for m in smtp.keeper.messages(to)
                                                                  if m["In-Reply-To"] == answering])
                wait_for(lambda: jobs_idle(queues))
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
                [worker] = workers(1, **env)
            time.sleep(0.05)
        wait_for(lambda: dovecot.count("palazzo", "INBOX") == 0)
        wait_for(lambda: jobs_idle(queues))
        answers = [m for m in smtp.keeper.messages() if m["Auto-Submitted"] and m["In-Reply-To"] in sent]
        assert sorted(m["In-Reply-To"] for m in answers) == sorted(sent), "each reply answered once"
        assert {m["Subject"].split(":")[0] for m in answers} == {"Done"}, "every reply was played"
        assert sorted(dovecot.message_ids("palazzo", DONE)) == sorted(sent), "each reply moved once"
        for seat in humans.values():
            moves = moves_by(live, game_id, seat)
            assert moves and not [m for m in moves if m.get("timeout") or m.get("bot")], "every move came from a reply"
        assert len(sent) > 20 and game(live, game_id)["result"] is not None
        assert not outbox(live.app), "all mail went through the SMTP server"
        states = [inbox.state(live.app.extensions["palazzo.store"].redis, key.split("{")[1].split("}")[0])["status"]
                  for key in kept(live)]
        assert len(states) == len(sent) and set(states) == {"applied"}


def test_a_worker_with_an_imap_setting_it_cannot_read_stops_at_once_and_says_which(workers, tmp_path):
    [worker] = workers(1, PALAZZO_IMAP_HOST="127.0.0.1", PALAZZO_IMAP_POLL="soon")
    assert worker.wait(timeout=60) == 2
    assert "PALAZZO_IMAP_POLL" in (tmp_path / "worker-0.log").read_text()
