"""A player's own ways in: his tokens and browser sessions (listed, revoked) and his address (changed
by proving both ends, `service.addresses`)."""
from __future__ import annotations

from dataclasses import asdict

from service import addresses, forgetting, sign_ins, tokens
from service.problems import Problem
from service.resources.common import blueprint, config, documented, links, store
from service.resources.players import player_email
from service.schemas import AddressChangeOut, AddressIn, ForgetIn, ForgottenOut, RedeemIn, SignedInListOut

blp = blueprint("identity", "A player's tokens and browser sessions, changing his address, and deleting his data.")


@blp.route("/me/tokens", methods=["GET"])
@blp.response(200, SignedInListOut)
@documented(blp, "token_required")
def list_my_tokens():
    """The caller's live player tokens and browser sessions, last used first: each one's id, kind,
    when it was made and last used, and where from. A token or session unused for the idle time
    (PALAZZO_TOKEN_IDLE_DAYS, PALAZZO_SESSION_IDLE_DAYS) has ended and is not listed."""
    return {"tokens": sign_ins.listed(store(), player_email(), config().token_idle, config().session_idle)}


@blp.route("/me/tokens/<token_id>", methods=["DELETE"])
@blp.response(204)
@documented(blp, "token_required", "token_not_found")
def revoke_my_token(token_id: str):
    """End one of the caller's tokens or sessions at once, on every channel (the caller's own too).
    404 for an id that is not his, whether or not it is somebody else's."""
    if not sign_ins.revoke(store(), player_email(), token_id[:40]):
        raise Problem("token_not_found", "no token or session of yours has that id")
    return ""


@blp.route("/me/address", methods=["POST"])
@blp.arguments(AddressIn())
@blp.response(202, AddressChangeOut)
@documented(blp, "token_required", "address_unchanged", "address_taken", "address_unproved", "rate_limited",
            body=True)
def change_my_address(body):
    """Ask to play from another address: a link is mailed to the new address and another to the old
    one, and the change is made once both are opened (within a day). Then every seat, hosted game,
    setting, webhook, token and session of the old address is the new one's, and the old one plays
    nothing. Refused, with nothing mailed: the same address, one another player plays from (409), or a
    fourth ask within the hour (429)."""
    addresses.ask(store(), links(), player_email(), body["email"])
    return {"status": "accepted"}


@blp.route("/address/confirm", methods=["POST"])
@blp.arguments(RedeemIn())
@blp.response(200, AddressChangeOut)
@documented(blp, "bad_link", "link_expired", "link_used", "address_taken", "busy", body=True, secured=False)
def confirm_address_change(body):
    """Open one end's link of a change of address (the link's `t`): `waiting` until the other end's is
    opened too, then `changed`. Each link works once."""
    return {"status": addresses.confirm(store(), links(), body["link"])}


@blp.route("/me", methods=["DELETE"])
@blp.arguments(ForgetIn())
@blp.response(200, ForgottenOut)
@documented(blp, "token_required", "confirm_required", "forbidden", "busy", body=True)
def delete_my_data(body):
    """Delete the caller's data: his address, settings, tokens and browser sessions (this token too),
    webhooks and the mail queued to him, and his address in every game. The games go on for the others:
    his seats keep their names; a seat of a game not over is left, as `POST /games/{id}/leave` leaves
    it (open, its stand-in playing it, for a substitute), without the mail that would tell him; a
    finished game keeps his result. Needs `{"confirm": true}`; an `email` that is not the caller's
    own is refused (403). Refused, nothing changes."""
    owner = player_email()
    if body["email"] is not None and tokens.email_hash(body["email"]) != owner:
        raise Problem("forbidden", "a player deletes his own data only: that is not your address; nothing was changed")
    if not body["confirm"]:
        raise Problem("confirm_required", "send {\"confirm\": true} to delete your data; nothing was changed")
    return asdict(forgetting.forget(store(), links(), owner))
