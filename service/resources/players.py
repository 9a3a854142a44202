"""Players across games: whose turn it is (most urgent first), and sign-in by emailed link."""
from __future__ import annotations

import json

from flask import current_app, request
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from service import mailbox, tokens
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, store
from service.schemas import AcceptedOut, PlayerOut, RedeemIn, SignInIn, TurnsOut
from service.store import email_key, game_key

blp = blueprint("players", "A player's games across the server, and signing in by email.")
LINK_MAX_AGE = 3600


def _signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="palazzo-sign-in")


@blp.route("/me/turns", methods=["GET"])
@blp.response(200, TurnsOut)
@documented(blp, 401)
def my_turns():
    """The decisions waiting for the caller in all his games, most urgent deadline first."""
    who = caller()
    if who.kind == "player":
        seats = [member.rsplit(":", 1) for member in store().redis.smembers(email_key(who.email, "seats"))]
    elif who.kind == "seat":
        seats = [(who.game, str(who.seat))]
    else:
        raise Problem(401, "token_required", "send a player or seat token")
    with store().redis.pipeline(transaction=False) as pipe:
        for game_id, _ in seats:
            pipe.hmget(game_key(game_id, "game"), ["version", "status", "pending", "meta"])
        heads = pipe.execute()
    turns = []
    for (game_id, seat), (version, status, pending, meta) in zip(seats, heads):
        if status != "running":
            continue
        for decision in json.loads(pending):
            if decision["seat"] == int(seat):
                turns.append({"game_id": game_id, "game": json.loads(meta)["game"], "seat": int(seat),
                              "kind": decision["kind"], "deadline_at": decision["deadline_at"],
                              "version": int(version)})
    turns.sort(key=lambda t: (t["deadline_at"] or "9999", t["game_id"]))
    return {"turns": turns}


@blp.route("/sign-in", methods=["POST"])
@blp.arguments(SignInIn())
@blp.response(202, AcceptedOut)
def sign_in(body):
    """Email a sign-in link to this address if it plays here; always 202, so it reveals nothing."""
    email = body["email"].strip().lower()
    if store().redis.exists(email_key(tokens.email_hash(email), "known")):
        link = _signer().dumps(tokens.email_hash(email))
        url = f"{request.host_url.rstrip('/')}/sign-in?link={link}"
        mailbox.send(store(), email, "Your Palazzo sign-in link",
                     f"Open {url} within an hour to sign in, or POST {{\"link\": \"{link}\"}}"
                     f" to /api/v1/sign-in/redeem. If you did not ask for this, ignore this message.")
    return {"status": "accepted"}


@blp.route("/sign-in/redeem", methods=["POST"])
@blp.arguments(RedeemIn())
@blp.response(201, PlayerOut)
@blp.alt_response(403, response="FORBIDDEN")
def redeem(body):
    """Trade the link from the email for a new player token (shown once)."""
    try:
        email = _signer().loads(body["link"], max_age=LINK_MAX_AGE)
    except SignatureExpired:
        raise Problem(403, "link_expired", "this sign-in link has expired; ask for a new one") from None
    except BadSignature:
        raise Problem(403, "bad_link", "this is not a sign-in link we sent") from None
    token, _ = tokens.issue(store(), {"kind": "player", "email": email})
    return {"token": token}
