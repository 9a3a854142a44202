"""Hosted games over the engine and the store: create and load one, the host's actions, replay, the feed.

Everything here reads the game from Redis, asks the pure engine what follows, and commits the result
in one atomic step; nothing about a game stays in process memory between requests. Moves (a
player's, a bot's, a deadline's) are in `service.playing`.
"""
from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Iterator, TypeVar

from engine.core import FIRST_RULES, IllegalMove, get_game, redact, rules_of
from engine.presentation import title_of as game_title
from service import deadlines, lobby, preferences, titles, tokens, vacation
from service.problems import Problem
from service.status import Status
from service.store import Committed, Store, dumps, email_key, feed_channel, game_key, loads, lobby_key, token_key

log = logging.getLogger(__name__)

OPEN, RUNNING, PAUSED, FINISHED, CANCELLED = (Status.OPEN, Status.RUNNING, Status.PAUSED, Status.FINISHED,
                                              Status.CANCELLED)  # by the names the service has always used
MAX_PAUSES = 3
ATTEMPTS = 8  # commits lost to other writers before a request gives up with 409 busy
MISSED_TURNS = 3  # timeouts in a row after which a bot stands in, unless the game says otherwise
STAND_IN = "search"  # the bot that answers at the deadlines of a seat whose player keeps missing them, or left,
# in a new game that names no other (its meta's `stand_in`, chosen at creation)
STORED_STAND_IN = "greedy"  # the stand-in of a game stored before games named theirs: it always was greedy, and
# stays so whatever STAND_IN becomes
LEFT, REMOVED, MISSED = "left", "removed", "missed"  # why a seat was vacated: its player left, the host removed
# him, or he missed `remove_after` decisions in a row


class Seated:
    """What a whole game (Table) and a listed one (Head) share: its id and meta, so who sits where
    reads the same from either."""

    id: str
    meta: dict[str, Any]

    def holder(self, seat: int) -> int:
        """The seat's holder generation: 0 for its first player, one more each time the host hands it
        to someone else. Every link, reply address and mail made for a seat names the generation it
        was made for, and works only while the seat still has it, so none outlives its holder."""
        return holder_of(self.meta["seats"][seat])

    def held_by(self, seat: int, holder: int) -> bool:
        """Whether `seat` is one of the game's and still held by generation `holder` (a link's)."""
        return 0 <= seat < len(self.meta["seats"]) and self.holder(seat) == holder

    def seat_of_email(self, email: str | None) -> int | None:
        for number, seat in enumerate(self.meta["seats"]):
            if email and seat.get("email_hash") == email:
                return number
        return None


def holder_of(entry: dict[str, Any]) -> int:
    """The holder generation of a seat entry (see `Seated.holder`); entries from before it was kept are 0."""
    return int(entry.get("holder", 0))


def seat_is_open(entry: dict[str, Any]) -> bool:
    """A seat nobody holds: whoever opens the game's join link may take it (`service.seats`)."""
    return bool(entry.get("open"))


def stand_in_of(meta: dict[str, Any]) -> str:
    """The bot that stands in at this game for a player who keeps missing his decisions, or left."""
    return meta.get("stand_in") or STORED_STAND_IN


OPEN_SEAT = "open seat"  # what people read where an open seat's player's name would be


def seat_name(entry: dict[str, Any], number: int | None = None) -> str:
    """The name people read for a seat: its player's, or, while it is open, the name of the player who
    left it, marked so (a stand-in plays it), or "open seat N" for one nobody has held."""
    if not seat_is_open(entry):
        return entry["name"]
    if entry.get("name"):
        return f"{entry['name']} (left)"
    return OPEN_SEAT if number is None else f"{OPEN_SEAT} {number + 1}"


def open_seats(head: Seated) -> list[int]:
    return [number for number, entry in enumerate(head.meta["seats"]) if seat_is_open(entry)]


JOINABLE = (OPEN, RUNNING, PAUSED)


def joinable(head: Seated, status: Status) -> bool:
    """Whether the game's join link takes anyone now: it has one, a seat is open, and it is not over.
    After the start that is only a seat its player left (a substitute's)."""
    return status in JOINABLE and bool(head.meta.get("join")) and bool(open_seats(head))


def relist(store: Store, head: Seated, status: Status) -> None:
    """A public game stands in the lobby exactly while it may be joined; other games cost nothing."""
    if head.meta.get("public"):
        lobby.relist(store, head.id, created_ms(head), joinable(head, status))


def created_ms(head: Seated) -> int:
    """When the game was made, to the millisecond: its place in the lobby (newest first)."""
    return head.meta.get("created_ms") or int(deadlines.parse(head.meta["created_at"]).timestamp() * 1000)


def title_of(game: Seated) -> str:
    """The game's name as people read it, in every mail, page and list (a Table or a Head): the title
    its host gave it, or, for a game created before titles were kept, the default it would have got."""
    return game.meta.get("title") or default_title(game.meta)


def default_title(meta: dict[str, Any]) -> str:
    """"<host name>'s game" for a game whose host gave it no title. The host's name is his seat's when
    the address he proved sits at the table. A host who proved none (he created the game without
    signing in) is taken to be the first person he listed, as a creator lists himself first and
    passes the other seats on. A host who plays no seat, a table of bots alone, or a name that may not
    stand in a title (`titles.fault`: one that reads as a link): "A game of <game>"."""
    seats = meta["seats"]
    host = meta.get("host_email_hash")
    if host:
        candidates = [entry for entry in seats if entry.get("email_hash") == host]
    else:
        order = (meta.get("setup") or {}).get("seat_order") or list(range(len(seats)))
        candidates = [seats[seat] for seat in sorted(range(len(seats)), key=lambda seat: order[seat])
                      if not seats[seat].get("bot")]
    name = next((entry["name"] for entry in candidates if entry.get("name")), None)
    if name and titles.fault(f"{name}'s game") is None:
        return f"{name}'s game"
    return f"A game of {game_words(meta['game'])}"


def game_words(name: str) -> str:
    """What people call a game (`engine.presentation.title_of`), or its id for a game not registered."""
    try:
        return game_title(get_game(name))
    except (IllegalMove, KeyError):
        return name


@dataclass
class Table(Seated):
    """One hosted game as loaded from Redis at one revision (the engine object is `game`).

    `private_moves` holds, per seat, the last private move (standing orders) made since the last
    public one: it joins the move log, in seat order, just before the next public move.
    """

    id: str
    version: int
    rev: int
    status: Status
    meta: dict[str, Any]
    state: dict[str, Any]
    pending: list[dict[str, Any]]
    private_moves: dict[str, Any] = field(default_factory=dict)
    game: Any = field(repr=False, default=None)

    def bot_for(self, seat: int) -> str | None:
        """The bot that plays this seat (its moves are queued as jobs), or None for a player."""
        return self.meta["seats"][seat].get("bot")

    def stand_in(self, seat: int) -> str | None:
        """The bot that answers for a player who keeps missing his decisions, at their deadlines."""
        return self.meta["seats"][seat].get("standin")

    def decision_of(self, seat: int) -> dict[str, Any] | None:
        return next((d for d in self.pending if d["seat"] == seat), None)

    def private_entries(self) -> list[dict[str, Any]]:
        """The private moves not yet in the log, in seat order (each seat's only touch its own part)."""
        return [entry for _, entry in sorted(self.private_moves.items(), key=lambda item: int(item[0]))]


LOAD_FIELDS = ("meta", "state", "pending", "private_moves")


@dataclass
class Head(Seated):
    """What a list of games shows of each: read without its state, in one round trip for all.
    `result` is the game's result once it is finished (kept beside the state at the end)."""

    id: str
    version: int
    status: Status
    pending: list[dict[str, Any]]
    meta: dict[str, Any]
    result: dict[str, Any] | None = None


HEAD_FIELDS = ["version", "status", "pending", "meta", "result"]


def heads(store: Store, game_ids: list[str]) -> dict[str, Head]:
    """The heads of the games that exist among `game_ids`, pipelined (not a transaction: on a Redis
    Cluster the games lie in many slots). A game finished before its result was kept beside its state
    has it read from the state, in one more round trip for all such games."""
    with store.redis.pipeline(transaction=False) as pipe:
        for game_id in dict.fromkeys(game_ids):
            pipe.hmget(game_key(game_id, "game"), HEAD_FIELDS)
        answers = pipe.execute()
    found = {game_id: Head(game_id, int(version), Status(status), loads(pending), loads(meta),
                           loads(result) if result else None)
             for game_id, (version, status, pending, meta, result) in zip(dict.fromkeys(game_ids), answers)
             if version is not None}
    _results_from_state(store, [head for head in found.values() if head.status == FINISHED and head.result is None])
    return found


def _results_from_state(store: Store, finished: list[Head]) -> None:
    """Fill in the result of games finished before it was kept beside the state, from their states."""
    if not finished:
        return
    with store.redis.pipeline(transaction=False) as pipe:
        for head in finished:
            pipe.hget(game_key(head.id, "game"), "state")
        states = pipe.execute()
    for head, state in zip(finished, states):
        try:
            head.result = get_game(head.meta["game"]).result(loads(state)) if state else None
        except IllegalMove:  # a game no longer served
            head.result = None


def indexed(store: Store, email_hash: str) -> tuple[list[tuple[str, int]], list[str]]:
    """What an address's index names, in one round trip: (game, seat) of each seat it was given and
    the games it hosts. Unchecked: see `seats_in` and `hosted_in`."""
    with store.redis.pipeline(transaction=False) as pipe:
        pipe.smembers(email_key(email_hash, "seats"))
        pipe.smembers(email_key(email_hash, "hosts"))
        seats, hosts = pipe.execute()
    return [(game_id, int(seat)) for game_id, seat in (member.rsplit(":", 1) for member in seats)], sorted(hosts)


def seats_in(found: dict[str, Head], members: list[tuple[str, int]], email_hash: str) -> dict[str, tuple[int, Head]]:
    """The seats among `members` (from `indexed`) that the games as read still give the address.

    The index is written before a game exists and cleaned after a seat changes hands, so an entry
    counts only while its game still names the address.
    """
    return {game_id: (seat, found[game_id]) for game_id, seat in members
            if game_id in found and 0 <= seat < len(found[game_id].meta["seats"])
            and found[game_id].meta["seats"][seat].get("email_hash") == email_hash}


def hosted_in(found: dict[str, Head], hosts: list[str], email_hash: str) -> dict[str, Head]:
    """The games among `hosts` (from `indexed`) that the address still hosts (its index may keep a game
    it no longer hosts)."""
    return {game_id: found[game_id] for game_id in hosts
            if game_id in found and host_address_of(found[game_id]) == email_hash}


def seats_held(store: Store, email_hash: str) -> dict[str, tuple[int, Head]]:
    """The seats an address holds, by game: its index (one key per player), checked against each game."""
    members = [member.rsplit(":", 1) for member in store.redis.smembers(email_key(email_hash, "seats"))]
    members = [(game_id, int(seat)) for game_id, seat in members]
    return seats_in(heads(store, [game_id for game_id, _ in members]), members, email_hash)


def load(store: Store, game_id: str, head: dict[str, str | None] | None = None) -> Table:
    """The game as stored now; raises 404. A pause that has run out ends here, lazily.

    `head` is the game as already read in this request (`store.head(game_id, *LOAD_FIELDS)`, e.g. in
    the caller's pipeline): it saves the round trip, and the commit's revision check still guards it.
    """
    table = stored_table(game_id, head if head is not None else store.head(game_id, *LOAD_FIELDS))
    if table.status == PAUSED and deadlines.parse(table.meta["paused_until"]) <= deadlines.now():
        resume(store, table)
        return load(store, game_id)
    return table


def stored_table(game_id: str, raw: dict[str, str | None]) -> Table:
    """The game as read (`store.head(game_id, *LOAD_FIELDS)`), as it is stored, with nothing done to it
    (`load` ends a pause that has run out); raises 404."""
    if raw["version"] is None:
        raise Problem("game_not_found", f"no game {game_id!r}")
    meta = loads(raw["meta"])
    return Table(game_id, int(raw["version"]), int(raw["rev"] or raw["version"]), Status(raw["status"]), meta,
                 loads(raw["state"]), loads(raw["pending"]), loads(raw["private_moves"] or "{}"), get_game(meta["game"]))


def create(store: Store, spec: dict[str, Any], min_deadline: int = 60, host_address: str | None = None
           ) -> tuple[Table, dict[str, Any], list[dict[str, Any]]]:
    """A new game in status open: (table, tokens to hand out once, seats to invite by mail).

    The creator gets the host token and the tokens of seats without an address. A seat with an
    address is only ever reached through a link mailed to it, so naming somebody's address never
    hands you his seat. With a drawn `seat_order`, seat i is the player listed at seat_order[i].
    `host_address` is the hash of an address the creator has proved (he is signed in): the game is
    then reachable from that account too, not only through the host token (`host_address_of`).

    The keys lie in several Redis Cluster slots (each token, each address, and the game's own), and
    a transaction may span one slot only, so the writes go in two steps, in an order in which a
    crash between them leaves nothing that matters: first the tokens and the address indexes (one
    pipelined round trip, not a transaction), then the game itself (one transaction in its slot),
    which is the step that makes it exist. A crash in between leaves tokens nobody was given for a
    game that does not exist (it answers 404 to them), and address entries that `/me/turns` skips
    because the game does not name the address.
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
    now = deadlines.now()
    with store.redis.pipeline(transaction=False) as pipe:
        host_token, host_id = tokens.issue(store, {"kind": "host", "game": game_id}, pipe)
        if host_address:
            _index_host(pipe, game_id, host_address)
        if spec.get("public") and any(seat.get("open") for seat in seats):
            # listed before the game exists: the lobby's reader skips a game that never came to be
            pipe.zadd(lobby_key(), {game_id: int(now.timestamp() * 1000)})
        for number, seat in enumerate(seats):
            entry, token, invite = _seat_entry(store, game_id, number, seat, pipe)
            seat_meta.append(entry)
            if token:
                issued["seats"].append({"seat": number, "token": token})
            if invite:
                invitations.append(invite)
        pipe.execute()
    meta = new_meta(game_id, game.name, options, setup, seat_meta, now, rules_of(state),
                    seed=seed, deadlines=spec.get("deadlines", {}), host=host_id,
                    missed_turns=spec.get("missed_turns", MISSED_TURNS), host_email_hash=host_address,
                    public=bool(spec.get("public")), start_when_full=bool(spec.get("start_when_full")),
                    join=new_join_id(), remove_after=spec.get("remove_after"), grace_hours=spec.get("grace_hours"),
                    stand_in=spec.get("stand_in") or STAND_IN,
                    vacation_days=spec.get("vacation_days", vacation.DEFAULT_DAYS))
    meta["title"] = spec.get("title") or default_title(meta)
    for invite in invitations:
        invite["title"] = meta["title"]
    pending = [{**d, "deadline_at": None, "since": 1} for d in game.pending(state)]
    store.create(game_id, {"meta": dumps(meta), "state": dumps(state), "pending": dumps(pending), "status": OPEN},
                 [feed_entry(1, None, {"type": "game_created", "game": game.name, "seats": len(seats)})])
    issued["host"] = host_token
    return start_if_full(store, load(store, game_id)), issued, invitations


def new_meta(game_id: str, name: str, options: dict[str, Any], setup: dict[str, Any], seats: list[dict[str, Any]],
             now: datetime, rules_version: int, **fields: Any) -> dict[str, Any]:
    """A new game's meta: every field a stored game has, at its default unless `fields` names it (the one
    list, for `create` and for a game `palazzo import` keeps). The title is the caller's."""
    return {
        "id": game_id, "game": name, "options": options, "seed": None, "setup": setup, "seats": seats,
        "deadlines": {}, "host": None, "created_at": deadlines.stamp(now), "pauses_used": 0, "paused_at": None,
        "paused_until": None, "missed_turns": MISSED_TURNS, "host_email_hash": None,
        "created_ms": int(now.timestamp() * 1000), "public": False, "start_when_full": False, "join": None,
        "remove_after": None, "grace_hours": None, "stand_in": STAND_IN, "vacation_days": vacation.DEFAULT_DAYS,
        "rules_version": rules_version, **fields,
    }


def new_join_id() -> str:
    """What a game's join link names (`service.seats`): a new one, or none, revokes the links made before."""
    return secrets.token_urlsafe(9)


def _seat_entry(store: Store, game_id: str, number: int, seat: dict[str, Any], pipe) -> tuple[dict, str | None, dict | None]:
    """A seat's stored entry, the token for its creator (no address, no bot), and whom to invite.

    A seat with an address is indexed under it; only a link mailed there yields a token for it. An
    open seat has nobody: no name, no token, no address.
    """
    if seat.get("open"):
        return {"name": None, "bot": None, "email": None, "token": None, "open": True}, None, None
    entry = {"name": seat["name"], "bot": seat.get("bot"), "email": seat.get("email"), "token": None}
    if entry["bot"]:
        return entry, None, None
    if entry["email"]:
        entry["email_hash"] = tokens.email_hash(entry["email"])
        pipe.sadd(email_key(entry["email_hash"], "seats"), f"{game_id}:{number}")
        pipe.set(email_key(entry["email_hash"], "known"), "1")
        pipe.set(email_key(entry["email_hash"], "address"), entry["email"])
        chosen = preferences.read(store, entry["email_hash"])
        quiet = deadlines.seat_quiet(chosen.get("quiet"), chosen.get("time_zone"))
        if quiet:
            entry["quiet"] = quiet  # his quiet hours as he set them; `time_off.apply_quiet` keeps them so
        return entry, None, {"email": entry["email"], "name": entry["name"], "game": game_id, "seat": number}
    token, entry["token"] = tokens.issue(store, {"kind": "seat", "game": game_id, "seat": number}, pipe)
    return entry, token, None


def _index_host(pipe, game_id: str, email_hash: str) -> None:
    """The address's list of games it hosts (for its home page), and the mark that lets it sign in."""
    pipe.sadd(email_key(email_hash, "hosts"), game_id)
    pipe.set(email_key(email_hash, "known"), "1")


def host_address_of(head: Seated) -> str | None:
    """The hash of the address the host proved, if he did (a game's host may also be only a token)."""
    return head.meta.get("host_email_hash")


def prove_host(store: Store, table: Table, host_id: str, email_hash: str) -> Table:
    """Make the address its opener proved the game's host's, from a host link made for the host token
    `host_id`; refused (403) once that token no longer hosts the game. A private change: nobody else
    sees the host's address, so the version stays."""
    if table.meta["host"] != host_id:
        raise Problem("bad_link", "this host link is for a game you no longer host")
    if host_address_of(table) == email_hash:
        return table
    with store.redis.pipeline(transaction=False) as pipe:
        _index_host(pipe, table.id, email_hash)
        pipe.execute()
    meta = {**table.meta, "host_email_hash": email_hash}
    outcome = store.commit(table.id, table.rev, statuses=(OPEN, RUNNING, PAUSED, FINISHED, CANCELLED),
                           fields={"meta": dumps(meta)}, public=False, wake=store.wake_at(table.id))
    if outcome.outcome == "stale":
        return prove_host(store, load(store, table.id), host_id, email_hash)
    if outcome.outcome != "ok":
        raise refused(outcome)
    return load(store, table.id)


def feed_entry(version: int, by: int | None, event: dict[str, Any], timeout: bool = False) -> str:
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


def follow_up(store: Store, table: Table, everything: bool = False) -> None:
    """Let the store's followups (deadline jobs, bot moves) see the game as committed."""
    if store.followups is not None:
        store.followups.after(store, table, everything)


DONE = ("ok", "duplicate")  # committed now, or by an earlier try of the same idempotent move
BUSY = "the game kept changing; try again"
Result = TypeVar("Result")
Changed = TypeVar("Changed")


def until_committed(store: Store, table: Table | str, check: Callable[[Table], Result | None],
                    act: Callable[[Table], tuple[Committed, Result]], *, refuse: bool = True,
                    busy: str | None = BUSY, reload: Callable[[Store, str], Table] | None = None) -> Result | None:
    """Load (when given the game's id), re-check, act, and again on the game as it now stands each
    time the act's commit is lost to another writer: the one loop of every move (a player's, a bot's,
    a deadline's), so that its checks always see what won.

    `check(table)` answers None to act, else what to return without acting (or raises a Problem);
    `act(table)` commits and gives (the commit's outcome, what to return when it is done: DONE). A
    refusal other than stale raises its Problem (`games.refused`) when `refuse`; otherwise it is tried
    again like a stale one, and the next check sees why. After ATTEMPTS tries: 409 busy saying `busy`,
    or None when `busy` is None. `reload` reads the game instead of `load` (the upgrade's, which reads
    it as stored, without ending a pause that has run out).
    """
    for attempt in range(ATTEMPTS):
        if attempt or isinstance(table, str):
            table = (reload or load)(store, table if isinstance(table, str) else table.id)
        early = check(table)
        if early is not None:
            return early
        outcome, result = act(table)
        if outcome.outcome in DONE:
            return result
        if refuse and outcome.outcome != "stale":
            raise refused(outcome)
    if busy is None:
        return None
    raise Problem("busy", busy)


def retrying(store: Store, table: Table, change: Callable[[Table], Changed]) -> Changed:
    """`change(table)`, a check and a commit (`_host_change`, which raises its refusal) on the game as
    loaded, through `until_committed`: again on the game as it now stands each time its commit lost to
    another writer (409 stale_version), so that its checks see what won; 409 busy after ATTEMPTS."""
    def act(table: Table) -> tuple[Committed, Changed | None]:
        try:
            return Committed("ok", table.version), change(table)
        except Problem as problem:
            if problem.code != "stale_version":
                raise
            return Committed("stale", table.version), None
    return until_committed(store, table, lambda table: None, act)


def _host_change(store: Store, table: Table, statuses: tuple[Status, ...], *, status: Status | None = None,
                 meta: dict | None = None, pending: list | None = None, event: dict | None = None) -> Table:
    fields = {}
    if status:
        fields["status"] = status
    if meta is not None:
        fields["meta"] = dumps(meta)
    if pending is not None:
        fields["pending"] = dumps(pending)
    changed = Table(table.id, table.version + 1, table.rev + 1, status or table.status,
                    table.meta if meta is None else meta, table.state, table.pending if pending is None else pending,
                    table.private_moves, table.game)
    outcome = store.commit(table.id, table.rev, statuses=statuses, fields=fields,
                           events=[feed_entry(table.version + 1, None, event)] if event else [],
                           wake=deadlines.wake_at(changed, deadlines.now(), store.compact_after))
    if outcome.outcome != "ok":
        raise refused(outcome)
    table = load(store, table.id)
    relist(store, table, table.status)
    follow_up(store, table, everything=True)
    return table


def start(store: Store, table: Table) -> Table:
    """Start an open game; refused (409 seats_open) while a seat is open: nobody would play it."""
    free = open_seats(table) if table.status == OPEN else []
    if free:
        listed = f"seat {free[0] + 1} is" if len(free) == 1 else f"seats {', '.join(str(n + 1) for n in free)} are"
        raise Problem("seats_open", f"{listed} open: a game starts once every seat is taken (by the join link, "
                                    "an invitation or a bot)")
    pending = deadlines.schedule(table.game.pending(table.state), [], table.meta["deadlines"], deadlines.now(),
                                 table.version + 1, seats=table.meta["seats"])
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
    """End a pause; every deadline moves later by the time the game stood still, and out of its seat's
    quiet hours (409 if not paused). `resumed` keeps by how much, for the mail that tells everyone."""
    if table.status != PAUSED:
        raise refused(Committed("status", table.version, table.status))
    now = deadlines.now()
    paused_for = now - deadlines.parse(table.meta["paused_at"])
    pending = deadlines.out_of_all_quiet(deadlines.shift(table.pending, paused_for), table.meta["seats"])
    meta = {**table.meta, "paused_at": None, "paused_until": None,
            "resumed": {"pause": table.meta["pauses_used"], "at": deadlines.stamp(now),
                        "moved": round(paused_for.total_seconds())}}
    try:
        table = _host_change(store, table, (PAUSED,), status=RUNNING, meta=meta, pending=pending,
                             event={"type": "game_resumed"})
    except Problem as problem:
        if problem.code != "stale_version":
            raise
        return load(store, table.id)
    return table


def rename(store: Store, table: Table, title: str) -> Table:
    """Give the game another title (checked by the caller's schema): a public change, in the feed."""
    return _host_change(store, table, (OPEN, RUNNING, PAUSED), meta={**table.meta, "title": title},
                        event={"type": "game_renamed", "title": title})


def cancel(store: Store, table: Table, reason: str | None = None) -> Table:
    """End the game for good, from the API's host or `palazzo admin cancel`; a reason given is in the feed."""
    return _host_change(store, table, (OPEN, RUNNING, PAUSED), status=CANCELLED,
                        event={"type": "game_cancelled", **({"reason": reason} if reason else {})})


def replace_seat(store: Store, table: Table, seat: int, player: dict[str, Any], *, proved: bool = False
                 ) -> tuple[Table, str | None, dict[str, Any] | None]:
    """Hand a seat to another player or a bot, or leave it open: (table, token for the host to pass
    on, whom to invite).

    The old seat token stops working at once; a seat with an address gets its link by mail only,
    unless its player `proved` the address already (he signed in and joins by the join link). A game
    that starts when full starts once no seat is open. A player who takes a seat of a game under way
    (a substitute) gets a fresh deadline for the seat's pending decision (`deadlines.fresh`) and, once
    the commit is in, a welcome mail with where the game stands (`joined` marks him for
    `workers.notify`); his missed count, stand-in and grace start afresh. A player with an address brings
    his quiet hours (`_seat_entry`), and the fresh deadline leaves them.

    Three steps, since a transaction may span only one Redis Cluster slot and the new seat's token
    and address index lie in other slots than the game: the new seat's keys first (undone if the
    game refuses the change), then the game's commit, which hands the seat over, then the old token
    and address entry go, in one round trip. A crash before the last step leaves an address entry
    that `/me/turns` skips (the game no longer names that address), and the old seat token alive
    unless the caller check compares it with the token id the seat names (`meta.seats[n].token`).
    """
    if not 0 <= seat < len(table.meta["seats"]):
        raise Problem("seat_not_found", f"no seat {seat}")
    if player.get("email") and any(other.get("email_hash") == tokens.email_hash(player["email"])
                                   for number, other in enumerate(table.meta["seats"]) if number != seat):
        raise Problem("duplicate_email", "each address may hold one seat of a game")
    old = table.meta["seats"][seat]
    table, came_back = vacation.handed_over(table, seat)
    with store.redis.pipeline(transaction=False) as pipe:
        entry, token, invite = _seat_entry(store, table.id, seat, player, pipe)
        pipe.execute()
    entry["holder"] = holder_of(old) + 1
    pending = None
    if table.status in (RUNNING, PAUSED) and not entry.get("bot") and not seat_is_open(entry):
        now = deadlines.now()
        since = deadlines.parse(table.meta["paused_at"]) if table.status == PAUSED else now
        pending = deadlines.out_of_quiet(deadlines.fresh(table.pending, seat, table.meta["deadlines"], since), seat,
                                         entry.get("quiet"))
        entry["joined"] = {"at": deadlines.stamp(now), "after": old.get("name")}
    seats = list(table.meta["seats"])
    seats[seat] = entry
    event = {"type": "seat_opened", "seat": seat} if seat_is_open(entry) else \
        {"type": "seat_replaced", "seat": seat, "name": entry["name"], **({"joined": True} if proved else {})}
    try:
        table = _host_change(store, table, (OPEN, RUNNING, PAUSED), meta={**table.meta, "seats": seats},
                             pending=table.pending if pending is None and came_back else pending, event=event)
    except Problem:
        _drop_seat_keys(store, table.id, seat, entry, keep_email=old.get("email_hash"))
        raise
    _drop_seat_keys(store, table.id, seat, old, keep_email=entry.get("email_hash"))
    if invite:
        invite["title"] = title_of(table)
    return start_if_full(store, table), token, None if proved else invite


def start_if_full(store: Store, table: Table) -> Table:
    """Start a game made to start when full once no seat is open (whoever took the last one). Two
    seats taken at once may both try: the second finds it started, or retries on a stale revision."""
    for _ in range(5):
        if table.status != OPEN or not table.meta.get("start_when_full") or open_seats(table):
            return table
        try:
            return start(store, table)
        except Problem as problem:
            if problem.code != "stale_version" and not problem.code.startswith("game_"):
                raise
            table = load(store, table.id)
    return table


def vacate_seat(store: Store, table: Table, seat: int, why: str, reason: str | None = None,
                holder: int | None = None) -> tuple[Table, dict[str, Any]]:
    """Take a seat from its player, mid-game or before it: (the table after, the player's old entry).

    The seat becomes open (`seat_is_open`), with the next holder generation, so every token, session,
    link and reply address of its player stops acting for it at once; the stand-in answers its
    decisions at their deadlines until someone takes it (`replace_seat`). Everyone sees a
    `seat_left` event with the seat, the player's name, `why` (LEFT, REMOVED, MISSED) and the host's
    `reason`. `holder` is the generation the caller meant to vacate: a commit lost to another writer
    is tried again only while the seat still has it. Then, as for `replace_seat`, the old seat token
    and address entry go in a later round trip.
    """
    for _ in range(ATTEMPTS):
        if table.status not in (OPEN, RUNNING, PAUSED):
            raise refused(Committed("status", table.version, table.status))
        if not 0 <= seat < len(table.meta["seats"]):
            raise Problem("seat_not_found", f"no seat {seat}")
        old = table.meta["seats"][seat]
        if seat_is_open(old):
            raise Problem("seat_open", f"seat {seat} is open already: nobody holds it")
        if holder is not None and holder_of(old) != holder:
            raise Problem("not_a_seat", f"seat {seat} has been handed to someone else meanwhile")
        if old.get("bot"):
            raise Problem("seat_is_bot", f"a bot plays seat {seat}: hand it to a player instead")
        table, came_back = vacation.handed_over(table, seat)
        left = {"name": old["name"], "why": why, "reason": reason, "at": deadlines.stamp(deadlines.now())}
        entry = {"name": old["name"], "bot": None, "email": None, "token": None, "open": True,
                 "holder": holder_of(old) + 1, "standin": stand_in_of(table.meta), "missed": 0, "left": left}
        seats = list(table.meta["seats"])
        seats[seat] = entry
        try:
            table = _host_change(store, table, (OPEN, RUNNING, PAUSED), meta={**table.meta, "seats": seats},
                                 pending=table.pending if came_back else None,
                                 event={"type": "seat_left", "seat": seat, "name": old["name"], "why": why,
                                        "reason": reason})
        except Problem as problem:
            if problem.code != "stale_version":
                raise
            holder = holder_of(old)
            table = load(store, table.id)
            continue
        _drop_seat_keys(store, table.id, seat, old, keep_email=None)
        return table, old
    raise Problem("busy", "the game kept changing; try again")


def _drop_seat_keys(store: Store, game_id: str, seat: int, entry: dict[str, Any], keep_email: str | None) -> None:
    """Remove a seat entry's token and its address's index entry (unless that address still holds
    the seat), in one round trip; the keys lie in different slots, so not as one transaction."""
    with store.redis.pipeline(transaction=False) as pipe:
        if entry.get("token"):
            pipe.delete(token_key(entry["token"]))
        if entry.get("email_hash") and entry["email_hash"] != keep_email:
            pipe.srem(email_key(entry["email_hash"], "seats"), f"{game_id}:{seat}")
        pipe.execute()


def rules_version(meta: dict[str, Any]) -> int:
    """The rules version the game started with, which it keeps to its end (`engine.core.rules_of`);
    a game stored before it was kept (format 1) started with the first."""
    return meta.get("rules_version", FIRST_RULES)


def replay(store: Store, game_id: str) -> dict[str, Any]:
    """Rebuild the state from the setup, the move log and the private moves since: it must equal the stored state."""
    table = load(store, game_id)
    state = first_state(table)
    for _, state, _ in replayed(table, store.log(game_id)):
        pass
    return state


def first_state(table: Table) -> dict[str, Any]:
    """The game's first state, from its options and setup, under the rules version it started with."""
    return table.game.new_state(table.meta["options"], table.meta["setup"], rules_version(table.meta))


def replayed(table: Table, log: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any], list]]:
    """Each move of the game's `log` and then of its private moves since, played again from its first
    state by the code running now: (the log entry, the state after it, its events). Raises IllegalMove
    at a move this code refuses."""
    state = first_state(table)
    for entry in log + table.private_entries():
        state, events = table.game.apply(state, entry["seat"], entry["move"])
        yield entry, state, events


def events_for(store: Store, game_id: str, viewer: int | None, after: int, limit: int) -> tuple[list, int, int]:
    """A page of the feed redacted for the viewer, the seq to resume after, and the feed's length.

    The cursor counts the entries the viewer may not see too, so a page of hidden entries still moves on.
    """
    entries, total = store.events(game_id, after, limit)
    last = entries[-1]["seq"] if entries else min(after, total)
    return redact(entries, viewer), last, total



def wait_for_events(store: Store, game_id: str, after: int, seconds: float) -> None:
    """Return once the feed holds more than `after` events, or after `seconds` (a long-poll)."""
    wait_for_growth(store, feed_channel(game_id), lambda: store.feed_length(game_id), after, seconds)


def wait_for_growth(store: Store, channel: str, length: Callable[[], int], after: int, seconds: float) -> None:
    """Return once `length()` is more than `after`, or after `seconds`: the long-poll of the feed and of
    the table talk, each a list of the game that publishes on its `channel` whenever it grows.

    Subscribes before looking, so an entry appended in between is never missed. On a Redis Cluster
    the client subscribes at the master of the channel's slot (the game's, by its hash tag); a
    classic PUBLISH reaches the subscribers of every node anyway.
    """
    with store.redis.pubsub(ignore_subscribe_messages=True) as subscribed:
        subscribed.subscribe(channel)
        deadline = time.monotonic() + seconds
        while length() <= after:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            subscribed.get_message(timeout=min(left, 1.0))
