"""A game's mail to one of its seats: whether its player takes it, the links it carries, the game it
shows around his view, the claim that sends it once, and whether it is still true when it leaves.

Every game mail goes through here, the ones the workers send (`workers.notify`) and the answers to
replies (`service.inbound.replies`), so that none reaches an address whose player chose no mail or
that bounced, whichever part of the service sends it; `still_due` checks that again when the mail
leaves (`service.mail.sending`), since a mail may wait (a merge window, a retry) while the game moves on.
"""
from __future__ import annotations

from typing import Any

from service import games, messages, preferences, told, tokens, vacation
from service.links import Links
from service.mailed_links import answer_links, seat_url, unsubscribe_link
from service.mail import render
from service.mail.message import Mail
from service.store import Store

DECISION_KINDS = frozenset({"your_turn", "your_bid", "choose", "reminder", "grace"})  # true while the decision waits
EVERYONE_KINDS = frozenset({"round_result", "game_over"})  # mail to the whole table: only for mail "all"


def recipient(store: Store, table: games.Table, seat: int, everyone: bool = False) -> render.Recipient | None:
    """The seat's player, if he has an address and wants this mail of this game (his settings for it,
    `preferences.effective`; `everyone`: a mail to the whole table, which a player who chose only his
    decisions does not get), in his time zone."""
    entry = table.meta["seats"][seat]
    if not entry.get("email") or entry.get("bot"):
        return None
    wanted = preferences.effective(preferences.read(store, tokens.email_hash(entry["email"])), table.id)
    if _unwanted(wanted, everyone):
        return None
    return render.Recipient(entry["email"], entry["name"], seat, wanted["time_zone"], table.holder(seat),
                            wanted["rhythm"], tuple(wanted["reminders"]))


def links_of(links: Links, table: games.Table, seat: int) -> render.MailLinks:
    """The seat's page (in every mail of the seat: a round's result and the final scores too), its
    one-click answers and the unsubscribe link for its address: its one click stops this game's mail
    (its page offers all mail too)."""
    found = answer_links(links, table, seat) if table.decision_of(seat) else {"seat": seat_url(links, table, seat)}
    email_hash = tokens.email_hash(table.meta["seats"][seat]["email"])
    return {**found, "unsubscribe": unsubscribe_link(links, email_hash, game=table.id)}


def talk_links(links: Links, table: games.Table, seat: int) -> render.MailLinks:
    """What a mail of the game's talk links to: the seat's page, and the link that stops (or makes a
    digest of) this game's talk only."""
    return {"seat": seat_url(links, table, seat),
            "unsubscribe": unsubscribe_link(links, tokens.email_hash(table.meta["seats"][seat]["email"]), [table.id])}


def frame(table: games.Table, domain: str) -> render.Table:
    """What every mail of the game shows around the seat's view: the game and its players."""
    return render.Table(table.id, [games.seat_name(s, n) for n, s in enumerate(table.meta["seats"])], domain,
                        games.title_of(table), table.game.name)


def claim(store: Store, game_id: str, what: str, ttl: int) -> bool:
    """True the first time `what` is claimed for this game within `ttl` seconds: the mail is ours to send."""
    return store.claim(game_id, f"mailed:{what}", ttl)


def decision_claim(seat: int, holder: int | None, since: int | None, what: str = "decision") -> str:
    """What a decision mail claims: the seat's decision pending since `since`, for its holder then, so
    that a newcomer to the seat gets the decision he takes over (`what`: a mail about it, the grace)."""
    return f"{what}:{seat}:{holder}:{since}"


def still_due(store: Store, mail: Mail) -> str | None:
    """Why `mail` may not leave now, or None. Every mail: its address has not bounced. A mail made for
    a seat: the seat is still held by the same generation, at the same address, whose player still
    wants this kind of mail; a decision mail or reminder also needs the game running and the decision
    it was made for still pending; a message, that its player still takes the game's talk so (one by
    one, or in a digest) and that the host has not hidden it; what a deadline played for the seat
    (`render.NOTICE_KINDS`: defaulted, standin), that he has not moved since (its timeout is still the
    seat's last: his own move ends the stand-in and resets the count the notice tells). A mail of
    several parts (merged, a decision with messages, a digest) may leave while one of its parts may
    (`due_parts`).

    A decision whose game is paused, or whose player is away (`service.vacation`), is not mailed now,
    and its claim is let go, so that the resume or the end of his vacation (each a commit, which moves
    his deadlines) mails it again with its new deadline."""
    wanted = preferences.read(store, tokens.email_hash(mail.to))
    if wanted["bounced"]:
        return f"the address bounced ({wanted['bounced']})"
    if mail.parts:
        reasons = [_made_for(store, wanted, mail.to, part) for part in mail.parts]
        return None if None in reasons else "; ".join(str(reason) for reason in reasons)
    if mail.game is None or mail.seat is None:
        return None  # an account mail (sign-in, invitation): only the bounce counts
    return _made_for(store, wanted, mail.to, {"kind": mail.kind, "game": mail.game, "seat": mail.seat,
                                              "holder": mail.holder, "since": mail.since})


def due_parts(store: Store, mail: Mail) -> list[render.Part]:
    """The parts of a merged mail that may still leave."""
    wanted = preferences.read(store, tokens.email_hash(mail.to))
    return [part for part in mail.parts if _made_for(store, wanted, mail.to, part) is None]


def _unwanted(wanted: dict[str, Any], everyone: bool) -> bool:
    """Whether a player with these preferences refuses a mail to his seat (`everyone`: to the whole table)."""
    return wanted["mail"] == "none" or bool(wanted["bounced"]) or (everyone and wanted["mail"] != "all")


def _made_for(store: Store, wanted: dict[str, Any], to: str, made: dict[str, Any]) -> str | None:
    """Why a mail to `to` made for `made` (kind, game, seat, holder, since) is no longer true, or None.
    A mail from before holders and decisions were named (None) is checked without them."""
    game_id, seat, since = made["game"], made["seat"], made["since"]
    wanted = preferences.effective(wanted, game_id)
    if _unwanted(wanted, made["kind"] in EVERYONE_KINDS):
        return f"its player does not take {made['kind']} mail (mail: {wanted['mail']})"
    head = games.heads(store, [game_id]).get(game_id)
    if head is None or not 0 <= seat < len(head.meta["seats"]):
        return f"game {game_id} or its seat {seat} is gone"
    entry = head.meta["seats"][seat]
    if made["holder"] is not None and head.holder(seat) != made["holder"]:
        return f"seat {seat} of game {game_id} has been handed to someone else"
    if not entry.get("email") or entry.get("bot") or tokens.email_hash(entry["email"]) != tokens.email_hash(to):
        return f"seat {seat} of game {game_id} has another address now"
    if made["kind"] in render.TALK_KINDS:
        return _talk_due(store, to, made)
    if made["kind"] == "paused" and head.status != games.PAUSED:
        return f"game {game_id} is no longer paused"
    if made["kind"] in render.NOTICE_KINDS:
        last = told.last_timeout(head, seat)
        return None if last is not None and last.get("since") == since else \
            f"seat {seat} of game {game_id} has moved since the deadline of its decision {since}"
    if made["kind"] not in DECISION_KINDS:
        return None
    decision = next((d for d in head.pending if d["seat"] == seat), None)
    if decision is None or (since is not None and decision["since"] != since):
        return f"the decision of seat {seat} in game {game_id} (since {since}) was answered"
    if head.status == games.PAUSED:
        own = "grace" if made["kind"] == "grace" else "decision"  # a grace mail claims its own (`workers.time_off`)
        store.unclaim(game_id, f"mailed:{decision_claim(seat, made['holder'], since, own)}")
        return f"game {game_id} is paused; its resume mails the decision again"
    if head.status != games.RUNNING:
        return f"game {game_id} is {head.status}"
    if vacation.away_until(entry):
        store.unclaim(game_id, f"mailed:{decision_claim(seat, made['holder'], since)}")
        return f"the player of seat {seat} in game {game_id} is away; the end of his vacation mails the decision"
    return None


def _talk_due(store: Store, to: str, made: dict[str, Any]) -> str | None:
    """Why a message mailed to a seat (its `seq`, one by one or in a digest) may no longer leave."""
    wanted = "each" if made["kind"] == "talk" else "digest"
    choice = preferences.talk_choice(store, tokens.email_hash(to), made["game"])
    if choice != wanted:
        return f"its player takes the talk of game {made['game']} as {choice} now"
    found = messages.message(store, made["game"], made["seq"])
    if found is None or found.get("hidden"):
        return f"message {made['seq']} of game {made['game']} was hidden by the host"
    return None
