"""`POST /inbound/sendgrid`: where SendGrid's Inbound Parse posts every mail sent to a reply address.

It reads the post (at most MAX_BYTES, else 413; attachments are never read; the post's fields as
bytes, `form`, each cut at FIELD_BYTES) and hands it to `receiving.receive`, the one way in of every
received mail, which checks it, keeps it once and queues the job that plays it; so it answers at
once, a slow or failing job loses nothing, and no mail delays a deadline. Without workers
(PALAZZO_JOBS=inline) the reply is played inside the request. Every answer that should stop the
provider's retries is a 2xx (SendGrid retries a post only on a 5xx, for up to 3 days): "ignored" (for
no reply address of ours), "limited", "duplicate", or the reply's status.

The endpoint exists only with PALAZZO_INBOUND_SECRET set, which the caller proves either in the path
(`/inbound/sendgrid/<secret>`) or as the password of HTTP basic auth; anything else is a 404 or a 401
problem document. It is no part of the public API, so it stays out of the OpenAPI spec.
"""
from __future__ import annotations

import hmac

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from service import web
from service.inbound import form, message
from service.inbound.receiving import FIELD_BYTES, MAX_BYTES, receive
from service.inbound.replies import Replies
from service.problems import Problem, render

bp = Blueprint("inbound", __name__)

PATH = "/inbound/sendgrid"


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
    receipt = receive(Replies(web.store(), web.links(), web.config().mail,
                              current_app.extensions["palazzo.talk_limit"]), post)
    if receipt.status == "limited":
        return jsonify(status="limited", retry_after=receipt.retry_after)
    return jsonify(status=receipt.status, **({"message": receipt.key} if receipt.key else {}))


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
