"""`/dev/mailbox`: the local outbox in a browser, for whoever runs `palazzo up` on his own machine.

The page shows sign-in links in full, which is anyone's seat, so it exists only while mail goes to
the local outbox (PALAZZO_MAIL_BACKEND unset or "outbox", read on every request as the mail jobs
read it) and only to a request from this machine that no proxy forwarded; every other request gets
a plain 404, so a deployment does not even show that the page exists. Its HTML mails are shown in
sandboxed frames, which inherit the page's policy: the one page whose policy lets inline styles
(HTML mail's only kind) apply.
"""
from __future__ import annotations

from typing import Any

from flask import Response, abort, request

from service import mailbox, web
from service.web.pages import blueprint, render

bp = blueprint("dev_mailbox", __name__, session=False, inline_styles=True)

PATH = "/dev/mailbox"
LOOPBACK = frozenset({"127.0.0.1", "::1"})
FORWARDED = ("Forwarded", "X-Forwarded-For", "X-Real-IP")  # a proxy on this machine makes every caller local


def allowed() -> bool:
    """The outbox backend is on and the caller sits at this machine."""
    backend = web.config().mail.backend
    proxied = any(name in request.headers for name in FORWARDED)
    return backend == "outbox" and request.remote_addr in LOOPBACK and not proxied


def newest_first(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The outbox's entries with their local message number (outbox-N), newest first."""
    numbered = [{**message, "number": number} for number, message in enumerate(messages, start=1)]
    return numbered[::-1]


@bp.route(PATH, methods=["GET"])
def show() -> Response:
    if not allowed():
        abort(404)
    return render("dev_mailbox.html", messages=newest_first(mailbox.outbox(web.store())))
