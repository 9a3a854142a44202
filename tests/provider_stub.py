"""A stand-in for SendGrid's POST /v3/mail/send on a loopback port, for the real sendgrid library to
talk to: it keeps every mail it is handed and answers each as `answer` decides.

A refusal's body quotes the mail's subject and text, as a provider's error may quote what it refused:
whatever keeps the provider's words keeps the mail."""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "SG.test-key.not-a-real-one"


def accept(payload: dict[str, Any]) -> int:
    return 202


class Provider:
    """The stub: `mails` holds every payload posted, oldest first; `answer(payload)` is its status."""

    def __init__(self, answer: Callable[[dict[str, Any]], int] = accept) -> None:
        self.answer = answer
        self.mails: list[dict[str, Any]] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                provider.mails.append(payload)
                status = provider.answer(payload)
                body = b"" if status == 202 else json.dumps({"errors": [{"message": (
                    f"refused {payload['subject']!r}: {payload['content'][0]['value'][:200]}")}]}).encode()
                self.send_response(status)
                self.send_header("X-Message-Id", f"stub-{len(provider.mails)}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def env(self) -> dict[str, str]:
        """The settings that send the service's mail here."""
        return {"PALAZZO_MAIL_BACKEND": "sendgrid", "SENDGRID_API_KEY": KEY, "PALAZZO_SENDGRID_HOST": self.url}

    def __enter__(self) -> "Provider":
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
