"""A webhook delivery over https, as production makes it: to the address the SSRF check passed, with the
URL's name for TLS (server name and certificate check) and the Host header.

The receiver is a real TLS server on 127.0.0.1 with a self-signed certificate for a name that resolves
nowhere (hooks.example.test); the client trusts it through SSL_CERT_FILE, which OpenSSL's default paths
(`ssl.create_default_context`) read each time a context is made.
"""
from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.channels import targets, webhooks
from service.localredis import free_port
from tests.mail_servers import certificate, server_context

NAME = "hooks.example.test"


class Receiver(http.server.BaseHTTPRequestHandler):
    """Answers 204 and keeps what it was sent: the Host header, the server name TLS asked for, the body."""

    seen: list[dict[str, str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        self.seen.append({"host": self.headers["Host"], "sni": getattr(self.server, "asked_for", ""),
                          "body": body, "signature": self.headers["Palazzo-Signature"]})
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def _serve(context: ssl.SSLContext) -> tuple[http.server.HTTPServer, int]:
    port = free_port()
    server = http.server.HTTPServer(("127.0.0.1", port), Receiver)

    def asked(sock: ssl.SSLSocket, name: str | None, _: ssl.SSLContext) -> None:
        server.asked_for = name or ""  # type: ignore[attr-defined]

    context.sni_callback = asked
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, port


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, int]]:
    """Two receivers trusted by the client: one whose certificate names NAME, one naming another host."""
    right, wrong = certificate(tmp_path, NAME), certificate(tmp_path, "elsewhere.example.test")
    bundle = tmp_path / "trusted.pem"
    bundle.write_text(right[0].read_text() + wrong[0].read_text())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    Receiver.seen = []
    servers = [_serve(server_context(*right)), _serve(server_context(*wrong))]
    yield servers[0][1], servers[1][1]
    for server, _ in servers:
        server.shutdown()
        server.server_close()


def _hook() -> webhooks.Registration:
    return webhooks.Registration(id="h1", owner="ann", url=f"https://{NAME}/in", secret="s" * 32)


def test_an_https_delivery_goes_to_the_checked_address_and_shows_the_urls_name_to_tls_and_http(trusted):
    port, _ = trusted
    target = targets.Target("https", NAME, port, "/in?x=1", "127.0.0.1")
    assert webhooks.post(_hook(), target, b'{"kind": "your_turn"}', "d1") == 204
    (seen,) = Receiver.seen
    assert seen["sni"] == NAME and seen["host"] == f"{NAME}:{port}", "TLS and Host carry the URL's name"
    assert seen["body"] == '{"kind": "your_turn"}'
    stamp = int(seen["signature"].split(",")[0].removeprefix("t="))
    assert seen["signature"] == webhooks.signature("s" * 32, seen["body"].encode(), stamp)


def test_a_certificate_for_another_name_at_the_checked_address_is_not_trusted(trusted):
    _, port = trusted
    target = targets.Target("https", NAME, port, "/in", "127.0.0.1")
    with pytest.raises(webhooks.DeliveryFailed, match="SSL"):
        webhooks.post(_hook(), target, b"{}", "d2")
    assert Receiver.seen == [], "nothing was sent to a receiver whose certificate names another host"
