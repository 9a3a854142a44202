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
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

import engine.bots
from engine.core import IllegalMove, get_game, redact
from service import deadlines, tokens
from service.problems import Problem
from service.store import Committed, Store, dumps, email_key, feed_channel, idempotency_key, token_key

log = logging.getLogger(__name__)

OPEN, RUNNING, PAUSED, FINISHED, CANCELLED = "open", "running", "paused", "finished", "cancelled"
MAX_PAUSES = 3
MAX_PAUSE_HOURS = 168
MAX_BOT_MOVES = 10_000
MISSED_TURNS = 3  # timeouts in a row after which a bot stands in, unless the game says otherwise
STAND_IN = "greedy"
ATTEMPTS = 8  # commits lost to other writers before a request gives up with 409 busy


@dataclass
class Table:
    """One hosted game as loaded from Redis at one revision (the engine object is `game`).

    `private_moves` holds, per seat, the last private move (standing orders) made since the last
    public one: it joins the move log, in seat order, just before the next public move.
    """

    id: str
    version: int
    rev: int
    status: str
    meta: dict[str, Any]
    state: dict[str, Any]
    pending: list[dict[str, Any]]
    private_moves: dict[str, Any] = field(default_factory=dict)
    game: Any = field(repr=False, default=None)

    def seat_of_email(self, email: str | None) -> int | None:
        for number, seat in enumerate(self.meta["seats"]):
            if email and seat.get("email_hash") == email:
                return number
        return None

    def is_bot(self, seat: int) -> bool:
        return bool(self.meta["seats"][seat].get("bot"))

    def bot_for(self, seat: int) -> str | None:
        """The bot that plays this seat now: its own, or greedy standing in for a player who keeps
        missing his decisions (until he moves again)."""
        entry = self.meta["seats"][seat]
        return entry.get("bot") or entry.get("standin")

    def decision_of(self, seat: int) -> dict[str, Any] | None:
        return next((d for d in self.pending if d["seat"] == seat), None)

    def private_entries(self) -> list[dict[str, Any]]:
        """The private moves not yet in the log, in seat order (each seat's only touch its own part)."""
        return [entry for _, entry in sorted(self.private_moves.items(), key=lambda item: int(item[0]))]


LOAD_FIELDS = ("meta", "state", "pending", "private_moves")


def load(store: Store, game_id: str, head: dict[str, str | None] | None = None) -> Table:
    """The game as stored now; raises 404. A pause that has run out ends here, lazily.

    `head` is the game as already read in this request (`store.head(game_id, *LOAD_FIELDS)`, e.g. in
    the caller's pipeline): it saves the round trip, and the commit's revision check still guards it.
    """
    raw = head if head is not None else store.head(game_id, *LOAD_FIELDS)
    if raw["version"] is None:
        raise Problem("game_not_found", f"no game {game_id!r}")
    meta = json.loads(raw["meta"])
    table = Table(game_id, int(raw["version"]), int(raw["rev"] or raw["version"]), raw["status"], meta,
                  json.loads(raw["state"]), json.loads(raw["pending"]), json.loads(raw["private_moves"] or "{}"),
                  get_game(meta["game"]))
    if table.status == PAUSED and deadlines.parse(meta["paused_until"]) <= deadlines.now():
        resume(store, table)
        return load(store, game_id)
    return table


def create(store: Store, spec: dict[str, Any], min_deadline: int = 60
           ) -> tuple[Table, dict[str, Any], list[dict[str, Any]]]:
    """A new game in status open: (table, tokens to hand out once, seats to invite by mail).

    The creator gets the host token and the tokens of seats without an address. A seat with an
    address is only ever reached through a link mailed to it, so naming somebody's address never
    hands you his seat. With a drawn `seat_order`, seat i is the player listed at seat_order[i].
    """
    try:
        game = get_game(spec["game"])
    except IllegalMove as error:
        raise Problem.of_rules(error) from None
    listed = spec["seats"]
    if not game.min_seats <= len(listed) <= game.max_seats:
        raise Problem("bad_seats", f"{game.name} takes {game.min_seats} to {game.max_seats} seats")
    unknown = sorted(set(spec.get("deadlines", {})) - set(game.deadline_keys))
    if unknown:
        raise Problem("bad_deadlines", f"no decision kinds or deadline classes {unknown}; known: {game.deadline_keys}")
    if any(seconds < min_deadline for seconds in spec.get("deadlines", {}).values()):
        raise Problem("bad_deadlines", f"a deadline is at least {min_deadline} seconds on this server")
    addresses = [tokens.email_hash(s["email"]) for s in listed if s.get("email")]
    if len(addresses) != len(set(addresses)):
        raise Problem("duplicate_email", "each address may hold one seat of a game")
    seed = spec.get("seed")
    seed = secrets.randbits(48) if seed is None else seed
    try:
        options = game.normalize_options({**spec.get("options", {}), "seats": len(listed)})
        setup = spec["setup"] if spec.get("setup") is not None else game.make_setup(options, seed)
        state = game.new_state(options, setup)
    except IllegalMove as error:
        raise Problem.of_rules(error) from None
    seats = [listed[i] for i in setup.get("seat_order", range(len(listed)))]
    game_id = secrets.token_hex(8)
    issued: dict[str, Any] = {"seats": []}
    seat_meta, invitations = [], []
    with store.redis.pipeline(transaction=False) as pipe:
        host_token, host_id = tokens.issue(store, {"kind": "host", "game": game_id}, pipe)
        for number, seat in enumerate(seats):
            entry, token, invite = _seat_entry(store, game_id, number, seat, pipe)
            seat_meta.append(entry)
            if token:
                issued["seats"].append({"seat": number, "token": token})
            if invite:
                invitations.append(invite)
        pipe.execute()
    now = deadlines.now()
    meta = {
        "id": game_id, "game": game.name, "options": options, "seed": seed, "setup": setup,
        "seats": seat_meta, "deadlines": spec.get("deadlines", {}), "host": host_id,
        "created_at": deadlines.stamp(now), "pauses_used": 0, "paused_at": None, "paused_until": None,
        "missed_turns": spec.get("missed_turns", MISSED_TURNS),
    }
    pending = [{**d, "deadline_at": None, "since": 1} for d in game.pending(state)]
    store.create(game_id, {"meta": dumps(meta), "state": dumps(state), "pending": dumps(pending), "status": OPEN},
                 [_entry(1, None, {"type": "game_created", "game": game.name, "seats": len(seats)})])
    issued["host"] = host_token
    return load(store, game_id), issued, invitations


def _seat_entry(store: Store, game_id: str, number: int, seat: dict[str, Any], pipe) -> tuple[dict, str | None, dict | None]:
    """A seat's stored entry, the token for its creator (no address, no bot), and whom to invite.

    A seat with an address is indexed under it; only a link mailed there yields a token for it.
    """
    entry = {"name": seat["name"], "bot": seat.get("bot"), "email": seat.get("email"), "token": None}
    if entry["bot"]:
        return entry, None, None
    if entry["email"]:
        entry["email_hash"] = tokens.email_hash(entry["email"])
        pipe.sadd(email_key(entry["email_hash"], "seats"), f"{game_id}:{number}")
        pipe.set(email_key(entry["email_hash"], "known"), "1")
        return entry, None, {"email": entry["email"], "name": entry["name"], "game": game_id, "seat": number}
    token, entry["token"] = tokens.issue(store, {"kind": "seat", "game": game_id, "seat": number}, pipe)
    return entry, token, None


def _entry(version: int, by: int | None, event: dict[str, Any], timeout: bool = False) -> str:
    entry = {"version": version, "at": deadlines.stamp(deadlines.now()), "by": by, "event": event}
    if timeout:
        entry["timeout"] = True
    return dumps(entry)


def refused(outcome: Committed) -> Problem:
    if outcome.outcome == "stale":
        return Problem("stale_version", f"your decision has changed; the game is at version {outcome.version}",
                       current_version=outcome.version)
    if outcome.outcome == "missing":
        return Problem("game_not_found", "the game is gone")
    return Problem(f"game_{outcome.status}", f"the game is {outcome.status}",
                   current_version=outcome.version)


@dataclass
class Played:
    """A move applied and committed (or refused by the commit): the table after it and its events."""

    outcome: Committed
    table: Table
    events: list[dict[str, Any]]


def play(store: Store, table: Table, seat: int, move: dict[str, Any], *, timeout: bool = False,
         bot: str | None = None, answer: Callable[[Table, list[dict[str, Any]]], dict] | None = None,
         idempotency_key: str | None = None) -> Played:
    """Apply one move to the table as loaded and commit it at the table's revision.

    The outcome may be a refusal (stale, status, duplicate): the caller decides what that means.
    A private move (the vocabulary says so, and it changed nobody's pending decision) changes only the
    revision: no version, no event, and the log gets it only before the next public move. With
    `answer`, the document it builds from the new table is stored under `idempotency_key` in the same
    atomic step. Raises Problem(422) with the engine's code for an illegal move.
    """
    if table.status != RUNNING:
        raise refused(Committed("status", table.version, table.status))
    try:
        state, events = table.game.apply(table.state, seat, move)
    except IllegalMove as error:
        raise Problem.of_rules(error) from None
    now = deadlines.now()
    status = FINISHED if table.game.result(state) is not None else RUNNING
    decisions = table.game.pending(state)
    private = (table.game.move_types[move["type"]].get("private", False) and status == RUNNING
               and [(d["seat"], d["kind"]) for d in decisions] == [(d["seat"], d["kind"]) for d in table.pending])
    meta = _missed_turns(table, seat, timeout, bot) if table.decision_of(seat) and not private else None
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
        pending = deadlines.schedule(decisions, table.pending, table.meta["deadlines"], now, version, seat)
        log = [dumps(e) for e in table.private_entries()]
        log.append(dumps({"version": version, **entry}))
        private_moves = {}
        public = [e for e in events if "private_to" not in e]
        if timeout:
            public.insert(0, {"type": "timeout", "seat": seat, "kind": table.decision_of(seat)["kind"]})
        stored = [_entry(version, seat, e, timeout) for e in public]
    new = Table(table.id, version, table.rev + 1, status, meta or table.meta, state, pending, private_moves,
                table.game)
    idempotency = None
    if answer is not None and idempotency_key is not None:
        idempotency = (idempotency_key, dumps({"fingerprint": move_fingerprint(move), "body": answer(new, events)}))
    outcome = store.commit(
        table.id, table.rev, statuses=(RUNNING,), public=not private,
        fields={"state": dumps(state), "pending": dumps(pending), "status": status,
                "private_moves": dumps(private_moves), **({"meta": dumps(meta)} if meta else {})},
        log=log, events=stored, idempotency=idempotency,
    )
    if outcome.outcome != "ok":
        return Played(outcome, table, [])
    _follow_up(store, new)
    return Played(outcome, new, events)


def _missed_turns(table: Table, seat: int, timeout: bool, bot: str | None) -> dict[str, Any] | None:
    """The game's meta with the seat's missed-decision count updated, or None when unchanged.

    A timeout on a decision with a real choice counts; after `missed_turns` in a row the greedy bot
    stands in. The player's own move clears both; moves by a bot leave them as they are.
    """
    entry = table.meta["seats"][seat]
    if timeout:
        if len(table.game.legal_moves(table.state, seat)) < 2:
            return None
        missed = entry.get("missed", 0) + 1
        changed = {**entry, "missed": missed}
        if missed >= table.meta.get("missed_turns", MISSED_TURNS) and not entry.get("bot"):
            changed["standin"] = STAND_IN
    elif not bot and (entry.get("missed") or entry.get("standin")):
        changed = {**entry, "missed": 0, "standin": None}
    else:
        return None
    seats = list(table.meta["seats"])
    seats[seat] = changed
    return {**table.meta, "seats": seats}


def _follow_up(store: Store, table: Table, everything: bool = False) -> None:
    """Let the store's followups (deadline jobs, bot moves) see the game as committed."""
    if store.followups is not None:
        store.followups.after(store, table, everything)


def play_bot(store: Store, table: Table, seat: int) -> Played:
    """The seat's bot (or stand-in) chooses and commits its move; a bot that cannot play this game
    plays the default move. The choice is seeded by the game and version, so it replays."""
    bot = table.bot_for(seat)
    rng = random.Random(f"{table.meta['seed']}:{table.version}")
    try:
        move = engine.bots.choose_move(bot, table.game, table.state, seat, rng)
    except IllegalMove as error:
        log.warning("bot %s cannot play %s (%s); seat %d plays its default move", bot, table.game.name,
                    error.code, seat)
        move = table.game.default_move(table.state, seat)
    return play(store, table, seat, move, bot=bot)


def run_bots(store: Store, table: Table) -> Table:
    """While a pending decision belongs to a seat a bot plays, commit its moves (no workers: inline)."""
    for _ in range(MAX_BOT_MOVES):
        if table.status != RUNNING:
            return table
        due = [d["seat"] for d in table.pending if table.bot_for(d["seat"])]
        if not due:
            return table
        played = play_bot(store, table, due[0])
        table = played.table if played.outcome.outcome == "ok" else load(store, table.id)
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
           answer: Callable[[Table, list[dict[str, Any]]], dict], idempotency: str | None = None
           ) -> tuple[dict[str, Any], bool]:
    """A player's move against what he saw at version `seen`: (the answer, whether it is a replay).

    A commit lost to somebody else's move is tried again on the new state, as long as the seat's
    own decision is still the one he saw. With an Idempotency-Key, the answer is stored with the
    move in one atomic step, so a retry (after any crash) gets it verbatim and moves nothing.
    """
    key = idempotency_key_for(table.id, seat, idempotency) if idempotency else None
    fingerprint = move_fingerprint(move)
    if key is not None:
        earlier = store.redis.get(key)
        if earlier is not None:
            return _replayed(json.loads(earlier), fingerprint), True
    for _ in range(ATTEMPTS):
        check_seen(table, seat, move, seen)
        played = play(store, table, seat, move, answer=answer, idempotency_key=key)
        outcome = played.outcome.outcome
        if outcome == "ok":
            return answer(played.table, played.events), False
        if outcome == "duplicate":
            return _replayed(json.loads(store.redis.get(key)), fingerprint), True
        if outcome != "stale":
            raise refused(played.outcome)
        table = load(store, table.id)
    raise Problem("busy", "the game kept changing under this move; try again")


def idempotency_key_for(game_id: str, seat: int, key: str) -> str:
    return idempotency_key(game_id, seat, hashlib.sha256(key.encode()).hexdigest()[:32])


def _replayed(record: dict[str, Any], fingerprint: str) -> dict[str, Any]:
    if record["fingerprint"] != fingerprint:
        raise Problem("idempotency_key_reused", "this Idempotency-Key was used for another move")
    return record["body"]


def move_fingerprint(move: dict[str, Any]) -> str:
    return hashlib.sha256(dumps(move).encode()).hexdigest()


def play_default(store: Store, game_id: str, seat: int, since: int | None = None, *, force: bool = False) -> bool:
    """The deadline's move: the engine's default for a seat whose decision is overdue.

    Re-checks, on a fresh read and under the commit's revision check, that the decision (the one
    pending since `since`, when given) is still pending and overdue; returns False when there was
    nothing to do, so a late or repeated job never moves twice. Logged as a timeout everyone sees.
    """
    for _ in range(ATTEMPTS):
        table = load(store, game_id)
        decision = table.decision_of(seat)
        if table.status != RUNNING or decision is None or (since is not None and decision["since"] != since):
            return False
        if not force and deadlines.parse(decision["deadline_at"]) > deadlines.now():
            return False
        played = play(store, table, seat, table.game.default_move(table.state, seat), timeout=True)
        if played.outcome.outcome == "ok":
            return True
    return False


def overdue(table: Table, now: datetime | None = None) -> list[dict[str, Any]]:
    """The pending decisions whose deadline has passed (none unless the game is running)."""
    now = now or deadlines.now()
    if table.status != RUNNING:
        return []
    return [d for d in table.pending if d.get("deadline_at") and deadlines.parse(d["deadline_at"]) <= now]


def _host_change(store: Store, table: Table, statuses: tuple[str, ...], *, status: str | None = None,
                 meta: dict | None = None, pending: list | None = None, event: dict | None = None) -> Table:
    fields = {}
    if status:
        fields["status"] = status
    if meta is not None:
        fields["meta"] = dumps(meta)
    if pending is not None:
        fields["pending"] = dumps(pending)
    outcome = store.commit(table.id, table.rev, statuses=statuses, fields=fields,
                           events=[_entry(table.version + 1, None, event)] if event else [])
    if outcome.outcome != "ok":
        raise refused(outcome)
    table = load(store, table.id)
    _follow_up(store, table, everything=True)
    return table


def start(store: Store, table: Table) -> Table:
    pending = deadlines.schedule(table.game.pending(table.state), [], table.meta["deadlines"], deadlines.now(),
                                 table.version + 1)
    return _host_change(store, table, (OPEN,), status=RUNNING, pending=pending, event={"type": "game_started"})


def pause(store: Store, table: Table, hours: int) -> Table:
    if table.meta["pauses_used"] >= MAX_PAUSES:
        raise Problem("pause_limit", f"a game may be paused {MAX_PAUSES} times")
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
    return table


def cancel(store: Store, table: Table) -> Table:
    return _host_change(store, table, (OPEN, RUNNING, PAUSED), status=CANCELLED,
                        event={"type": "game_cancelled"})


def replace_seat(store: Store, table: Table, seat: int, player: dict[str, Any]
                 ) -> tuple[Table, str | None, dict[str, Any] | None]:
    """Hand a seat to another player or a bot: (table, token for the host to pass on, whom to invite).

    The old seat token stops working at once; a seat with an address gets its link by mail only.
    """
    if not 0 <= seat < len(table.meta["seats"]):
        raise Problem("seat_not_found", f"no seat {seat}")
    if player.get("email") and any(other.get("email_hash") == tokens.email_hash(player["email"])
                                   for number, other in enumerate(table.meta["seats"]) if number != seat):
        raise Problem("duplicate_email", "each address may hold one seat of a game")
    old = table.meta["seats"][seat]
    with store.redis.pipeline(transaction=False) as pipe:
        entry, token, invite = _seat_entry(store, table.id, seat, player, pipe)
        pipe.execute()
    seats = list(table.meta["seats"])
    seats[seat] = entry
    table = _host_change(store, table, (OPEN, RUNNING, PAUSED), meta={**table.meta, "seats": seats},
                         event={"type": "seat_replaced", "seat": seat, "name": entry["name"]})
    if old.get("token"):
        store.redis.delete(token_key(old["token"]))
    if old.get("email_hash") and old.get("email_hash") != entry.get("email_hash"):
        store.redis.srem(email_key(old["email_hash"], "seats"), f"{table.id}:{seat}")
    return table, token, invite


def replay(store: Store, game_id: str) -> dict[str, Any]:
    """Rebuild the state from the setup, the move log and the private moves since: it must equal the stored state."""
    table = load(store, game_id)
    state = table.game.new_state(table.meta["options"], table.meta["setup"])
    for entry in store.log(game_id) + table.private_entries():
        state, _ = table.game.apply(state, entry["seat"], entry["move"])
    return state


def events_for(store: Store, game_id: str, viewer: int | None, after: int, limit: int) -> tuple[list, int, int]:
    """A page of the feed redacted for the viewer, the seq to resume after, and the feed's length.

    The cursor counts the entries the viewer may not see too, so a page of hidden entries still moves on.
    """
    entries, total = store.events(game_id, after, limit)
    last = entries[-1]["seq"] if entries else min(after, total)
    return redact(entries, viewer), last, total



def wait_for_events(store: Store, game_id: str, after: int, seconds: float) -> None:
    """Return once the feed holds more than `after` events, or after `seconds` (a long-poll).

    Subscribes before looking, so an event committed in between is never missed: the commit script
    publishes on the game's channel whenever it appends to the feed.
    """
    with store.redis.pubsub(ignore_subscribe_messages=True) as channel:
        channel.subscribe(feed_channel(game_id))
        deadline = time.monotonic() + seconds
        while store.feed_length(game_id) <= after:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            channel.get_message(timeout=min(left, 1.0))
