"""Stored games across releases: the migrations of the stored format, and the check that every stored
game still replays under the code running now.

A game lasts weeks, so a release lands on running games. Two things can part a stored game from the
code: its stored format (the keys and fields the service writes, `service.store.FORMAT`), which
`migrate` moves on, one step per format, one game at a time, in one commit through the store's
commit script, so it runs beside a running service (a game changed meanwhile is read again); and its
rules, which a game keeps by its rules version (`engine.core.rules_of`). A rule changed without a new
version would change what a running game's log replays to: `check` replays the game from its setup
and finds the first move whose events differ from those in its feed, and the keys of the state that
differ from the stored one.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core import IllegalMove, rules_of
from service import games
from service.games import LOAD_FIELDS, Table, stored_table, until_committed
from service.status import Status
from service.store import FIRST_FORMAT, FORMAT, PREFIX, Committed, Store, dumps

Migration = Callable[[dict[str, Any], dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]


def _versions(meta: dict[str, Any], state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Format 1 -> 2: write into a game stored before versions were kept the rules version it has played
    by all along (the first), in its meta and in its state, where the rules read it."""
    rules = meta.get("rules_version", rules_of(state))
    return {**meta, "rules_version": rules}, {**state, "rules": rules}


MIGRATIONS: dict[int, Migration] = {1: _versions}  # a format -> the step that moves a game to the next
assert FIRST_FORMAT + len(MIGRATIONS) == FORMAT, "each stored format but the last has its migration"

GAME_KEYS = f"{PREFIX}:{{*}}:*:game"  # the glob of every game hash (service.store.game_key)


class TooNew(Exception):
    """A game stored in a format newer than this code knows: written by a later release."""


def game_ids(store: Store) -> list[str]:
    """Every stored game's id, by a SCAN of the game hashes (on every node of a cluster)."""
    return sorted({key.split(":")[2] for key in store.redis.scan_iter(match=GAME_KEYS, count=1000)})


def format_of(raw: str | None) -> int:
    """A game hash's `format` field as stored (none: format 1)."""
    return int(raw) if raw else FIRST_FORMAT


def migrated(stored: int, meta: dict[str, Any], state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The meta and state of a game stored in format `stored` as the current format has them."""
    if stored > FORMAT:
        raise TooNew(f"format {stored}: this code knows formats up to {FORMAT}")
    for step in range(stored, FORMAT):
        meta, state = MIGRATIONS[step](meta, state)
    return meta, state


def migrate(store: Store, game_id: str) -> tuple[int, int] | None:
    """Move one game to the current format: (from, to), or None when it is there already.

    The migrated meta and state are committed at the revision they were read at (a private change: the
    version players hold stays), so a writer that read the game before loses his commit and tries
    again on the migrated game, and a migration that lost to a writer reads the game again
    (`games.until_committed`, the one commit loop). Raises TooNew, IllegalMove for a game not served here, and Problem(game_not_found) for a
    game that is gone.
    """
    def current(table: Table) -> bool | None:
        """False (nothing to do) once the game is at the current format; the commit's check is the rev."""
        return False if _format(store, table) == FORMAT else None

    def write(table: Table) -> tuple[Committed, tuple[int, int]]:
        stored = _format(store, table)
        meta, state = migrated(stored, table.meta, table.state)
        outcome = store.commit(table.id, table.rev, statuses=tuple(Status), public=False,
                               fields={"meta": dumps(meta), "state": dumps(state), "format": str(FORMAT)},
                               wake=store.wake_at(table.id))
        return outcome, (stored, FORMAT)

    return until_committed(store, game_id, current, write, reload=as_stored) or None


def as_stored(store: Store, game_id: str) -> Table:
    """The game as stored, with nothing done to it: neither the upgrade nor its dry run ends a pause
    that has run out (`games.load` would: a write, and one the game's followups should see)."""
    return stored_table(game_id, store.head(game_id, *LOAD_FIELDS))


def _format(store: Store, table: Table) -> int:
    """The table's stored format, read after the table (a migration in between makes its commit stale)."""
    return format_of(store.head(table.id, "format")["format"])


@dataclass
class Check:
    """What replaying one stored game under the code running now found. `differs_at` is the index in
    the move log of the first move whose events are not the ones its feed recorded (None: all are),
    `refused` the engine's word when the code refuses that move, `keys` the paths in the state where
    the replay's last state and the stored one differ."""

    game_id: str
    game: str
    status: str
    format: int
    moves: int = 0
    differs_at: int | None = None
    move: dict[str, Any] | None = None
    refused: str | None = None
    keys: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return self.differs_at is not None or self.refused is not None or bool(self.keys)


def check(store: Store, game_id: str) -> Check:
    """Replay one stored game (setup, move log, private moves, as `palazzo replay` does) under this code,
    without writing anything: the game as read is taken to the current format in memory first, so only
    what the rules would change shows. Raises TooNew, IllegalMove for a game not served here, and
    Problem(game_not_found)."""
    raw = store.head(game_id, *LOAD_FIELDS, "format")
    table = stored_table(game_id, raw)
    found = Check(game_id, table.meta["game"], table.status, format_of(raw["format"]))
    meta, stored = migrated(found.format, table.meta, table.state)
    table = replace(table, meta=meta, state=stored)
    feed = _feed_by_version(store, game_id)
    log = store.log(game_id)
    steps, last = games.replayed(table, log), games.first_state(table)
    for index, entry in enumerate(log + table.private_entries()):
        try:
            _, last, events = next(steps)
        except IllegalMove as error:
            found.differs_at, found.move, found.refused = index, entry, f"{error.code}: {error.message}"
            return found
        found.moves = index + 1
        if found.differs_at is None and "version" in entry and not _recorded(feed.get(entry["version"], []), events):
            found.differs_at, found.move = index, entry
    found.keys = list(differences(last, stored))
    return found


def _feed_by_version(store: Store, game_id: str) -> dict[int, list[dict[str, Any]]]:
    """The game's whole feed (events as stored, unredacted), by the version that recorded them."""
    entries, _ = store.events(game_id, 0, max(store.feed_length(game_id), 1))
    grouped: dict[int, list[dict[str, Any]]] = {}
    for entry in entries:
        grouped.setdefault(entry["version"], []).append(entry["event"])
    return grouped


def _recorded(stored: list[dict[str, Any]], events: list[dict[str, Any]]) -> bool:
    """Whether a move's public events (as `playing.play` keeps them: none private to a seat) stand in
    the feed of its version as one run; the service may have recorded its own events around them."""
    public = [event for event in events if "private_to" not in event]
    return any(stored[start:start + len(public)] == public for start in range(len(stored) - len(public) + 1))


def differences(ours: Any, theirs: Any, path: str = "", limit: int = 12) -> Iterator[str]:
    """The paths ("players[1].cash") at which two JSON documents differ, at most `limit` of them."""
    for found, where in enumerate(_differences(ours, theirs, path), start=1):
        yield where or "(the whole state)"
        if found == limit:
            return


def _differences(ours: Any, theirs: Any, path: str) -> Iterator[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs), key=str):
            inner = f"{path}.{key}" if path else str(key)
            if key not in ours or key not in theirs:
                yield inner
            else:
                yield from _differences(ours[key], theirs[key], inner)
    elif isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (one, other) in enumerate(zip(ours, theirs)):
            yield from _differences(one, other, f"{path}[{index}]")
    elif ours != theirs:
        yield path
