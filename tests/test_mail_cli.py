"""The local mailbox as a developer sees it: `palazzo mail list` (and its old name `palazzo outbox`)
and the `/dev/mailbox` page, which nobody but this machine sees, and nobody at all with SendGrid."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import main
from service.localredis import free_port
from service.mail import outbox, render
from service.mail.message import Mail
from service.connection import connect

REPO = Path(__file__).resolve().parent.parent
KEYS = {"to", "subject", "text", "html", "headers", "kind", "game", "seat", "holder", "since", "parts"}


def fill(url: str) -> list[Mail]:
    """Three mails in the outbox, oldest first: a sign-in, an invitation, an old plain one."""
    client = connect(url)
    kept = [render.sign_in("ann@example.org", "http://127.0.0.1:8000/sign-in?link=a1", "a1", "127.0.0.1"),
            render.invitation("bea@example.org", "Bea", 1, "g1", "http://127.0.0.1:8000/sign-in?link=b2", "b2",
                              "127.0.0.1", title="Ann's game", played="Princes of Florence")]
    for mail in kept:
        outbox.push(client, mail)
    plain = Mail(to="Ann@Example.org", subject="Plain <words>", text="Hello & goodbye.")
    outbox.push(client, plain)
    return kept + [plain]


@pytest.fixture
def outbox_url(redis_url, monkeypatch) -> str:
    monkeypatch.setenv("REDIS_URL", redis_url)
    return redis_url


def listed(capsys, *args: str) -> list[dict]:
    assert main(["mail", "list", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_is_one_array_of_whole_mails_oldest_first(outbox_url, capsys):
    kept = fill(outbox_url)
    shown = listed(capsys)
    assert all(set(entry) == KEYS for entry in shown)
    assert [Mail.from_json(entry) for entry in shown] == kept
    assert (shown[1]["kind"], shown[1]["game"]) == ("invitation", "g1")
    assert "sign-in?link=b2" in shown[1]["html"]


def test_to_matches_any_case_and_last_keeps_the_newest(outbox_url, capsys):
    fill(outbox_url)
    assert [m["subject"] for m in listed(capsys, "--to", "ANN@example.org")][1:] == ["Plain <words>"]
    assert [m["to"] for m in listed(capsys, "--last", "2")] == ["bea@example.org", "Ann@Example.org"]
    assert [m["to"] for m in listed(capsys, "--to", "bea@example.org", "--last", "5")] == ["bea@example.org"]
    assert listed(capsys, "--to", "nobody@example.org") == []


def test_an_empty_outbox_is_an_empty_array(outbox_url, capsys):
    assert listed(capsys) == []


def test_outbox_is_the_same_listing_under_its_old_name(outbox_url, capsys):
    fill(outbox_url)
    assert main(["mail", "list", "--to", "bea@example.org"]) == 0
    text = capsys.readouterr().out
    assert main(["outbox", "--to", "bea@example.org"]) == 0
    assert capsys.readouterr().out == text
    assert text.startswith("To: bea@example.org\nSubject: ") and "sign-in?link=b2" in text
    assert main(["outbox", "--json", "--last", "1"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["subject"] == "Plain <words>"


def test_the_address_a_running_up_wrote_under_var_is_found(redis_url, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    fill(redis_url)
    (tmp_path / "redis.url").write_text(redis_url + "\n")
    assert len(listed(capsys, "--var", str(tmp_path))) == 3


@pytest.mark.parametrize("command", [["mail", "list"], ["outbox"]])
def test_no_outbox_is_status_2_with_a_message(command, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("REDIS_URL", raising=False)
    assert main([*command, "--var", str(tmp_path / "none")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "is `palazzo serve`" in err and "redis.url" in err
    (tmp_path / "redis.url").write_text(f"redis://127.0.0.1:{free_port()}/0\n")  # serve has stopped
    assert main([*command, "--json", "--var", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "cannot reach" in err


def test_the_console_command_prints_json(outbox_url):
    fill(outbox_url)
    done = subprocess.run([sys.executable, "-m", "service.cli", "mail", "list", "--json", "--last", "1"],
                          cwd=REPO, env={**os.environ, "REDIS_URL": outbox_url}, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["text"] == "Hello & goodbye."


def test_the_page_lists_the_outbox_newest_first(app, client, monkeypatch):
    monkeypatch.delenv("PALAZZO_MAIL_BACKEND", raising=False)
    fill(app.extensions["palazzo.config"].redis_url)
    page = client.get("/dev/mailbox")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    assert html.index("Plain &lt;words&gt;") < html.index("bea@example.org") < html.index("ann@example.org")
    assert "Hello &amp; goodbye." in html and "<words>" not in html
    assert 'id="mail-3"' in html and "invitation" in html
    assert "<iframe sandbox" in html and "sign-in?link=b2" in html
    assert 'srcdoc="&lt;' in html, "the mail's HTML is an escaped attribute, not part of the page"


def test_the_page_says_when_there_is_no_mail(client, monkeypatch):
    monkeypatch.setenv("PALAZZO_MAIL_BACKEND", "outbox")
    page = client.get("/dev/mailbox")
    assert page.status_code == 200 and "No mail yet." in page.get_data(as_text=True)


@pytest.mark.parametrize("address", ["10.1.2.3", "192.168.0.7", "2001:db8::1", "127.0.0.2"])
def test_the_page_is_not_found_from_another_machine(address, app, client, monkeypatch):
    monkeypatch.delenv("PALAZZO_MAIL_BACKEND", raising=False)
    fill(app.extensions["palazzo.config"].redis_url)
    page = client.get("/dev/mailbox", environ_base={"REMOTE_ADDR": address})
    assert page.status_code == 404 and b"link=" not in page.data


def test_the_page_is_not_found_from_ipv6_loopback_only_when_proxied(app, client, monkeypatch):
    monkeypatch.delenv("PALAZZO_MAIL_BACKEND", raising=False)
    assert client.get("/dev/mailbox", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    forwarded = client.get("/dev/mailbox", headers={"X-Forwarded-For": "203.0.113.9"})
    assert forwarded.status_code == 404, "a proxy on this machine makes every caller look local"


def test_the_page_never_shows_mail_with_sendgrid(redis_url, client, monkeypatch):
    """The app reads the backend once, at its start: one started with SendGrid shows no mailbox."""
    from tests.conftest import make_app
    fill(redis_url)
    monkeypatch.setenv("PALAZZO_MAIL_BACKEND", "sendgrid")
    monkeypatch.setenv("SENDGRID_API_KEY", "SG.test")
    page = make_app(redis_url).test_client().get("/dev/mailbox")
    assert page.status_code == 404 and b"link=" not in page.data and b"ann@example.org" not in page.data
    assert client.get("/dev/mailbox").status_code == 200, "the app started with the outbox shows it"

