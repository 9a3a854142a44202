"""The notices a game has for one reader now, each as that reader may see it: the one source of what
a webhook says (and what any later channel would), so no channel can tell more than its owner sees.

A seat's reader gets his pending decision (``your_bid`` when its kind names a bid, else
``your_turn``), the result of the round that ended last (a game whose state counts ``round``), the
end of the game, and the table's messages he may read that he did not write; the host's reader (a
registration for a game he hosts without a seat) gets the spectator's view of the same, but no
decisions. Each notice's key names what it tells, so a channel tells it once.
"""
from __future__ import annotations

from engine.core import standings, word
from service import deadlines, games, messages
from service.channels import Notice
from service.status import Status
from service.store import Store

RECENT_MESSAGES = 20  # the newest messages looked at: a notice job runs after every commit and post


def of(store: Store, table: games.Table, seat: int | None) -> list[Notice]:
    """Every notice the game has now for `seat` (None: the host, as a spectator), oldest kind first."""
    game, title, at = table.game, games.title_of(table), deadlines.stamp(deadlines.now())
    view = game.view(table.state, seat)
    name = table.meta["seats"][seat]["name"] if seat is not None else "Host"
    found: list[Notice] = []
    if seat is not None and table.status == Status.RUNNING:
        for decision in (d for d in table.pending if d["seat"] == seat):
            kind = "your_bid" if "bid" in decision["kind"] else "your_turn"
            found.append(Notice(kind, f"{kind}:{seat}:{decision['since']}", table.id, seat, at,
                                f"{name}, it is your turn in {title}: {word(game, decision['kind'])}",
                                {"decision": {"kind": decision["kind"], "deadline_at": decision.get("deadline_at")},
                                 "view": view}))
    over = table.status == Status.FINISHED
    ended = table.state.get("round", 1) - (0 if over else 1) if isinstance(table.state.get("round"), int) else 0
    if ended >= 1 and not over:
        found.append(Notice("round_result", f"round_result:{ended}", table.id, seat, at,
                            f"Round {ended} of {title} is over", {"round": ended, "view": view}))
    if over:
        ranks = standings(game, game.result(table.state)) or []
        winners = [table.meta["seats"][r["seat"]]["name"] for r in ranks if r["rank"] == 1]
        found.append(Notice("game_over", "game_over", table.id, seat, at,
                            f"{title} is over: {' and '.join(winners) or 'nobody'} won",
                            {"standings": ranks, "view": view}))
    reader = messages.Reader(seat) if seat is not None else messages.HOST
    recent, _ = messages.recent(store, table.id, reader, most=RECENT_MESSAGES)
    for message in recent:
        if message["by"] == seat:  # his own (the host's are by None)
            continue
        found.append(Notice("message", f"message:{message['seq']}", table.id, seat, at,
                            f"{message['name']} in {title}: {message['text'] or '(hidden)'}"[:300],
                            {"message": message}))
    return found


def holders(table: games.Table) -> dict[str, int]:
    """The address hash of each seat's player (who may have every-game registrations), to his seat."""
    return {entry["email_hash"]: seat for seat, entry in enumerate(table.meta["seats"])
            if entry.get("email_hash") and not entry.get("bot")}


def reader_of(table: games.Table, owner: str) -> tuple[bool, int | None]:
    """Whether the owner may hear of the game at all, and as which seat (None: as its host)."""
    seat = holders(table).get(owner)
    if seat is not None:
        return True, seat
    return table.meta.get("host_email_hash") == owner, None


