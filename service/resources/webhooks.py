"""A player's webhooks: URLs that get each notice of his games as a signed JSON POST
(`service.channels.webhooks`), for one game or all of them."""
from __future__ import annotations

from service.channels import targets, webhooks
from service.problems import Problem
from service.resources.common import blueprint, caller, config, documented, store
from service.schemas import WebhookIn, WebhookOut, WebhooksOut

blp = blueprint("webhooks", "A player's webhooks: each notice of his games POSTed, signed, to a URL of his.")


def _owner() -> str:
    who = caller()
    if who.kind != "player":
        raise Problem("token_required", "send a player token (from a sign-in link)")
    return who.email


def _mine(hook_id: str) -> webhooks.Registration:
    hook = webhooks.get(store(), hook_id)
    if hook is None or hook.owner != _owner():
        raise Problem("webhook_not_found", "no such webhook among yours")
    return hook


@blp.route("/me/webhooks", methods=["GET"])
@blp.response(200, WebhooksOut)
@documented(blp, "token_required")
def list_my_webhooks():
    """The caller's webhooks (without their secrets), oldest first."""
    return {"webhooks": [hook.shown() | {"secret": None} for hook in webhooks.of_owner(store(), _owner())]}


@blp.route("/me/webhooks", methods=["POST"])
@blp.arguments(WebhookIn())
@blp.response(201, WebhookOut)
@documented(blp, "token_required", "not_a_seat", "game_not_found", "bad_webhook_url", "webhook_target_refused",
            "webhook_unreachable", "too_many_webhooks", body=True)
def add_webhook(new):
    """Register a URL for one game (his seat's notices, or a game he hosts: what a spectator sees)
    or for all his games. The answer holds the signing secret, once."""
    try:
        hook = webhooks.add(store(), _owner(), new["url"], new["game"], new["events"], new["format"],
                            config().webhook_allow_private)
    except targets.Refused as refused:
        raise Problem(refused.code, refused.detail, errors={"json": {"url": [refused.detail]}}) from None
    return hook.shown() | {"secret": hook.secret}


@blp.route("/me/webhooks/<hook_id>", methods=["DELETE"])
@blp.response(204)
@documented(blp, "token_required", "webhook_not_found")
def delete_webhook(hook_id):
    """Remove one of the caller's webhooks: nothing more is posted to it."""
    webhooks.remove(store(), _mine(hook_id))


@blp.route("/me/webhooks/<hook_id>/enable", methods=["POST"])
@blp.response(200, WebhookOut)
@documented(blp, "token_required", "webhook_not_found", "webhook_target_refused", "bad_webhook_url",
            "webhook_unreachable")
def enable_webhook(hook_id):
    """Turn a webhook that was disabled after failing back on (its URL is checked again)."""
    hook = _mine(hook_id)
    try:
        targets.check(hook.url, config().webhook_allow_private)
    except targets.Refused as refused:
        raise Problem(refused.code, refused.detail) from None
    return webhooks.set_enabled(store(), hook, True).shown() | {"secret": None}
