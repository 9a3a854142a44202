"""Moves on a hosted game, whoever makes them: a player, a bot, a deadline.

Each reads the game, asks the pure engine, and commits through the store's one atomic script; a
commit lost to another writer is tried again on the new state as long as the mover's decision is
the one he answered, every mover through one loop (`games.until_committed`). After every commit the
store's followups queue what comes next.
"""
from __future__ import annotations

import hashlib
import logging
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

import engine.bots
from engine.core import Game, IllegalMove, Move
from service import deadlines, grace, told, vacation
from service.games import (FINISHED, MISSED_TURNS, RUNNING, Table, feed_entry, follow_up, load, refused,
                           stand_in_of, until_committed)
from service.problems import Problem
from service.store import Committed, Store, dumps, idempotency_key, loads

log = logging.getLogger(__name__)

MAX_BOT_MOVES = 10_000


@dataclass
class Played:
    """A move applied and committed (or refused by the commit): the table after it, its events, and
    the `answer` built from them (the one stored for retries, so it is built once)."""

    outcome: Committed
    table: Table
    events: list[dict[str, Any]]
    answer: dict[str, Any] | None = None


def play(store: Store, table: Table, seat: int, move: dict[str, Any], *, timeout: bool = False,
         bot: str | None = None, answer: Callable[[Table, list[dict[str, Any]]], dict] | None = None,
         idempotency_key: str | None = None, also: Callable[[Any], None] | None = None,
         follow: bool = True) -> Played:
    """Apply one move to the table as loaded and commit it at the table's revision.

    The outcome may be a refusal (stale, status, duplicate): the caller decides what that means.
    A private move (the vocabulary says so, and it changed nobody's pending decision) changes only the
    revision: no version, no event, and the log gets it only before the next public move. With
    `answer`, the document it builds from the new table is stored under `idempotency_key` in the same
    atomic step; `also` rides along in the commit's round trip (`Store.commit`). Without `follow`, the
    caller tells the followups itself (after several moves of one turn, say). A public move of the seat's
    own player (not a deadline's, not a bot's) ends his vacation in the same commit. The move that ends the
    game keeps its result beside the state, where lists of games read it (`games.Head`). Raises
    Problem(422) with the engine's code for an illegal move.
    """
    if table.status != RUNNING:
        raise refused(Committed("status", table.version, table.status))
    try:
        state, events = table.game.apply(table.state, seat, move)
    except IllegalMove as error:
        raise Problem.of_rules(error) from None
    now = deadlines.now()
    result = table.game.result(state)
    status = FINISHED if result is not None else RUNNING
    decisions = table.game.pending(state)
    private = status == RUNNING and is_private(table.game, move, table.pending, decisions)
    loaded, back = table, None if timeout or bot or private else vacation.returning(table, seat, now)
    if back:  # his own move ends his vacation, before his new deadlines are scheduled
        table, back = back
    meta = _missed_turns(table, seat, timeout, bot, now) if table.decision_of(seat) and not private else None
    before, after = told.feed_events(table.meta["seats"][seat], meta["seats"][seat], seat) if meta else ([], [])
    meta = meta or (table.meta if back else None)
    entry = {"seat": seat, "move": move, "at": deadlines.stamp(now)}
    if timeout:
        entry["timeout"] = True
    if bot:
        entry["bot"] = bot
    if private:
        version, pending, log, stored = table.version, table.pending, [], []
        private_moves = {**table.private_moves, str(seat): entry}
    else:
        version = table.version + 1
        pending = deadlines.schedule(decisions, table.pending, table.meta["deadlines"], now, version, seat,
                                     table.meta["seats"])
        log = [dumps(e) for e in table.private_entries()]
        log.append(dumps({"version": version, **entry}))
        private_moves = {}
        public = [e for e in events if "private_to" not in e]
        if timeout:
            public.insert(0, {"type": "timeout", "seat": seat, "kind": table.decision_of(seat)["kind"],
                              **({"bot": bot} if bot else {})})
        if back:
            public.insert(0, back)
        public = before + public + after
        stored = [feed_entry(version, seat, e, timeout) for e in public]
    new = Table(table.id, version, table.rev + 1, status, meta or table.meta, state, pending, private_moves,
                table.game)
    body = answer(new, events) if answer is not None else None
    idempotency = None
    if body is not None and idempotency_key is not None:
        idempotency = (idempotency_key, dumps({"fingerprint": move_fingerprint(move), "body": body}))
    outcome = store.commit(
        table.id, table.rev, statuses=(RUNNING,), public=not private,
        fields={"state": dumps(state), "pending": dumps(pending), "status": status,
                "private_moves": dumps(private_moves), **({"meta": dumps(meta)} if meta else {}),
                **({"result": dumps(result)} if result is not None else {})},
        log=log, events=stored, idempotency=idempotency, also=also,
        counted="timeout" if timeout else "bot" if bot else "player",
        wake=deadlines.wake_at(new, now, store.compact_after),
    )
    if outcome.outcome != "ok":
        return Played(outcome, loaded, [])
    if follow:
        follow_up(store, new)
    return Played(outcome, new, events, body)


def _missed_turns(table: Table, seat: int, timeout: bool, bot: str | None, now: datetime
                  ) -> dict[str, Any] | None:
    """The game's meta with the seat's missed-decision count updated, or None when unchanged.

    A timeout on a decision with a real choice counts, whether the default or the stand-in answers it
    (so that the game's `remove_after` can follow `missed_turns`); after `missed_turns` in a row the
    game's stand-in bot (`games.stand_in_of`) stands in (it answers at the deadline, so the player
    still has the whole time to come back). Each such timeout leaves its record (`told.record`: what
    the player is told of it), and the stand-in the moment it started. The player's own move clears
    them all; a bot's moves leave them.
    """
    entry = table.meta["seats"][seat]
    if timeout and (not bot or bot == entry.get("standin")):
        if len(table.game.legal_moves(table.state, seat)) < 2:
            return None
        missed = entry.get("missed", 0) + 1
        changed = {**entry, "missed": missed, "timed_out": told.record(table, seat, bot, now)}
        if missed >= table.meta.get("missed_turns", MISSED_TURNS) and not entry.get("bot"):
            changed["standin"] = stand_in_of(table.meta)
            changed["standin_since"] = entry.get("standin_since") if entry.get("standin") else deadlines.stamp(now)
    elif not timeout and not bot and (entry.get("missed") or entry.get("standin") or entry.get("timed_out")):
        changed = {**entry, "missed": 0, "standin": None, "standin_since": None, "timed_out": None}
    else:
        return None
    seats = list(table.meta["seats"])
    seats[seat] = changed
    return {**table.meta, "seats": seats}


def bot_move(table: Table, seat: int, bot: str) -> dict[str, Any]:
    """The move `bot` chooses for the seat; a bot that cannot play this game takes the default.
    The choice is seeded by the game and version, so it replays."""
    rng = random.Random(f"{table.meta['seed']}:{table.version}")
    try:
        return engine.bots.choose_move(bot, table.game, table.state, seat, rng)
    except IllegalMove as error:
        log.warning("bot %s cannot play %s (%s); seat %d plays its default move", bot, table.game.name,
                    error.code, seat)
        return table.game.default_move(table.state, seat)


def play_bot(store: Store, table: Table, seat: int, *, think: bool = True) -> Played:
    """The seat's bot chooses and commits its move; without `think`, the game's default move in its
    name (a bot that ran out of time)."""
    bot = table.bot_for(seat)
    move = bot_move(table, seat, bot) if think else table.game.default_move(table.state, seat)
    return play(store, table, seat, move, bot=bot)


def run_bots(store: Store, table: Table) -> Table:
    """While a pending decision belongs to a seat a bot plays, commit its moves (no workers: inline)."""
    def nobody_due(table: Table) -> Table | None:
        due = table.status == RUNNING and any(table.bot_for(d["seat"]) for d in table.pending)
        return None if due else table

    def first_due(table: Table) -> tuple[Committed, Table]:
        played = play_bot(store, table, next(d["seat"] for d in table.pending if table.bot_for(d["seat"])))
        return played.outcome, played.table

    for _ in range(MAX_BOT_MOVES):
        moved = until_committed(store, table, nobody_due, first_due, refuse=False, busy=None)
        if moved is None:  # lost every try to other writers: go on from the game as it now stands
            table = load(store, table.id)
            continue
        if nobody_due(moved) is not None:
            return moved
        table = moved
    return table


def check_seen(table: Table, seat: int, move: dict[str, Any], seen: int) -> None:
    """Refuse (409) a move made against a decision that has changed or gone since version `seen`.

    Each pending decision carries `since`, the version at which it became pending: a move is
    checked against the seat's own decision, not the whole game, so other seats' moves and anyone's
    private orders never make it stale.
    """
    decision = table.decision_of(seat)
    free = table.game.move_types[move["type"]].get("free", False)
    if seen > table.version or (decision is not None and decision.get("since", 0) > seen) or (
            decision is None and seen < table.version and not free):
        raise refused(Committed("stale", table.version))


def submit(store: Store, table: Table, seat: int, move: dict[str, Any], seen: int,
           answer: Callable[[Table, list[dict[str, Any]]], dict], idempotency: str | None = None,
           also: Callable[[Any], None] | None = None, follow: bool = True) -> tuple[dict[str, Any], bool]:
    """A player's move against what he saw at version `seen`: (the answer, whether it is a replay).

    A commit lost to somebody else's move is tried again on the new state, as long as the seat's
    own decision is still the one he saw. With an Idempotency-Key, the answer is stored with the
    move in one atomic step, so a retry (after any crash) gets it verbatim and moves nothing. `also`
    (the request's rate count) rides with the first commit tried; `follow` as for `play`.
    """
    key = idempotency_key_for(table.id, seat, idempotency) if idempotency else None
    riding = [also]

    def check(table: Table) -> tuple[dict[str, Any], bool] | None:
        earlier = store.redis.get(key) if key is not None else None
        if earlier is not None:  # looked for again after a lost commit: the winner may be our twin
            return _replayed(loads(earlier), move), True
        check_seen(table, seat, move, seen)
        return None

    def act(table: Table) -> tuple[Committed, tuple[dict[str, Any], bool]]:
        played = play(store, table, seat, move, answer=answer, idempotency_key=key, also=riding.pop() if riding
                      else None, follow=follow)
        if played.outcome.outcome == "duplicate":
            return played.outcome, (_replayed(loads(store.redis.get(key)), move), True)
        return played.outcome, (played.answer, False)

    return until_committed(store, table, check, act, busy="the game kept changing under this move; try again")


def idempotency_key_for(game_id: str, seat: int, key: str) -> str:
    return idempotency_key(game_id, seat, hashlib.sha256(key.encode()).hexdigest()[:32])


def is_private(game: Game, move: Move, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """Whether a move (in a game still running) is kept private: its vocabulary says so and it changed
    nobody's pending decision (a standing order). `palazzo import` keeps a record's moves by the same rule."""
    return (game.move_types.get(move["type"], {}).get("private", False)
            and [(d["seat"], d["kind"]) for d in after] == [(d["seat"], d["kind"]) for d in before])


def _replayed(record: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    if record["fingerprint"] != move_fingerprint(move):
        raise Problem("idempotency_key_reused", "this Idempotency-Key was used for another move")
    return record["body"]


def move_fingerprint(move: dict[str, Any]) -> str:
    return hashlib.sha256(dumps(move).encode()).hexdigest()


def default_on(store: Store, table: Table, seat: int, since: int | None = None, *, force: bool = False,
               think: bool = True) -> tuple[Table, bool]:
    """The deadline's move for a seat whose decision is overdue: its stand-in's choice, or the
    engine's default (always, without `think`: a stand-in that ran out of time).

    Starts from `table` as the caller loaded it (the commit's revision check guards it) and reads
    the game again only after losing a commit. Checks that the decision (the one pending since
    `since`, when given) is still pending and overdue, so a late or repeated job never moves twice.
    Returns the table as last seen (after the move, if played) and whether the move was played.
    Logged as a timeout everyone sees. A seat owed the game's grace (`service.grace`) gets its one
    extension instead, and no move.
    """
    def not_due(table: Table) -> tuple[Table, bool] | None:
        decision = table.decision_of(seat)
        if table.status != RUNNING or decision is None or (since is not None and decision["since"] != since):
            return table, False
        if not force and deadlines.parse(decision["deadline_at"]) > deadlines.now():
            return table, False
        return None

    def act(table: Table) -> tuple[Committed, tuple[Table, bool]]:
        hours = grace.owed(table, seat)
        if hours:
            outcome, given = grace.give(store, table, seat, table.decision_of(seat), hours)
            return outcome, (given, False)
        stand_in = table.stand_in(seat) if think else None
        move = bot_move(table, seat, stand_in) if stand_in else table.game.default_move(table.state, seat)
        played = play(store, table, seat, move, timeout=True, bot=stand_in)
        return played.outcome, (played.table, True)

    done = until_committed(store, table, not_due, act, refuse=False, busy=None)
    return done if done is not None else (load(store, table.id), False)


def overdue(table: Table, now: datetime | None = None) -> list[dict[str, Any]]:
    """The pending decisions whose deadline has passed (none unless the game is running)."""
    now = now or deadlines.now()
    if table.status != RUNNING:
        return []
    return [d for d in table.pending if d.get("deadline_at") and deadlines.parse(d["deadline_at"]) <= now]
