"""`POST /inbound/sendgrid`: where SendGrid's Inbound Parse posts every mail sent to a reply address.

It checks the post before it keeps anything: its size (at most MAX_BYTES, else 413; attachments are
never read), that one of its recipients (envelope, To, Cc) is a genuine reply address of ours
(`address.seat_of`; else it answers 200 "ignored" and keeps nothing, not even a key to know it
again by, so that a flood for other addresses costs no memory), and that neither its sender nor
its seat has posted more than their hourly share (else 200 "limited", nothing kept). Only then does
it keep the post (`inbox`: only the fields a reply needs, each cut at FIELD_BYTES) and hand it to the
store's followups (`play_reply`), which queue the job that plays it (`workers.replies`) on a queue of
its own, so it answers at once, a slow or failing job loses nothing, and no mail delays a deadline.
A post of a mail already kept queues nothing more, unless that mail is still waiting (it was kept but
never queued, or its job gave up) and no other post has just dispatched it. Without workers
(PALAZZO_JOBS=inline) the reply is played inside the request. Every answer that should stop the
provider's retries is a 2xx (SendGrid retries a post only on a 5xx, for up to 3 days).

The endpoint exists only with PALAZZO_INBOUND_SECRET set, which the caller proves either in the path
(`/inbound/sendgrid/<secret>`) or as the password of HTTP basic auth; anything else is a 404 or a 401
problem document. It is no part of the public API, so it stays out of the OpenAPI spec.
"""
from __future__ import annotations

import hmac
import logging

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from service import ratelimit, tokens, web
from service.inbound import address, form, inbox, message
from service.inbound.replies import Replies
from service.problems import Problem, render

log = logging.getLogger(__name__)
bp = Blueprint("inbound", __name__)

PATH = "/inbound/sendgrid"
MAX_BYTES = 1024 * 1024  # a whole post; a typed reply with the history it quotes fits many times over
FIELD_BYTES = 256 * 1024  # each field kept; what a reply's commands need is at its start
SEAT_LIMIT = ratelimit.Limit.parse("60 per hour")  # posts to one seat's addresses: a reply a minute, whoever sends
SENDER_LIMIT = ratelimit.Limit.parse("120 per hour")  # posts from one sender, who may play several games
DISPATCH_SECONDS = 60  # a post that finds its mail dispatched this recently is a duplicate, whatever its status


@bp.route(PATH, methods=["POST"], defaults={"secret": None})
@bp.route(f"{PATH}/<secret>", methods=["POST"])
def sendgrid(secret: str | None) -> Response:
    refusal = _refusal(secret)
    if refusal is not None:
        return render(refusal)
    request.max_content_length = MAX_BYTES
    try:
        post = form.fields(request.stream, request.content_type, message.FIELDS, FIELD_BYTES)
    except RequestEntityTooLarge:
        return render(Problem("mail_too_large", f"the post is larger than {MAX_BYTES // 1024} KB: nothing was kept"))
    except ValueError as error:
        return render(Problem("bad_inbound", f"this is not an Inbound Parse post: {error}"))
    if not post.get("email") and not post.get("from"):
        return render(Problem("bad_inbound", "this is not an Inbound Parse post: it has neither 'from' nor 'email'"))
    try:
        mail = message.read(post)
    except message.UnreadableMail:
        return jsonify(status="ignored")  # no recipient can be read, so none is ours
    found = address.seat_of(web.links(), mail.recipients)
    if found is None:
        return jsonify(status="ignored")
    store = web.store()
    wait = (ratelimit.hit(store.redis, SEAT_LIMIT, "inbound-seat", f"{found.game_id}:{found.seat}")
            or ratelimit.hit(store.redis, SENDER_LIMIT, "inbound-sender", tokens.email_hash(mail.sender)))
    if wait is not None:
        log.warning("inbound post for %s seat %s from a limited sender or seat: not kept", found.game_id, found.seat)
        return jsonify(status="limited", retry_after=wait)
    key = inbox.key_of(mail.message_id, post)
    if inbox.keep(store.redis, key, post) not in inbox.PENDING or not inbox.claim(
            store.redis, key, "dispatch", DISPATCH_SECONDS):
        return jsonify(status="duplicate", message=key)
    try:
        status = store.followups.play_reply(Replies(store, web.links(), web.config().mail,
                                                            current_app.extensions["palazzo.talk_limit"]), key)
    except Exception:
        inbox.unclaim(store.redis, key, "dispatch")  # the provider posts again, and that post dispatches it
        raise
    return jsonify(status=status, message=key)


def _refusal(secret: str | None) -> Problem | None:
    """Why the caller may not post here: no inbound secret is set (404), the path's is wrong (404),
    or basic auth does not carry it (401); None when he may."""
    expected = (web.config().inbound_secret or "").encode()
    if not expected:
        return Problem("not_found", "no such resource")
    if secret is not None:
        return None if hmac.compare_digest(secret.encode(), expected) else Problem("not_found", "no such resource")
    auth = request.authorization
    if auth is not None and auth.type == "basic" and hmac.compare_digest((auth.password or "").encode(), expected):
        return None
    return Problem("unauthorized", "post with the inbound secret as the basic auth password",
                   headers={"WWW-Authenticate": 'Basic realm="palazzo-inbound"'})
