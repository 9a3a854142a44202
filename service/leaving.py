"""A player's seat taken from him: he leaves (page, API, a `leave` reply), the host removes him, or he
misses `remove_after` decisions in a row. Every way ends in `vacate`, the one path.

Vacating bumps the seat's holder generation (`games.vacate_seat`), so every token, browser session,
mailed link and reply address of the old player stops acting for the seat in the same commit; his
address leaves the seat's index, the seat is open, and the stand-in bot answers its decisions at their
deadlines (`playing.default_on`) until a substitute takes it (`games.replace_seat`: a fresh deadline
and a welcome mail). The table reads a `seat_left` event; the old player gets one mail saying so.

A leave link (`leave_url`), in the answer to a `leave` reply, is the one-click way to confirm: signed
for its purpose, bound to the seat and its holder generation, good for a week; its page only asks on
GET (`service.web.leave_link`).
"""
from __future__ import annotations

from typing import Any

from service import games, preferences, tokens
from service.links import Links
from service.mail import render
from service.mail.settings import domain_of
from service.mailed_links import seat_key
from service.problems import Problem
from service.store import Store

PURPOSE = "leave"  # the leave link's signature salt: no other link opens it
PAGE = "/leave"
MAX_AGE = 7 * 24 * 3600
TOKEN_CHARS = 4000
REASON_CHARS = 500


def vacate(store: Store, links: Links, table: games.Table, seat: int, why: str, reason: str | None = None,
           holder: int | None = None, answering: str | None = None, tell: bool = True) -> games.Table:
    """Take the seat from its player (`why`: games.LEFT, REMOVED or MISSED, with the host's `reason`),
    and tell him by mail, threaded under his own mail `answering` when he left by replying (not when
    `tell` is False: a player who deletes his data is mailed nothing more).

    `holder` is the generation the caller acts for (a link's, a reply address's): nothing is vacated
    once the seat is someone else's. Raises Problem: seat_not_found, seat_open, seat_is_bot,
    not_a_seat, reason_required, game_finished, game_cancelled."""
    if why == games.REMOVED:
        reason = " ".join((reason or "").split())[:REASON_CHARS]
        if not reason:
            raise Problem("reason_required", "say why the player is removed: the table reads it")
    table, old = games.vacate_seat(store, table, seat, why, reason, holder)
    if old.get("email") and tell:
        _tell(store, links, table, old, why, reason, answering)
    return table


def _tell(store: Store, links: Links, table: games.Table, old: dict[str, Any], why: str, reason: str | None,
          answering: str | None) -> None:
    """The one mail of a player whose seat went: unless he takes no mail, or his address bounced."""
    wanted = preferences.read(store, tokens.email_hash(old["email"]))
    if wanted["mail"] == "none" or wanted["bounced"]:
        return
    store.followups.send_mail(store, render.seat_left(
        old["email"], old["name"], table.id, games.title_of(table), why, reason, links.url(f"/games/{table.id}/watch"),
        domain_of(links.base_url), answering))


def after_timeout(store: Store, links: Links, table: games.Table, seat: int) -> games.Table:
    """Vacate the seat if its player has now missed `remove_after` decisions in a row (the game's
    option; null never): the deadline's move is played already, and the stand-in plays on."""
    limit = table.meta.get("remove_after")
    entry = table.meta["seats"][seat]
    if limit is None or games.seat_is_open(entry) or entry.get("bot") or entry.get("missed", 0) < limit:
        return table
    try:
        missed = f"missed {entry['missed']} decision{'' if entry['missed'] == 1 else 's'} in a row"
        return vacate(store, links, table, seat, games.MISSED, missed, holder=games.holder_of(entry))
    except Problem as problem:
        if problem.status != 409 and problem.code != "not_a_seat":
            raise
        return games.load(store, table.id)  # the seat or the game changed meanwhile: the next timeout sees


def leave_url(links: Links, table: games.Seated, seat: int) -> str:
    """The page that confirms leaving, for the seat's current holder at its address (`seat_key`: a
    player who moves to another address leaves this link behind, powerless)."""
    key = seat_key(table.meta["seats"][seat])
    return links.url(PAGE, t=links.sign(PURPOSE, {"g": table.id, "s": seat, "h": table.holder(seat),
                                                  **({"k": key} if key else {})}))


def open_leave_link(links: Links, signed: str) -> tuple[str, int, int, str | None]:
    """(game, seat, holder, the seat's key then, if the link names one) a leave link names; 403 when
    forged, altered, made for another purpose or too old."""
    payload = links.open(PURPOSE, signed[:TOKEN_CHARS], MAX_AGE)
    if not isinstance(payload, dict) or set(payload) - {"k"} != {"g", "s", "h"} or not all(
            isinstance(payload[k], t) for k, t in (("g", str), ("s", int), ("h", int))):
        raise Problem("bad_link", "this is not a leave link")
    return payload["g"], payload["s"], payload["h"], payload.get("k")
