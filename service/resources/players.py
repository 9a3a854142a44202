"""Players across games: whose turn it is (most urgent first), and signing in by a mailed link."""
from __future__ import annotations

import json

from service import preferences, signin
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, links, store
from service.schemas import AcceptedOut, PlayerOut, RedeemIn, SettingsIn, SettingsOut, SignInIn, TurnsOut
from service.store import email_key, game_key

blp = blueprint("players", "A player's games across the server, and signing in by email.")


@blp.route("/me/turns", methods=["GET"])
@blp.response(200, TurnsOut)
@documented(blp, "token_required")
def list_my_turns():
    """The decisions waiting for the caller in all his games, most urgent deadline first."""
    # His games come from his address's index (pz:email:<hash>:seats, one key per player), then every
    # game's head in one pipelined round trip (not a transaction: on a Redis Cluster the games lie in
    # many slots). The index is written before a game exists and cleaned after a seat changes hands,
    # so a seat counts only while its game still names his address.
    who = caller()
    if who.kind == "player":
        seats = [member.rsplit(":", 1) for member in store().redis.smembers(email_key(who.email, "seats"))]
    elif who.kind == "seat":
        seats = [(who.game, str(who.seat))]
    else:
        raise Problem("token_required", "send a player or seat token")
    with store().redis.pipeline(transaction=False) as pipe:
        for game_id, _ in seats:
            pipe.hmget(game_key(game_id, "game"), ["version", "status", "pending", "meta"])
        heads = pipe.execute()
    turns = []
    for (game_id, seat), (version, status, pending, meta) in zip(seats, heads):
        if status != "running":
            continue
        meta = json.loads(meta)
        if who.kind == "player" and meta["seats"][int(seat)].get("email_hash") != who.email:
            continue
        for decision in json.loads(pending):
            if decision["seat"] == int(seat):
                turns.append({"game_id": game_id, "game": meta["game"], "seat": int(seat),
                              "kind": decision["kind"], "deadline_at": decision["deadline_at"],
                              "version": int(version)})
    turns.sort(key=lambda t: (t["deadline_at"] or "9999", t["game_id"]))
    return {"turns": turns}


def _player() -> str:
    who = caller()
    if who.kind != "player":
        raise Problem("token_required", "send a player token (from a sign-in link)")
    return who.email


@blp.route("/me/settings", methods=["GET"])
@blp.response(200, SettingsOut)
@documented(blp, "token_required")
def get_my_settings():
    """The caller's mail settings: his time zone and which mails he wants."""
    return preferences.read(store(), _player())


@blp.route("/me/settings", methods=["PUT"])
@blp.arguments(SettingsIn())
@blp.response(200, SettingsOut)
@documented(blp, "token_required", body=True)
def set_my_settings(changes):
    """Change the caller's time zone (IANA name) or mail choice (all, decisions, none)."""
    return preferences.write(store(), _player(), changes)


@blp.route("/sign-in", methods=["POST"])
@blp.arguments(SignInIn())
@blp.response(202, AcceptedOut)
@documented(blp, body=True, secured=False)
def request_sign_in(body):
    """Mail a single-use sign-in link to this address if it plays here.

    Always 202 with the same body, whether or not a mail went out (unknown address, or over the
    limit of 3 mails per address in 15 minutes), so the answer reveals nothing.
    """
    signin.send_link(store(), links(), body["email"])
    return {"status": "accepted"}


@blp.route("/sign-in/redeem", methods=["POST"])
@blp.arguments(RedeemIn())
@blp.response(201, PlayerOut)
@documented(blp, "bad_link", "link_expired", "link_used", body=True, secured=False)
def redeem_sign_in(body):
    """Trade the link from the mail for a new player token (shown once); each link works once."""
    return {"token": signin.redeem(store(), links(), body["link"])}
