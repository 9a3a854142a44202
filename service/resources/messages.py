"""Table talk over the API: a game's messages as the caller may read them (paged, resumable and
long-polled like the feed), writing one as a seat or the host, and the host hiding one."""
from __future__ import annotations

from flask import current_app, request

from service import messages
from service.problems import Problem
from service.resources.common import (IDEMPOTENCY_KEY, IF_NONE_MATCH, blueprint, caller, conditional, documented,
                                      host_of, load_game, store, viewer)
from service.schemas import MessageIn, MessageOut, MessagePageOut, MessagesQuery

blp = blueprint("messages", "Table talk: messages to the whole table, or privately to one seat.")


@blp.route("/games/<game_id>/messages", methods=["GET"])
@blp.arguments(MessagesQuery(), location="query")
@blp.response(200, MessagePageOut)
@blp.alt_response(304, description="Not Modified: nothing you may see has changed since the ETag sent")
@documented(blp, "game_not_found", "wrong_game", "invalid_request", parameters=[IF_NONE_MATCH])
def list_messages(query, game_id):
    """Messages with seq greater than `after`, oldest first, as you may read them: a seat reads those
    to the table and its own private ones (sent or received), the host those to the table and his
    own, a spectator (no token) those to the table. Pass `next_after` back to resume.

    With `wait=N` (up to 30 s) and nothing after `after` yet, the answer comes as soon as a message is
    written, or after N seconds with none.
    """
    table = load_game(game_id)
    reader = messages.reader_of(*viewer(table, caller()))
    if query["wait"]:
        messages.wait(store(), game_id, query["after"], query["wait"])
    found, last, total = messages.page(store(), game_id, reader, query["after"], query["limit"])
    return conditional({"messages": found, "next_after": last, "more": last < total}, total)


@blp.route("/games/<game_id>/messages", methods=["POST"])
@blp.arguments(MessageIn())
@blp.response(201, MessageOut)
@documented(blp, "token_required", "not_a_seat", "wrong_game", "game_not_found", "game_cancelled", "talk_full",
            "message_empty", "message_too_long", "message_control_character", "bad_recipient",
            "bad_idempotency_key", body=True, parameters=[IDEMPOTENCY_KEY])
def post_message(body, game_id):
    """Write to the whole table (`to` null) or privately to one seat, as a seat's player or the host.

    Plain text, 1 to 2,000 characters; at most PALAZZO_TALK_LIMIT messages per seat (60 an hour
    unless set otherwise): 429 past it. With an Idempotency-Key, a retry returns the first message
    (header Idempotent-Replayed) and writes nothing.
    """
    table = load_game(game_id)
    role, seat = viewer(table, caller())
    if role == "spectator":
        raise Problem("not_a_seat", "only a player seated at this game, or its host, may talk at its table")
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 0 < len(key) <= 200:
        raise Problem("bad_idempotency_key", "an Idempotency-Key has 1 to 200 characters")
    posted, replayed = messages.post(store(), table, messages.reader_of(role, seat), body["to"], body["text"],
                                     current_app.extensions["palazzo.talk_limit"], key)
    return posted, 201, ({"Idempotent-Replayed": "true"} if replayed else {})


@blp.route("/games/<game_id>/messages/<int:seq>/hide", methods=["POST"])
@blp.response(200, MessageOut)
@documented(blp, "token_required", "host_only", "game_not_found", "message_not_found")
def hide_message(game_id, seq):
    """The host hides a message to the table (or one of his own): it stays in the record, marked
    hidden, and only its writer still reads its text, on every channel."""
    table = load_game(game_id)
    host_of(table, caller())
    return messages.hide(store(), table, seq)
