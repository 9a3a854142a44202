"""A game's mail to one of its seats: whether its player takes it, the links it carries, the game it
shows around his view, and the claim that sends it once.

Every game mail goes through here, the ones the workers send (`workers.notify`) and the answers to
replies (`service.inbound.replies`), so that none reaches an address whose player chose no mail or
that bounced, whichever part of the service sends it.
"""
from __future__ import annotations

from service import games, preferences, tokens
from service.links import Links
from service.mail import render
from service.store import Store
from service.web import unsubscribe
from service.web.oneclick import answer_links


def recipient(store: Store, table: games.Table, seat: int, everyone: bool = False) -> render.Recipient | None:
    """The seat's player, if he has an address and wants this mail (`everyone`: a mail to the whole
    table, which a player who chose only his decisions does not get), in his time zone."""
    entry = table.meta["seats"][seat]
    if not entry.get("email") or entry.get("bot"):
        return None
    wanted = preferences.read(store, tokens.email_hash(entry["email"]))
    if wanted["mail"] == "none" or wanted["bounced"] or (everyone and wanted["mail"] == "decisions"):
        return None
    return render.Recipient(entry["email"], entry["name"], seat, wanted["time_zone"])


def links_of(links: Links, table: games.Table, seat: int) -> render.MailLinks:
    """The seat's page, its one-click answers and the unsubscribe link for its address."""
    found = answer_links(links, table, seat) if table.decision_of(seat) else {}
    return {**found, "unsubscribe": unsubscribe.link(links, tokens.email_hash(table.meta["seats"][seat]["email"]))}


def frame(table: games.Table, domain: str) -> render.Table:
    """What every mail of the game shows around the seat's view: the game and its players."""
    return render.Table(table.id, [s["name"] for s in table.meta["seats"]], domain)


def claim(store: Store, game_id: str, what: str, ttl: int) -> bool:
    """True the first time `what` is claimed for this game within `ttl` seconds: the mail is ours to send."""
    return store.claim(game_id, f"mailed:{what}", ttl)
