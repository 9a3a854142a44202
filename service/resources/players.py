"""Players across games: whose turn it is (most urgent first), and signing in by a mailed link."""
from __future__ import annotations

from flask import current_app, request

from service import games, invitations, player_games, preferences, seats, settings, sign_ins, signin
from service.problems import Problem
from service.resources.common import blueprint, caller, config, documented, links, store
from service.schemas import (AcceptedOut, MyGamesOut, MyGamesQuery, PlayerOut, RedeemIn, SettingsIn, SettingsOut,
                             SignInIn, TurnsOut)

blp = blueprint("players", "A player's games across the server, and signing in by email.")


@blp.route("/me/turns", methods=["GET"])
@blp.response(200, TurnsOut)
@documented(blp, "token_required")
def list_my_turns():
    """The decisions waiting for the caller in all his games, most urgent deadline first."""
    who = caller()
    if who.kind == "player":
        held = games.seats_held(store(), who.email)
    elif who.kind == "seat":
        held = {game_id: (who.seat, head) for game_id, head in games.heads(store(), [who.game]).items()}
    else:
        raise Problem("token_required", "send a player or seat token")
    turns = [{"game_id": game_id, "game": head.meta["game"], "title": games.title_of(head), "seat": seat,
              "kind": decision["kind"],
              "deadline_at": decision["deadline_at"], "version": head.version}
             for game_id, (seat, head) in held.items() if head.status == games.RUNNING
             for decision in head.pending if decision["seat"] == seat]
    turns.sort(key=lambda t: (t["deadline_at"] or "9999", t["game_id"]))
    return {"turns": turns}


@blp.route("/me/games", methods=["GET"])
@blp.arguments(MyGamesQuery(), location="query")
@blp.response(200, MyGamesOut)
@documented(blp, "token_required", "invalid_request")
def list_my_games(query):
    """The games the caller holds a seat at or hosts, open, running, finished or cancelled: each with
    its title, whose turn it is (and whether it is his), and his result once it is over. Games waiting
    for him come first, most urgent first. Paged with `offset` and `limit`."""
    who = caller()
    if who.kind == "player":
        found, members, hosts = player_games.heads_of(store(), who.email)
        seats = {game_id: seat for game_id, (seat, _) in games.seats_in(found, members, who.email).items()}
        hosted = games.hosted_in(found, hosts, who.email)
    elif who.kind == "seat":
        found, seats, hosted = games.heads(store(), [who.game]), {who.game: who.seat}, {}
    else:
        raise Problem("token_required", "send a player or seat token")
    listed = player_games.ordered([player_games.entry(found[game_id], seats.get(game_id), game_id in hosted)
                                   for game_id in sorted(set(seats) | set(hosted)) if game_id in found])
    start, end = query["offset"], query["offset"] + query["limit"]
    return {"games": listed[start:end], "total": len(listed), "next_offset": end if end < len(listed) else None}


def player_email() -> str:
    """The address hash of a caller who must hold a player token (401 otherwise)."""
    who = caller()
    if who.kind != "player":
        raise Problem("token_required", "send a player token (from a sign-in link)")
    return who.email


@blp.route("/me/settings", methods=["GET"])
@blp.response(200, SettingsOut)
@documented(blp, "token_required")
def get_my_settings():
    """The caller's mail settings: his time zone, which mails he wants and at what rhythm, his reminders
    and quiet hours, each game's own settings, and how each game's talk comes."""
    email = player_email()
    return settings.shown(store(), email)


@blp.route("/me/settings", methods=["PUT"])
@blp.arguments(SettingsIn())
@blp.response(200, SettingsOut)
@documented(blp, "token_required", "not_a_seat", "bad_reminders", "bad_quiet_hours", body=True)
def set_my_settings(changes):
    """Change the caller's time zone (IANA name), mail choice (all, decisions, none), rhythm (each, digest)
    and digest hour, reminder steps, quiet hours, a game's own settings, or how the talk of games he
    holds a seat in comes by mail (each, digest, none). Everything is checked first: nothing changes
    if one is refused. A change of quiet hours or time zone moves his seats' deadlines out of them."""
    email = player_email()
    try:
        return settings.change(store(), email, changes)
    except preferences.Refused as refused:
        raise Problem(refused.code, refused.detail, errors={"json": {refused.field: [refused.detail]}}) from None


@blp.route("/sign-in", methods=["POST"])
@blp.arguments(SignInIn())
@blp.response(202, AcceptedOut)
@documented(blp, "bad_join_link", "join_link_expired", "join_link_revoked", "game_not_found", "game_over",
            "game_full", body=True, secured=False)
def request_sign_in(body):
    """Mail a single-use sign-in link to this address if it plays here, or to any address with `join`.

    Always 202 with the same body, whether or not a mail goes out (unknown address, or over the
    limit of 3 mails per address in 15 minutes), after the same work: a job decides, so neither the
    answer nor its time reveals anything. With `join`, a join link (checked first: refused when it
    could seat nobody), the link is mailed to an address new here too, and counts as an invitation
    from the caller's client address (429); in a browser it leads on to the join page.
    """
    join = None
    if body.get("join"):
        join = seats.for_sign_in(store(), links(), body["join"])
        invitations.allow(store(), current_app.extensions["palazzo.invite_limit"], request.remote_addr or "", None, 1)
    signin.send_link(store(), links(), body["email"], join)
    return {"status": "accepted"}


@blp.route("/sign-in/redeem", methods=["POST"])
@blp.arguments(RedeemIn())
@blp.response(201, PlayerOut)
@documented(blp, "bad_link", "link_expired", "link_used", body=True, secured=False)
def redeem_sign_in(body):
    """Trade the link from the mail for a new player token (shown once); each link works once."""
    origin = sign_ins.origin(request.remote_addr, request.headers.get("User-Agent"))
    return {"token": signin.redeem(store(), links(), body["link"], config().token_idle.ttl, origin)}
