"""Open seats and join links: how somebody the host never named takes a seat, and the lobby.

A game has one join link at a time: `meta["join"]` holds a random id, and a new id (or none)
revokes every link made before. The link is signed with the server's secret for its purpose, names
the game and that id, and is signed anew for whoever may see it (the host; anyone, in the lobby of a
public game), so only a copy passed on grows old (`LINK_MAX_AGE`). It takes a seat while the game is
not over and a seat is open: before the start any seat nobody took, after it a seat its player left
(a substitute's). Whoever opens it proves an address first (the mailed sign-in of `service.signin`,
which leads back to the join page), picks a name, and takes the seat through `games.replace_seat`
as a player whose address is proved: no invitation is mailed, and one address holds one seat.
"""
from __future__ import annotations

from typing import Any

from service import games, lobby, tokens
from service.games import Seated, Table
from service.links import Links
from service.problems import Problem
from service.store import Committed, Store, dumps, email_key

PURPOSE = "join"
LINK_MAX_AGE = 30 * 24 * 3600
PAGE = "/join"
TRIES = 5  # joins racing for the same seats: each try reloads the game


def sign(links: Links, game_id: str, join_id: str) -> str:
    return links.sign(PURPOSE, {"g": game_id, "j": join_id})


def link_of(links: Links, head: Seated, status: str) -> dict[str, Any]:
    """The game's join link as its host (or the lobby) shows it, freshly signed."""
    join_id = head.meta.get("join")
    signed = sign(links, head.id, join_id) if join_id else None
    return {"link": signed, "url": links.url(PAGE, link=signed) if signed else None,
            "open_seats": len(games.open_seats(head)), "joinable": games.joinable(head, status)}


def read(links: Links, signed: str) -> tuple[str, str]:
    """(game id, join id) of a join link we signed; 403 when forged, altered or too old."""
    try:
        payload = links.open(PURPOSE, signed, LINK_MAX_AGE)
    except Problem as problem:
        if problem.code == "link_expired":
            raise Problem("join_link_expired", "this join link is too old; ask the host for the current one, "
                                               "or find the game in the lobby") from None
        raise Problem("bad_join_link", "this is not a join link we made") from None
    if not isinstance(payload, dict) or set(payload) != {"g", "j"} or not all(
            isinstance(value, str) for value in payload.values()):
        raise Problem("bad_join_link", "this is not a join link we made")
    return payload["g"], payload["j"]


def opened(store: Store, links: Links, signed: str, game_id: str | None = None) -> Table:
    """The game a join link leads to, while the link still works: not over, not revoked."""
    linked, join_id = read(links, signed)
    if game_id is not None and linked != game_id:
        raise Problem("bad_join_link", "this join link is for another game")
    table = games.load(store, linked)
    if table.status in (games.FINISHED, games.CANCELLED):
        raise Problem("game_over", f"the game is {table.status}: nobody can join it any more")
    if table.meta.get("join") != join_id:
        raise Problem("join_link_revoked", "the host turned this join link off or made a new one; ask him for it")
    return table


def choose(table: Table, seat: int | None) -> int:
    """The open seat to take: the one asked for, else the first."""
    free = games.open_seats(table)
    if not free:
        raise Problem("game_full", "no seat of this game is open" + (
            "" if table.status == games.OPEN else "; once started, a seat opens only when its player leaves"))
    if seat is None:
        return free[0]
    if not 0 <= seat < len(table.meta["seats"]):
        raise Problem("seat_not_found", f"no seat {seat}")
    if seat not in free:
        raise Problem("seat_not_open", f"seat {seat + 1} is taken; open: {', '.join(str(n + 1) for n in free)}")
    return seat


def join(store: Store, links: Links, signed: str, email_hash: str, name: str, seat: int | None = None,
         game_id: str | None = None) -> tuple[Table, int]:
    """Take an open seat for the proved address `email_hash` under `name`: (the game, the seat).

    Every refusal leaves the game as it was. Two joiners racing for one seat both commit against the
    revision they read; the loser reads the game again and takes another seat, or hears it is full.
    """
    name = name.strip()
    address = address_of(store, email_hash)
    for _ in range(TRIES):
        table = opened(store, links, signed, game_id)
        if table.seat_of_email(email_hash) is not None:
            raise Problem("already_seated", "you hold a seat at this game already: one address, one seat")
        taken = choose(table, seat)
        if any(entry.get("name") and entry["name"].casefold() == name.casefold()
               for number, entry in enumerate(table.meta["seats"]) if number != taken):
            raise Problem("name_taken", f"another seat of this game is called {name}; pick another name")
        if address is None:
            raise Problem("address_unproved", "sign in again by a mailed link, so that we know where to mail you")
        try:
            table, _, _ = games.replace_seat(store, table, taken, {"name": name, "email": address, "bot": None},
                                             proved=True)
        except Problem as problem:
            if problem.code == "stale_version":
                continue
            raise
        return table, taken
    raise Problem("busy", "the game kept changing while you joined; try again")


def address_of(store: Store, email_hash: str) -> str | None:
    """The address a sign-in proved (sessions and player tokens keep only its hash): kept when a link
    was mailed there, or found in a seat it holds."""
    stored = store.redis.get(email_key(email_hash, "address"))
    if stored and tokens.email_hash(stored) == email_hash:
        return stored
    for _, (seat, head) in games.seats_held(store, email_hash).items():
        if head.meta["seats"][seat].get("email"):
            return head.meta["seats"][seat]["email"]
    return None


def for_sign_in(store: Store, links: Links, signed: str) -> list[str]:
    """What a sign-in link to join by carries ([game, join id]), once the join link is checked as the
    join itself will check it (but for the address): a link that cannot seat anyone mails nobody."""
    table = opened(store, links, signed)
    choose(table, None)
    return [table.id, table.meta["join"]]


def hand_over(store: Store, table: Table, seat: int, player: dict[str, Any]
              ) -> tuple[Table, str | None, dict[str, Any] | None]:
    """The host's change of a seat (`games.replace_seat`); `{"open": true}` removes its player before
    the start (the seat opens again, his links die with his holder generation). Removing a player from
    a started game is leaving's business, with its stand-in and its word to the table."""
    if player.get("open"):
        if table.status != games.OPEN:
            raise games.refused(Committed("status", table.version, table.status))
        if not 0 <= seat < len(table.meta["seats"]):
            raise Problem("seat_not_found", f"no seat {seat}")
        if games.seat_is_open(table.meta["seats"][seat]):
            return table, None, None
    return games.replace_seat(store, table, seat, player)


def renew(store: Store, table: Table) -> Table:
    """A new join link for the host; every earlier one stops working."""
    return _set_join(store, table, games.new_join_id())


def revoke(store: Store, table: Table) -> Table:
    """No join link: nobody can join until the host makes a new one."""
    return _set_join(store, table, None)


def _set_join(store: Store, table: Table, join_id: str | None) -> Table:
    """A private change: only the host sees the link, so the version stays."""
    for _ in range(TRIES):
        outcome = store.commit(table.id, table.rev, statuses=games.JOINABLE,
                               fields={"meta": dumps({**table.meta, "join": join_id})}, public=False,
                               wake=store.wake_at(table.id))
        if outcome.outcome == "ok":
            table = games.load(store, table.id)
            games.relist(store, table, table.status)
            return table
        if outcome.outcome != "stale":
            raise games.refused(outcome)
        table = games.load(store, table.id)
    raise Problem("busy", "the game kept changing; try again")


def lobby_page(store: Store, links: Links, after: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the lobby, newest first: (games, the cursor of the next page or None).

    Read with the games' heads, so only a game that may be joined now is shown; entries of games
    that are gone or over (a finished game leaves its entry behind) are dropped on the way.
    """
    position = lobby.parse(after)
    shown: list[tuple[games.Head, int]] = []
    gone: list[str] = []
    start = 0
    while len(shown) <= limit:
        entries, read_count = lobby.older(store, position, start, limit + 1)
        if not read_count:
            break
        start += read_count
        found = games.heads(store, [game_id for game_id, _ in entries])
        for game_id, at in entries:
            head = found.get(game_id)
            if head is None or head.status in (games.FINISHED, games.CANCELLED) or not head.meta.get("public"):
                gone.append(game_id)
            elif games.joinable(head, head.status):
                shown.append((head, at))
    lobby.drop(store, gone)
    more = len(shown) > limit
    shown = shown[:limit]
    return [listed(links, head) for head, _ in shown], lobby.cursor(shown[-1][0].id, shown[-1][1]) if more else None


def listed(links: Links, head: games.Head | Table) -> dict[str, Any]:
    """A public game as the lobby shows it before anyone joins: what it is, who sits where, its link."""
    meta = head.meta
    return {"id": head.id, "title": games.title_of(head), "game": meta["game"], "status": head.status,
            "created_at": meta["created_at"], "options": meta["options"], "deadlines": meta["deadlines"],
            "missed_turns": meta["missed_turns"], "stand_in": games.stand_in_of(meta),
            "start_when_full": bool(meta.get("start_when_full")),
            "open_seats": len(games.open_seats(head)),
            "seats": [{"seat": number, "name": None if games.seat_is_open(entry) else entry.get("name"),
                       "bot": entry.get("bot"), "open": games.seat_is_open(entry)}
                      for number, entry in enumerate(meta["seats"])],
            "join": link_of(links, head, head.status)}
