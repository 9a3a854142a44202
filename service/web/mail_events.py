"""SendGrid's Event Webhook: an address that bounces (or reports spam) stops being mailed.

SendGrid posts a JSON array of events. The URL carries a secret (PALAZZO_MAIL_EVENTS_SECRET), so
nobody else can stop a player's mail; without it configured the endpoint does not exist. The
event's custom args name the game, whose host then sees the mail as undelivered. What is kept of an
event is its kind and SMTP codes (`undelivered.event_reason`): the receiving server's words may quote
the mail, and the host reads them.
"""
from __future__ import annotations

import hmac

from flask import Blueprint, Response, abort, request

from service import preferences, tokens, web
from service.mail import undelivered

bp = Blueprint("mail_events", __name__)
STOPPING = {"bounce", "dropped", "spamreport"}


@bp.route("/hooks/sendgrid/<secret>", methods=["POST"])
def sendgrid_events(secret: str) -> Response:
    expected = web.config().mail_events_secret or ""
    if not expected or not hmac.compare_digest(secret, expected):
        abort(404)
    events = request.get_json(silent=True)
    if not isinstance(events, list):
        abort(400)
    store = web.store()
    for event in events[:1000]:
        if not isinstance(event, dict) or event.get("event") not in STOPPING or not isinstance(event.get("email"), str):
            continue
        preferences.write(store, tokens.email_hash(event["email"]), {"bounced": undelivered.event_reason(event)})
        if isinstance(event.get("game"), str):
            undelivered.stopped(store.redis, event)
    return nothing()


def nothing() -> Response:
    """204 with no body and so no Content-Type: a hook's answer is no page."""
    answer = Response(status=204)
    del answer.headers["Content-Type"]
    return answer
