"""Webhooks, the second channel (`service.channels`): find what each registration covering a game
has not been told yet, and deliver it.

`tell` runs after each commit and each message of a game with addresses (from `workers.channels.game`
and `workers.talk`); for each registration it builds the notices as its owner may see them
(`service.channels.notices`), claims each delivery id once and queues its delivery. `deliver` posts
one delivery, re-checking the target (SSRF) first and connecting to the address checked; RQ retries
it with backoff, and `gave_up`, after the last try, disables the registration and mails its owner.
"""
from __future__ import annotations

from service import games
from service.channels import Notice, notices, targets, webhooks
from service.mail.message import Mail
from service.store import Store, email_key
from workers import context

name = "webhooks"  # as a channel (`service.channels.Channel`)


def tell(store: Store, table: games.Table) -> int:
    """Queue the deliveries the game owes its registrations; how many."""
    host = table.meta.get("host_email_hash")
    owners = [*notices.holders(table), *([host] if host else [])]
    told: dict[int | None, list[Notice]] = {}  # each reader's notices, built once for all his hooks
    queued = 0
    for hook in webhooks.for_game(store, table.id, owners):
        allowed, seat = notices.reader_of(table, hook.owner)
        if not allowed:
            continue
        if seat not in told:
            told[seat] = notices.of(store, table, seat)
        for notice in told[seat]:
            delivery = webhooks.delivery_id(hook, notice)
            if notice.kind in hook.events and webhooks.claim(store, hook, delivery):
                store.followups.send_webhook(store, hook.id, _payload(hook, notice, delivery), delivery)
                queued += 1
    return queued


def _payload(hook: webhooks.Registration, notice: Notice, delivery: str) -> str:
    links = {"game": context.links().url(f"/games/{notice.game}")}
    return webhooks.body(hook, notice, delivery, links).decode()


def deliver(hook_id: str, payload: str, delivery: str) -> int:
    """POST one delivery; raises (so RQ retries) unless the receiver answered 2xx. A registration
    removed or disabled meanwhile gets nothing; a target now refused is a failed try."""
    store = context.store()
    hook = webhooks.get(store, hook_id)
    if hook is None or not hook.enabled:
        return 0
    target = targets.check(hook.url, context.config().webhook_allow_private)
    status = webhooks.post(hook, target, payload.encode(), delivery)
    webhooks.succeeded(store, hook_id)
    return status


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback, after every failed try: counts it; after the last, disables and tells."""
    store = context.store()
    disabled = webhooks.failed(store, job.args[0], last=not job.retries_left)
    if disabled is None:
        return
    address = store.redis.get(email_key(disabled.owner, "address"))
    if address:
        links = context.links()
        store.followups.send_mail(store, Mail(
            to=address, subject="Palazzo stopped posting to your webhook", kind="webhook_disabled",
            text=(f"Your webhook {disabled.url} failed {disabled.failures} times ({exc_value}), the last "
                  f"after every retry, so Palazzo has stopped posting to it.\n\nWhen it works again, turn it "
                  f"back on: {links.url('/settings')} or POST /me/webhooks/{disabled.id}/enable.\n")))
