"""Players across games: whose turn it is (most urgent first), and signing in by a mailed link."""
from __future__ import annotations

from service import games, messages, preferences, signin
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, links, store
from service.schemas import AcceptedOut, PlayerOut, RedeemIn, SettingsIn, SettingsOut, SignInIn, TurnsOut

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
    turns = [{"game_id": game_id, "game": head.meta["game"], "seat": seat, "kind": decision["kind"],
              "deadline_at": decision["deadline_at"], "version": head.version}
             for game_id, (seat, head) in held.items() if head.status == games.RUNNING
             for decision in head.pending if decision["seat"] == seat]
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
    """The caller's mail settings: his time zone, which mails he wants, and how each game's talk comes."""
    email = _player()
    return {**preferences.read(store(), email), "talk": messages.mail_choices(store(), email)}


@blp.route("/me/settings", methods=["PUT"])
@blp.arguments(SettingsIn())
@blp.response(200, SettingsOut)
@documented(blp, "token_required", "not_a_seat", body=True)
def set_my_settings(changes):
    """Change the caller's time zone (IANA name), mail choice (all, decisions, none), or how the talk
    of games he holds a seat in comes by mail (each, digest, none); nothing changes if one is refused."""
    email = _player()
    talk = changes.pop("talk", {})
    held = games.seats_held(store(), email) if talk else {}
    strangers = sorted(set(talk) - set(held))
    if strangers:
        raise Problem("not_a_seat", f"you hold no seat at game {strangers[0]}, so its talk is not yours to choose")
    settings = preferences.write(store(), email, changes)
    for game_id, choice in talk.items():
        messages.choose_mail(store(), email, game_id, choice)
    return {**settings, "talk": messages.mail_choices(store(), email)}


@blp.route("/sign-in", methods=["POST"])
@blp.arguments(SignInIn())
@blp.response(202, AcceptedOut)
@documented(blp, body=True, secured=False)
def request_sign_in(body):
    """Mail a single-use sign-in link to this address if it plays here.

    Always 202 with the same body, whether or not a mail goes out (unknown address, or over the
    limit of 3 mails per address in 15 minutes), after the same work: a job decides, so neither the
    answer nor its time reveals anything.
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
