"""Signing in by mail: a player token goes only to whoever opens a link mailed to the address.

Links are single-use and expire after an hour. Mails to one address are limited (service.ratelimit);
past the limit nothing is sent and nothing is said, so the answer reveals nothing. Nor does its
time: the request only hands the address to a job (`store.followups.sign_in`), the same work
whether the address plays here or not, and the job decides whether to mail.
"""
from __future__ import annotations

import secrets
from typing import Any

from service import games, ratelimit, tokens
from service.links import Links
from service.mail import render
from service.mail.settings import domain_of
from service.problems import Problem
from service.store import PREFIX, Store, email_key

PURPOSE = "sign-in"
LINK_MAX_AGE = 3600
MAILS_PER_ADDRESS = ratelimit.Limit.parse("3 per 15 minutes")
INVITES_PER_ADDRESS = ratelimit.Limit.parse("10 per hour")
PAGE = "/sign-in"


def _link(links: Links, email: str, join: list[str] | None = None) -> tuple[str, str]:
    """A fresh single-use link for the address: (page URL, the signed link itself). With `join` (a
    game and its join id, `service.seats`) the browser that opens it goes on to that join page."""
    payload = {"e": tokens.email_hash(email), "n": secrets.token_urlsafe(12), **({"j": join} if join else {})}
    signed = links.sign(PURPOSE, payload)
    return links.url(PAGE, link=signed), signed


def send_link(store: Store, links: Links, email: str, join: list[str] | None = None) -> None:
    """Ask for a sign-in link for the address: one small job, whatever the address. `join` is a join
    link's game and id, checked by the caller: then an address new here is mailed too."""
    store.followups.sign_in(store, links, email.strip().lower(), join)


def mail_link(store: Store, links: Links, email: str, join: list[str] | None = None) -> bool:
    """The job: mail a sign-in link if the address plays here (or is to join a game by its link) and
    is under its limit; True when mailed. The address is kept under its hash, since a session and a
    player token keep only the hash and a seat taken by the join link needs somewhere to mail."""
    digest = tokens.email_hash(email)
    if not join and not store.redis.exists(email_key(digest, "known")):
        return False
    if ratelimit.hit(store.redis, MAILS_PER_ADDRESS, "sign-in-mail", digest) is not None:
        return False
    url, signed = _link(links, email, join)
    store.redis.set(email_key(digest, "address"), email)
    store.followups.send_mail(store, render.sign_in(email, url, signed, domain_of(links.base_url)))
    return True


def invite(store: Store, links: Links, invitation: dict[str, Any]) -> bool:
    """Mail a seated player his way in: the seat is his once he opens the link. The invitation names
    the game's title (`games.create` and `games.replace_seat` put it in; else it is read from the game)
    and the game it plays."""
    digest = tokens.email_hash(invitation["email"])
    if ratelimit.hit(store.redis, INVITES_PER_ADDRESS, "invite-mail", digest) is not None:
        return False
    url, signed = _link(links, invitation["email"])
    head = games.heads(store, [invitation["game"]])[invitation["game"]]
    store.followups.send_mail(store, render.invitation(invitation["email"], invitation["name"], invitation["seat"],
                                                       invitation["game"], url, signed, domain_of(links.base_url),
                                                       title=invitation.get("title") or games.title_of(head),
                                                       played=games.game_words(head.meta["game"])))
    return True


def mail_host_link(store: Store, links: Links, email: str, table: games.Table) -> bool:
    """Mail the host a sign-in link that also makes the address his as the game's host: opening it
    proves the address, and from then on the host page is reachable from that account in any browser.
    Limited per address like an invitation; True when mailed."""
    digest = tokens.email_hash(email)
    if ratelimit.hit(store.redis, INVITES_PER_ADDRESS, "invite-mail", digest) is not None:
        return False
    signed = links.sign(PURPOSE, {"e": digest, "n": secrets.token_urlsafe(12), "g": table.id,
                                  "h": table.meta["host"]})
    store.followups.send_mail(store, render.host_link(email, table.id, links.url(PAGE, link=signed), signed,
                                                      domain_of(links.base_url), title=games.title_of(table)))
    return True


def redeem_address(store: Store, links: Links, signed: str) -> str:
    """Use up a mailed link: the hash of the address it proves; a link works once (403 link_used after).
    A host link (`mail_host_link`) also makes that address the game's host's."""
    return redeem_link(store, links, signed)[0]


def redeem_link(store: Store, links: Links, signed: str) -> tuple[str, list[str] | None]:
    """`redeem_address`, and the [game, join id] of the join page the link was asked for from, if any."""
    payload = links.open(PURPOSE, signed, LINK_MAX_AGE)
    if not isinstance(payload, dict) or not {"e", "n"} <= set(payload) or set(payload) - {"e", "n", "g", "h", "j"}:
        raise Problem("bad_link", "this is not a sign-in link")
    join = payload.get("j")
    if join is not None and not (isinstance(join, list) and len(join) == 2 and all(isinstance(j, str) for j in join)):
        raise Problem("bad_link", "this is not a sign-in link")
    if not store.redis.set(f"{PREFIX}:link-used:{payload['n']}", "1", nx=True, ex=LINK_MAX_AGE + 60):
        raise Problem("link_used", "this link was used already; ask for a new one")
    if "g" in payload:
        games.prove_host(store, games.load(store, payload["g"]), payload["h"], payload["e"])
    return payload["e"], join


def redeem(store: Store, links: Links, signed: str, ttl: int, origin: str | None = None) -> str:
    """Trade a mailed link for a new player token (the API's way in; a browser gets a session), which
    ends `ttl` seconds after its last use; `origin` says where it was asked from, for its owner's list."""
    return tokens.issue_player(store, redeem_address(store, links, signed), ttl, origin)
