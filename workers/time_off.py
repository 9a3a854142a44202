"""The mails of time that moved: a seat's grace, and the host's pause starting and ending.

Called by `workers.notify.tell` after every public commit, looking at the game as it is now, like
the rest of its mail, and sending each mail once (a claim, as there):
- grace: to a player whose missed deadline got the game's one extension (`service.grace`), once per
  decision and holder; checked again when it leaves like a decision mail (`seats.still_due`);
- paused {until}: to everyone with an address while the game is paused, once per pause and holder;
- resumed {deadlines moved by ...}: once the pause is over, once per pause and holder, with his own
  decision's new deadline.
"Everyone" is each seat whose player takes mail at all (a player who chose only his decisions still
hears of them: they move his deadlines). Every one carries the seat's link.
"""
from __future__ import annotations

from datetime import datetime
from typing import Callable

from service import deadlines, games
from service.inbound import address
from service.mail import render, seats
from service.mail.message import Mail
from service.store import Store
from service.mailed_links import seat_url
from workers import context

CLAIM_TTL = 30 * 24 * 3600


def mails(store: Store, table: games.Table, frame: render.Table, now: datetime) -> int:
    """Send the grace, pause and resume mails the game now calls for; returns how many."""
    return _graces(store, table, frame, now) + _paused(store, table, frame, now) + _resumed(store, table, frame, now)


def _links(table: games.Table, seat: int) -> render.MailLinks:
    """The seat's links (`seats.links_of`), with its seat page even when no decision waits."""
    links = context.links()
    return {"seat": seat_url(links, table, seat), **seats.links_of(links, table, seat)}


def _reply(table: games.Table, seat: int) -> render.Reply | None:
    settings = context.config().mail
    return address.reply_for(context.links(), table, seat, settings.reply_domain) if settings.replies else None


def _graces(store: Store, table: games.Table, frame: render.Table, now: datetime) -> int:
    sent = 0
    for decision in table.pending if table.status == games.RUNNING else []:
        seat = decision["seat"]
        given = table.meta["seats"][seat].get("grace")
        if not given or given["since"] != decision["since"]:
            continue
        to = seats.recipient(store, table, seat)
        if to is None or not seats.claim(store, table.id, seats.decision_claim(seat, to.holder, decision["since"],
                                                                               "grace"), CLAIM_TTL):
            continue
        store.followups.send_mail(store, render.grace(
            table.game.view(table.state, seat), decision, frame, to, _links(table, seat), now,
            table.meta["grace_hours"], table.game.default_move(table.state, seat), _reply(table, seat)))
        sent += 1
    return sent


def _paused(store: Store, table: games.Table, frame: render.Table, now: datetime) -> int:
    if table.status != games.PAUSED:
        return 0
    until = deadlines.parse(table.meta["paused_until"])
    return _to_each(store, table, f"paused:{table.meta['pauses_used']}",
                    lambda seat, to: render.paused(frame, to, _links(table, seat), now, until))


def _resumed(store: Store, table: games.Table, frame: render.Table, now: datetime) -> int:
    """The resume's mail, while it is recent (its claim lasts CLAIM_TTL; the record stays in the meta)."""
    resumed = table.meta.get("resumed")
    if table.status != games.RUNNING or not resumed or (
            now - deadlines.parse(resumed["at"])).total_seconds() > CLAIM_TTL:
        return 0
    return _to_each(store, table, f"resumed:{resumed['pause']}",
                    lambda seat, to: render.resumed(table.game.view(table.state, seat), table.decision_of(seat),
                                                    frame, to, _links(table, seat), now, resumed["moved"]))


def _to_each(store: Store, table: games.Table, what: str, mail_of: Callable[[int, render.Recipient], Mail]) -> int:
    """Mail `mail_of(seat, recipient)` to every seat's player who takes mail, once per holder (`what`
    names the occasion in the claim); returns how many left."""
    sent = 0
    for seat in range(len(table.meta["seats"])):
        to = seats.recipient(store, table, seat)
        if to is not None and seats.claim(store, table.id, f"{what}:{seat}:{to.holder}", CLAIM_TTL):
            store.followups.send_mail(store, mail_of(seat, to))
            sent += 1
    return sent
