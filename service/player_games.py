"""A player's games, as his home page and GET /me/games list them: each game's title and status, whose
turn it is (and whether it is his), and his result once it is over.

Two round trips for any number of games: the address's two indexes (`games.indexed`), then the head
of every game they name and any the caller adds (`games.heads`, which holds a finished game's result).
Which of those games are really his is the caller's to check against the heads, since a page also
counts the seats its browser was handed and the API the address alone.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.core import IllegalMove, get_game, standings
from service import games
from service.games import Head
from service.store import Store

ORDER = {games.RUNNING: 0, games.PAUSED: 1, games.OPEN: 2, games.FINISHED: 3, games.CANCELLED: 4}
LATEST = "9999"  # sorts after every deadline: a decision without one


def heads_of(store: Store, email_hash: str | None, also: Iterable[str] = ()
             ) -> tuple[dict[str, Head], list[tuple[str, int]], list[str]]:
    """The heads of the games the address's indexes name, and of `also`, with the index entries
    themselves (its seats as (game, seat), the games it hosts) for `games.seats_in` and `games.hosted_in`."""
    members, hosts = games.indexed(store, email_hash) if email_hash else ([], [])
    return games.heads(store, [game_id for game_id, _ in members] + hosts + list(also)), members, hosts


def names_of(head: games.Seated) -> list[str]:
    """Every seat's name, as a list says who plays; a seat nobody holds is named by its number."""
    return [entry.get("name") or f"seat {number + 1}" for number, entry in enumerate(head.meta["seats"])]


def entry(head: Head, seat: int | None, host: bool) -> dict[str, Any]:
    """One game as its player (at `seat`, or None) or host sees it in his list: plain data, the API's
    MyGameOut, which the home page dresses in words. `seat` stays 0-based, as everywhere in the API."""
    names = names_of(head)
    waiting = [{"seat": d["seat"], "name": names[d["seat"]], "kind": d["kind"], "deadline_at": d.get("deadline_at"),
                "yours": d["seat"] == seat}
               for d in head.pending] if head.status == games.RUNNING else []
    return {
        "game_id": head.id, "game": head.meta["game"], "title": games.title_of(head), "status": head.status,
        "version": head.version, "created_at": head.meta.get("created_at"), "seat": seat,
        "name": names[seat] if seat is not None else None, "host": host, "players": names,
        "waiting": waiting, "your_turn": any(w["yours"] for w in waiting),
        "result": result_of(head, seat, names),
        "archive": archive_path(head),
    }


def archive_path(head: Head) -> str | None:
    """Where a finished game's archive page is (its standings and every move), from the server's root."""
    return f"/games/{head.id}/archive" if head.status == games.FINISHED else None


def result_of(head: Head, seat: int | None, names: list[str]) -> dict[str, Any] | None:
    """The end of a finished game for one seat: its rank and score (None for a host without a seat,
    or a game that ranks no seats) and who won."""
    if head.status != games.FINISHED or head.result is None:
        return None
    try:
        ranked = standings(get_game(head.meta["game"]), head.result) or []
    except IllegalMove:  # a game no longer served
        ranked = []
    mine = next((s for s in ranked if s["seat"] == seat), None)
    return {"rank": mine["rank"] if mine else None, "score": mine["score"] if mine else None,
            "winners": [names[s["seat"]] for s in ranked if s["rank"] == 1]}


def urgent(listed: dict[str, Any]) -> str:
    """The earliest deadline of the decisions a listed game waits on him for."""
    return min((w["deadline_at"] or LATEST for w in listed["waiting"] if w["yours"]), default=LATEST)


def ordered(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Games waiting for him first, most urgent first; then running, paused, open, finished and
    cancelled ones, newest first within each."""
    newest = sorted(listed, key=lambda item: (item["created_at"] or "", item["game_id"]), reverse=True)
    return sorted(newest, key=lambda item: (not item["your_turn"], urgent(item), ORDER.get(item["status"], 9)))
