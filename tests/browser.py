"""Browser tests' parts: the real app served on a free loopback port, and Debian's Chromium driven
by Playwright (never a downloaded browser). Screenshots go to build/artefacts/browser, or to
$PALAZZO_ARTEFACTS."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from werkzeug.serving import WSGIRequestHandler, make_server

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTEFACTS = Path(os.environ.get("PALAZZO_ARTEFACTS") or REPO / "build" / "artefacts" / "browser")
MAIL_ARTEFACTS = REPO / "build" / "artefacts" / "mail"  # the mails as Chromium shows them (tests/test_mail_html.py)


class _Quiet(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        """Each request is not worth a line in the test's output."""


class Served:
    """The app on 127.0.0.1 at a free port, its links built from that address, in a thread."""

    def __init__(self, app: Any):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_Quiet)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        app.extensions["palazzo.links"].base_url = self.base
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Served":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.thread.join(timeout=10)


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def screenshot(page: Any, name: str, height: int | None = None, folder: Path = ARTEFACTS) -> Path:
    """A full-page screenshot (or its top `height` pixels) kept as a test artefact in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height} if height else None
    page.screenshot(path=str(path), full_page=True, clip=clip)
    return path
