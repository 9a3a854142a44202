"""How much mail one creator may make Palazzo send to strangers.

Naming an address in a new game (or a seat handed over, or a host link) mails it an invitation. Each
such mail is counted against whoever asked for it, by the client address he called from and, when he
proved one (a player token, a signed-in browser), by his own address too, so that game creation is no
mail relay: past the limit nothing is created and nothing is sent (429). Each recipient has his own
limit besides (`signin.INVITES_PER_ADDRESS`), and the invitation carries only our own words.
"""
from __future__ import annotations

from typing import Any

from service import games, ratelimit, seats, signin
from service.links import Links
from service.problems import Problem
from service.store import Store

LIMIT = "30 per hour"  # the default of PALAZZO_INVITE_LIMIT: invitations per client address and per creator


def allow(store: Store, limit: ratelimit.Limit, client: str, creator: str | None, count: int) -> None:
    """Count `count` invitations against the client address and the creator's proved address (its
    hash), or refuse them all (429 rate_limited) before anything is created or sent."""
    if count <= 0:
        return
    limits = [(limit, "invites-from", client)]
    if creator:
        limits.append((limit, "invites-by", creator))
    wait = ratelimit.hit_all(store.redis, limits, count)
    if wait is not None:
        raise Problem("rate_limited", f"too many invitations from you; try again in {wait} s, or create the "
                                      "game with fewer addresses and pass its seat links on yourself",
                      headers={"Retry-After": str(wait)}, retry_after=wait)


def create(store: Store, links: Links, spec: dict[str, Any], *, min_deadline: int, limit: ratelimit.Limit,
           client: str, creator: str | None) -> tuple[games.Table, dict[str, Any]]:
    """Create a game and mail its invitations, for the API and the create page alike: (table, tokens
    to hand out once).

    `creator` is the hash of the address the creator proved (he is signed in), which then hosts the
    game; a `host_email` in the spec, from a creator who proved none, is mailed a host link instead.
    Every mail the game makes us send is counted against the creator first (`allow`).
    """
    host_email = spec.get("host_email") if not creator else None
    invited = sum(1 for seat in spec["seats"] if seat.get("email") and not seat.get("bot"))
    allow(store, limit, client, creator, invited + (1 if host_email else 0))
    table, issued, invitations = games.create(store, spec, min_deadline, host_address=creator)
    for invitation in invitations:
        signin.invite(store, links, invitation)
    if host_email:
        signin.mail_host_link(store, links, host_email, table)
    return table, issued


def replace_seat(store: Store, links: Links, table: games.Table, seat: int, player: dict[str, Any], *,
                 limit: ratelimit.Limit, client: str, creator: str | None) -> tuple[games.Table, str | None]:
    """Hand a seat over and mail its new holder his sign-in link, for the API and the host page alike:
    (table, token of a seat without an address, for the host to pass on). The mail counts as an
    invitation of the host's (`allow`), refused before the seat changes hands."""
    if player.get("email") and not player.get("bot"):
        allow(store, limit, client, creator, 1)
    table, token, invitation = seats.hand_over(store, table, seat, player)
    if invitation:
        signin.invite(store, links, invitation)
    return table, token


def host_link(store: Store, links: Links, table: games.Table, email: str, *,
              limit: ratelimit.Limit, client: str, creator: str | None) -> None:
    """Mail `email` a link that makes it the game's host's, counted as an invitation (`allow`)."""
    allow(store, limit, client, creator, 1)
    signin.mail_host_link(store, links, email, table)
