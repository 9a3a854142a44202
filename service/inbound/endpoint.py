"""`POST /inbound/sendgrid`: where SendGrid's Inbound Parse posts every mail sent to a reply address.

It only keeps the post (`inbox`) and hands it to the store's followups (`play_reply`), which queue
the job that plays it (`workers.replies`), so it answers at once and a slow or failing job loses
nothing: the mail stays kept and is retried. A post of a mail already kept queues nothing more,
unless that mail is still waiting (it was kept but never queued, or its job gave up) and no other
post has just dispatched it. Without workers (PALAZZO_JOBS=inline) the reply is played inside the
request. The endpoint exists only with PALAZZO_INBOUND_SECRET set, which the caller proves either
in the path (`/inbound/sendgrid/<secret>`) or as the password of HTTP basic auth; anything else is a
404 or a 401 problem document. It is no part of the public API, so it stays out of the OpenAPI spec.
"""
from __future__ import annotations

import hmac
import logging

from flask import Blueprint, Response, current_app, jsonify, request

from service import web
from service.inbound import form, inbox, message
from service.inbound.replies import Replies
from service.mail.settings import MailSettings
from service.problems import Problem, render

log = logging.getLogger(__name__)
bp = Blueprint("inbound", __name__)

PATH = "/inbound/sendgrid"
MAX_BYTES = 10 * 1024 * 1024  # Inbound Parse posts whole mails, attachments too (it takes up to 30 MB)
DISPATCH_SECONDS = 60  # a post that finds its mail dispatched this recently is a duplicate, whatever its status


@bp.route(PATH, methods=["POST"], defaults={"secret": None})
@bp.route(f"{PATH}/<secret>", methods=["POST"])
def sendgrid(secret: str | None) -> Response:
    refusal = _refusal(secret)
    if refusal is not None:
        return render(refusal)
    request.max_content_length = MAX_BYTES
    try:
        post = form.fields(request.stream, request.content_type, message.FIELDS, MAX_BYTES)
    except ValueError as error:
        return render(Problem("bad_inbound", f"this is not an Inbound Parse post: {error}"))
    if not post.get("email") and not post.get("from"):
        return render(Problem("bad_inbound", "this is not an Inbound Parse post: it has neither 'from' nor 'email'"))
    store = web.store()
    try:
        message_id = message.read(post).message_id
    except message.UnreadableMail:
        message_id = None
    key = inbox.key_of(message_id, post)
    if inbox.keep(store.redis, key, post) not in inbox.PENDING or not inbox.claim(
            store.redis, key, "dispatch", DISPATCH_SECONDS):
        return jsonify(status="duplicate", message=key)
    try:
        status = store.followups.play_reply(Replies(store, web.links(), MailSettings.from_env()), key)
    except Exception:
        inbox.unclaim(store.redis, key, "dispatch")  # the provider posts again, and that post dispatches it
        raise
    return jsonify(status=status, message=key)


def _refusal(secret: str | None) -> Problem | None:
    """Why the caller may not post here: no inbound secret is set (404), the path's is wrong (404),
    or basic auth does not carry it (401); None when he may."""
    expected = (current_app.config.get("INBOUND_SECRET") or "").encode()
    if not expected:
        return Problem("not_found", "no such resource")
    if secret is not None:
        return None if hmac.compare_digest(secret.encode(), expected) else Problem("not_found", "no such resource")
    auth = request.authorization
    if auth is not None and auth.type == "basic" and hmac.compare_digest((auth.password or "").encode(), expected):
        return None
    return Problem("unauthorized", "post with the inbound secret as the basic auth password",
                   headers={"WWW-Authenticate": 'Basic realm="palazzo-inbound"'})
