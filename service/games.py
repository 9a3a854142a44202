"""Hosted games over the engine and the store: create, move, bots, timeouts, host actions.

Everything here reads the game from Redis, asks the pure engine what follows, and commits the result
in one atomic step; nothing about a game stays in process memory between requests.
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import engine.bots
from engine.core import IllegalMove, get_game, redact
from service import deadlines, tokens
from service.problems import Problem
from service.store import Committed, Store, dumps, email_key, idempotency_key, token_key

log = logging.getLogger(__name__)

OPEN, RUNNING, PAUSED, FINISHED, CANCELLED = "open", "running", "paused", "finished", "cancelled"
MAX_PAUSES = 3
MAX_PAUSE_HOURS = 168
MAX_BOT_MOVES = 10_000


@dataclass
class Table:
    """One hosted game as loaded from Redis at one version (the engine object is `game`)."""

    id: str
    version: int
    status: str
    meta: dict[str, Any]
    state: dict[str, Any]
    pending: list[dict[str, Any]]
    game: Any = field(repr=False, default=None)

    def seat_of_email(self, email: str | None) -> int | None:
        for number, seat in enumerate(self.meta["seats"]):
            if email and seat.get("email_hash") == email:
                return number
        return None

    def is_bot(self, seat: int) -> bool:
        return bool(self.meta["seats"][seat].get("bot"))


LOAD_FIELDS = ("meta", "state", "pending")


def load(store: Store, game_id: str, head: dict[str, str | None] | None = None) -> Table:
    """The game as stored now; raises 404. A pause that has run out ends here, lazily.

    `head` is the game as already read in this request (`store.head(game_id, *LOAD_FIELDS)`, e.g. in
    the caller's pipeline): it saves the round trip, and the commit's version check still guards it.
    """
    raw = head if head is not None else store.head(game_id, *LOAD_FIELDS)
    if raw["version"] is None:
        raise Problem(404, "game_not_found", f"no game {game_id!r}")
    meta = json.loads(raw["meta"])
    table = Table(game_id, int(raw["version"]), raw["status"], meta, json.loads(raw["state"]),
                  json.loads(raw["pending"]), get_game(meta["game"]))
    if table.status == PAUSED and deadlines.parse(meta["paused_until"]) <= deadlines.now():
        resume(store, table)
        return load(store, game_id)
    return table


def create(store: Store, spec: dict[str, Any]) -> tuple[Table, dict[str, Any]]:
    """A new game in status open, and the tokens to hand out once: host, seats, new players."""
    try:
        game = get_game(spec["game"])
    except IllegalMove as error:
        raise Problem(422, error.code, error.message) from None
    seats = spec["seats"]
    if not game.min_seats <= len(seats) <= game.max_seats:
        raise Problem(422, "bad_seats", f"{game.name} takes {game.min_seats} to {game.max_seats} seats")
    seed = spec.get("seed")
    seed = secrets.randbits(48) if seed is None else seed
    try:
        options = game.normalize_options({**spec.get("options", {}), "seats": len(seats)})
        setup = spec.get("setup") or game.make_setup(options, seed)
        state = game.new_state(options, setup)
    except IllegalMove as error:
        raise Problem(422, error.code, error.message) from None
    game_id = secrets.token_hex(8)
    issued: dict[str, Any] = {"seats": [], "players": []}
    seat_meta = []
    with store.redis.pipeline(transaction=False) as pipe:
        host_token, host_id = tokens.issue(store, {"kind": "host", "game": game_id}, pipe)
        for number, seat in enumerate(seats):
            entry = {"name": seat["name"], "bot": seat.get("bot"), "email": seat.get("email"), "token": None}
            if seat.get("email"):
                entry["email_hash"] = tokens.email_hash(seat["email"])
            if not seat.get("bot"):
                token, entry["token"] = tokens.issue(
                    store, {"kind": "seat", "game": game_id, "seat": number}, pipe)
                issued["seats"].append({"seat": number, "token": token})
            seat_meta.append(entry)
        pipe.execute()
    for number, entry in enumerate(seat_meta):
        if entry.get("email_hash") and not entry["bot"]:
            issued["players"] += _register_player(store, entry["email_hash"], entry["email"], game_id, number)
    now = deadlines.now()
    meta = {
        "id": game_id, "game": game.name, "options": options, "seed": seed, "setup": setup,
        "seats": seat_meta, "deadlines": spec.get("deadlines", {}), "host": host_id,
        "created_at": deadlines.stamp(now), "pauses_used": 0, "paused_at": None, "paused_until": None,
    }
    pending = [{**d, "deadline_at": None} for d in game.pending(state)]
    store.create(game_id, {"meta": dumps(meta), "state": dumps(state), "pending": dumps(pending), "status": OPEN},
                 [_entry(1, None, {"type": "game_created", "game": game.name, "seats": len(seats)})])
    issued["host"] = host_token
    return load(store, game_id), issued


def _register_player(store: Store, email_hash: str, email: str, game_id: str, seat: int) -> list[dict]:
    """Index the seat under its email; the address's first seat also gets a player token."""
    store.redis.sadd(email_key(email_hash, "seats"), f"{game_id}:{seat}")
    if not store.redis.set(email_key(email_hash, "known"), "1", nx=True):
        return []
    token, _ = tokens.issue(store, {"kind": "player", "email": email_hash})
    return [{"email": email, "token": token}]


def _entry(version: int, by: int | None, event: dict[str, Any], timeout: bool = False) -> str:
    entry = {"version": version, "at": deadlines.stamp(deadlines.now()), "by": by, "event": event}
    if "private_to" in event:
        entry["private_to"] = event["private_to"]  # others must not learn even that it happened, nor who
    if timeout:
        entry["timeout"] = True
    return dumps(entry)


def refused(outcome: Committed) -> Problem:
    if outcome.outcome == "stale":
        return Problem(409, "stale_version", f"the game is at version {outcome.version}",
                       current_version=outcome.version)
    if outcome.outcome == "missing":
        return Problem(404, "game_not_found", "the game is gone")
    return Problem(409, f"game_{outcome.status}", f"the game is {outcome.status}",
                   current_version=outcome.version)


def play(store: Store, table: Table, seat: int, move: dict[str, Any], *, idempotency: tuple[str, str] | None = None,
         timeout: bool = False, bot: str | None = None) -> tuple[Committed, Table, list[dict[str, Any]]]:
    """Apply one move at the table's version and commit it; the new table and the engine's events.

    The returned Committed may be a refusal (stale, status, duplicate): the caller decides what that
    means. Raises Problem(422) with the engine's code for an illegal move.
    """
    if table.status != RUNNING:
        raise refused(Committed("status", table.version, table.status))
    try:
        state, events = table.game.apply(table.state, seat, move)
    except IllegalMove as error:
        raise Problem(422, error.code, error.message) from None
    version = table.version + 1
    now = deadlines.now()
    pending = deadlines.schedule(table.game.pending(state), table.pending, table.meta["deadlines"], now)
    status = FINISHED if table.game.result(state) is not None else RUNNING
    log = {"version": version, "seat": seat, "move": move, "at": deadlines.stamp(now)}
    if timeout:
        log["timeout"] = True
    if bot:
        log["bot"] = bot
    outcome = store.commit(
        table.id, table.version, statuses=(RUNNING,),
        fields={"state": dumps(state), "pending": dumps(pending), "status": status},
        log_entry=dumps(log), events=[_entry(version, seat, e, timeout) for e in events],
        idempotency=idempotency,
    )
    if outcome.outcome != "ok":
        return outcome, table, []
    new = Table(table.id, version, status, table.meta, state, pending, table.game)
    return outcome, new, events


def choose_bot_move(bot: str, game: Any, state: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The move the named engine bot chooses for the seat."""
    return engine.bots.choose_move(bot, game, state, seat, rng)


def run_bots(store: Store, table: Table) -> Table:
    """While a pending decision belongs to a bot seat, choose and commit its move (deterministic rng)."""
    for _ in range(MAX_BOT_MOVES):
        if table.status != RUNNING:
            return table
        due = [d["seat"] for d in table.pending if table.is_bot(d["seat"])]
        if not due:
            return table
        seat = due[0]
        bot = table.meta["seats"][seat]["bot"]
        rng = random.Random(f"{table.meta['seed']}:{table.version}")
        try:
            move = choose_bot_move(bot, table.game, table.state, seat, rng)
        except IllegalMove as error:
            log.warning("bot %s cannot play %s (%s); seat %d plays its default move", bot, table.game.name,
                        error.code, seat)
            move = table.game.default_move(table.state, seat)
        outcome, table, _ = play(store, table, seat, move, bot=bot)
        if outcome.outcome != "ok":
            table = load(store, table.id)
    return table


def submit(store: Store, table: Table, seat: int, move: dict[str, Any], expected: int,
           idempotency_key: str | None) -> tuple[Table, list[dict[str, Any]], int, dict | None]:
    """A player's move at the version he saw: (table after bots, his events, version of his move, replay).

    With an idempotency key, a retry returns the first answer (the last item) and applies nothing.
    """
    idem = None
    if idempotency_key:
        fingerprint = move_fingerprint(move)
        key = idempotency_key_for(table.id, seat, idempotency_key)
        earlier = store.redis.get(key)
        if earlier is not None:
            return table, [], 0, _replayed(json.loads(earlier), fingerprint)
        idem = (key, dumps({"fingerprint": fingerprint}))
    if expected != table.version:
        raise refused(Committed("stale", table.version))
    outcome, after, events = play(store, table, seat, move, idempotency=idem)
    if outcome.outcome == "duplicate":
        return table, [], 0, _replayed(json.loads(store.redis.get(idem[0])), fingerprint)
    if outcome.outcome != "ok":
        raise refused(outcome)
    return run_bots(store, after), events, outcome.version, None


def idempotency_key_for(game_id: str, seat: int, key: str) -> str:
    return idempotency_key(game_id, seat, hashlib.sha256(key.encode()).hexdigest()[:32])


def _replayed(record: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    if record["fingerprint"] != fingerprint:
        raise Problem(422, "idempotency_key_reused", "this Idempotency-Key was used for another move")
    return record


def move_fingerprint(move: dict[str, Any]) -> str:
    return hashlib.sha256(dumps(move).encode()).hexdigest()


def remember_response(store: Store, game_id: str, seat: int, key: str, move: dict[str, Any],
                      body: dict[str, Any]) -> None:
    """Store the first answer under the idempotency key so that retries get it verbatim.

    The record the commit wrote holds only the move's fingerprint, so it is rewritten whole (one SET,
    keeping its expiry) without reading it first.
    """
    store.redis.set(idempotency_key_for(game_id, seat, key),
                    dumps({"fingerprint": move_fingerprint(move), "body": body}), keepttl=True)


def play_default(store: Store, game_id: str, seat: int, kind: str | None = None, *, force: bool = False) -> bool:
    """The deadline's entry point for workers: play the engine's default move for a seat that is due.

    Re-checks under the commit's version check that the same decision is still pending and overdue;
    returns False when there was nothing to do. The move is logged as a timeout.
    """
    for _ in range(5):
        table = load(store, game_id)
        due = [d for d in table.pending if d["seat"] == seat and (kind is None or d["kind"] == kind)]
        if table.status != RUNNING or not due:
            return False
        if not force and deadlines.parse(due[0]["deadline_at"]) > deadlines.now():
            return False
        move = table.game.default_move(table.state, seat)
        outcome, after, _ = play(store, table, seat, move, timeout=True)
        if outcome.outcome == "ok":
            run_bots(store, after)
            return True
    return False


def _host_change(store: Store, table: Table, statuses: tuple[str, ...], *, status: str | None = None,
                 meta: dict | None = None, pending: list | None = None, event: dict | None = None) -> Table:
    fields = {}
    if status:
        fields["status"] = status
    if meta is not None:
        fields["meta"] = dumps(meta)
    if pending is not None:
        fields["pending"] = dumps(pending)
    outcome = store.commit(table.id, table.version, statuses=statuses, fields=fields,
                           events=[_entry(table.version + 1, None, event)] if event else [])
    if outcome.outcome != "ok":
        raise refused(outcome)
    return load(store, table.id)


def start(store: Store, table: Table) -> Table:
    pending = deadlines.schedule(table.game.pending(table.state), [], table.meta["deadlines"], deadlines.now())
    table = _host_change(store, table, (OPEN,), status=RUNNING, pending=pending, event={"type": "game_started"})
    return run_bots(store, table)


def pause(store: Store, table: Table, hours: int) -> Table:
    if table.meta["pauses_used"] >= MAX_PAUSES:
        raise Problem(409, "pause_limit", f"a game may be paused {MAX_PAUSES} times")
    now = deadlines.now()
    until = deadlines.stamp(now + timedelta(hours=hours))
    meta = {**table.meta, "pauses_used": table.meta["pauses_used"] + 1, "paused_at": deadlines.stamp(now),
            "paused_until": until}
    return _host_change(store, table, (RUNNING,), status=PAUSED, meta=meta,
                        event={"type": "game_paused", "until": until})


def resume(store: Store, table: Table) -> Table:
    """End a pause; every deadline moves later by the time the game stood still (409 if not paused)."""
    if table.status != PAUSED:
        raise refused(Committed("status", table.version, table.status))
    now = deadlines.now()
    paused_for = now - deadlines.parse(table.meta["paused_at"])
    meta = {**table.meta, "paused_at": None, "paused_until": None}
    try:
        table = _host_change(store, table, (PAUSED,), status=RUNNING, meta=meta,
                             pending=deadlines.shift(table.pending, paused_for), event={"type": "game_resumed"})
    except Problem as problem:
        if problem.code != "stale_version":
            raise
        return load(store, table.id)
    return run_bots(store, table)


def cancel(store: Store, table: Table) -> Table:
    return _host_change(store, table, (OPEN, RUNNING, PAUSED), status=CANCELLED,
                        event={"type": "game_cancelled"})


def replace_seat(store: Store, table: Table, seat: int, player: dict[str, Any]) -> tuple[Table, dict]:
    """Hand a seat to another player or a bot; the old seat token stops working at once."""
    if not 0 <= seat < len(table.meta["seats"]):
        raise Problem(404, "seat_not_found", f"no seat {seat}")
    old = table.meta["seats"][seat]
    entry = {"name": player["name"], "bot": player.get("bot"), "email": player.get("email"), "token": None}
    issued: dict[str, Any] = {"seat": seat, "players": []}
    if player.get("email"):
        entry["email_hash"] = tokens.email_hash(player["email"])
    if not entry["bot"]:
        issued["token"], entry["token"] = tokens.issue(store, {"kind": "seat", "game": table.id, "seat": seat})
    seats = list(table.meta["seats"])
    seats[seat] = entry
    table = _host_change(store, table, (OPEN, RUNNING, PAUSED), meta={**table.meta, "seats": seats},
                         event={"type": "seat_replaced", "seat": seat, "name": entry["name"]})
    if old.get("token"):
        store.redis.delete(token_key(old["token"]))
    if old.get("email_hash"):
        store.redis.srem(email_key(old["email_hash"], "seats"), f"{table.id}:{seat}")
    if entry.get("email_hash") and not entry["bot"]:
        issued["players"] = _register_player(store, entry["email_hash"], entry["email"], table.id, seat)
    return run_bots(store, table), issued


def replay(store: Store, game_id: str) -> dict[str, Any]:
    """Rebuild the state from the setup and the move log: it must equal the stored state."""
    table = load(store, game_id)
    state = table.game.new_state(table.meta["options"], table.meta["setup"])
    for entry in store.log(game_id):
        state, _ = table.game.apply(state, entry["seat"], entry["move"])
    return state


def events_for(store: Store, game_id: str, viewer: int | None, after: int, limit: int) -> tuple[list, int, int]:
    """A page of the feed redacted for the viewer, the seq to resume after, and the feed's length.

    The cursor counts the entries the viewer may not see too, so a page of hidden entries still moves on.
    """
    entries, total = store.events(game_id, after, limit)
    last = entries[-1]["seq"] if entries else min(after, total)
    return redact(entries, viewer), last, total

