"""Bring stored games up to this release: migrate their format, or list what a replay would change (--dry-run).

The real run moves every game (or those named by --game) to the current stored format, one game at a
time, each in one atomic commit, so it may run while the service runs; a game already there is left
alone, so a second run changes nothing. The dry run writes nothing: it replays each game from its setup
and its move log and prints each one whose replay differs from what is stored, with the first move whose
events differ and the keys of the state that do. The store is REDIS_URL's, as for the service.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import redis

from engine.core import IllegalMove
from service import upgrade
from service.config import Config, ConfigError, make_store
from service.problems import Problem
from service.store import FORMAT, Store

PROG = "palazzo upgrade"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dry-run", action="store_true",
                        help="write nothing: list the games whose replay under this code differs from what is stored")
    parser.add_argument("--game", action="append", metavar="ID", default=[],
                        help="only this game (again for more); by default every stored game")


def run(args: argparse.Namespace) -> int:
    try:
        store = make_store(Config.from_env())
        found = upgrade.game_ids(store)
    except (ConfigError, redis.RedisError) as error:
        return _bad(f"cannot read the store: {error}")
    missing = [game_id for game_id in args.game if game_id not in found]
    if missing:
        return _bad(f"no stored game {', '.join(missing)}")
    chosen = args.game or found
    return (_dry_run if args.dry_run else _migrate)(store, chosen)


def _bad(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def _each(store: Store, chosen: list[str], one: Callable[[str], str | None]) -> tuple[int, int]:
    """`one(game_id)` for each game, printing what it says; (how many said something, how many could
    not be read: a game of a later format or not served here, each said on stderr)."""
    said = unreadable = 0
    for game_id in chosen:
        try:
            line = one(game_id)
        except (upgrade.TooNew, IllegalMove, Problem) as error:
            print(f"{PROG}: {game_id}: left as it is: {error}", file=sys.stderr)
            unreadable += 1
            continue
        if line:
            print(line)
            said += 1
    return said, unreadable


def _migrate(store: Store, chosen: list[str]) -> int:
    def one(game_id: str) -> str | None:
        moved = upgrade.migrate(store, game_id)
        return f"{game_id}: format {moved[0]} -> {moved[1]}" if moved else None

    moved, unreadable = _each(store, chosen, one)
    print(f"{moved} of {len(chosen)} games migrated to format {FORMAT}; the others were there already"
          + (f" but {unreadable}, left as they are" if unreadable else ""))
    return 2 if unreadable else 0


def _dry_run(store: Store, chosen: list[str]) -> int:
    def one(game_id: str) -> str | None:
        found = upgrade.check(store, game_id)
        return describe(found) if found.differs else None

    differ, unreadable = _each(store, chosen, one)
    print(f"{differ} of {len(chosen)} games would replay differently under this code"
          + (f"; {unreadable} could not be replayed" if unreadable else ""))
    return 2 if unreadable else 0


def describe(found: upgrade.Check) -> str:
    """One line on a game whose replay differs: where, and which keys of its state."""
    head = f"{found.game_id} ({found.game}, {found.status}, format {found.format}):"
    if found.refused is not None:
        return f"{head} move {found.differs_at + 1} ({_move(found)}) is refused now: {found.refused}"
    where = (f"differs from move {found.differs_at + 1} ({_move(found)}) on" if found.differs_at is not None
             else f"its {found.moves} moves replay as recorded, but the state differs at")
    return f"{head} {where} {', '.join(found.keys) or 'nothing else in the state'}"


def _move(found: upgrade.Check) -> str:
    return f"seat {found.move['seat']}: {json.dumps(found.move['move'], sort_keys=True)}"
