"""The host's look into the stored games: list, show one as a spectator sees it, cancel, find the unwoken, mail a decision again.

`games` lists every stored game (or those of one status) with its wake time; `show GAME` prints the
game's state of play as anyone outside it may see it (`game.view(state, None)`: no seat's hidden
part), who must decide what by when, its wake time and its RQ jobs that failed or wait for later;
`cancel GAME` ends it as its host would, through `service.games.cancel`; `unwoken` lists the running
or paused games whose wake time in their shard's wake index is missing or later than their earliest
deadline (or the end of their pause): games no worker would look at in time; `resend GAME SEAT` mails
a seat's pending decision to its player again. Reading writes nothing
(a pause that has run out is shown as stored, not ended). The store is REDIS_URL's, as for the service.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import redis
from rq.job import Job

from engine.presentation import presentation_of
from service import deadlines, games, upgrade
from service.config import Config, ConfigError, make_store
from service.followups import CHANNELS_JOB
from service.mail import seats
from service.problems import Problem
from service.status import Status
from service.store import Store

PROG = "palazzo admin"
LATE_SLACK = 1.0  # seconds a wake may lie after the deadline it stands for (stored times are rounded)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("games", help="one line per stored game: id, game, status, title, version, wake time")
    listing.add_argument("--status", help=f"only games of this status ({', '.join(Status)})")
    sub.add_parser("show", help="a game's state of play as a spectator sees it, its wake time and stuck jobs"
                   ).add_argument("game", metavar="GAME")
    cancel = sub.add_parser("cancel", help="end a game as its host would (not a finished or cancelled one)")
    cancel.add_argument("game", metavar="GAME")
    cancel.add_argument("--reason", help="why, said in the game's feed")
    sub.add_parser("unwoken", help="running or paused games whose wake is missing or later than their deadline")
    resend = sub.add_parser("resend", help="mail a seat's pending decision to its player again (needs workers)")
    resend.add_argument("game", metavar="GAME")
    resend.add_argument("seat", metavar="SEAT", help="the seat's number, from 1, as `show` prints it")


def run(args: argparse.Namespace) -> int:
    if args.action == "games" and args.status is not None and args.status not in set(Status):
        return _bad(f"no status {args.status!r}: one of {', '.join(Status)}")
    try:
        store = make_store(Config.from_env())
        return ACTIONS[args.action](store, args)
    except (ConfigError, redis.RedisError) as error:
        return _bad(f"cannot read the store: {error}")
    except Problem as problem:
        return _bad(problem.detail)


def _bad(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2


def _when(at: float | None) -> str:
    return "-" if at is None else deadlines.stamp(datetime.fromtimestamp(at, timezone.utc))


def _list(store: Store, args: argparse.Namespace) -> int:
    found = games.heads(store, upgrade.game_ids(store))
    for game_id, head in sorted(found.items()):
        if args.status is None or head.status == args.status:
            print(f"{game_id}  {head.meta['game']}  {head.status}  {games.title_of(head)!r}  "
                  f"v{head.version}  wake {_when(store.wake_at(game_id))}")
    return 0


def _show(store: Store, args: argparse.Namespace) -> int:
    table = games.stored_table(args.game, store.head(args.game, *games.LOAD_FIELDS))
    seats = table.meta["seats"]
    names = [games.seat_name(entry, number) for number, entry in enumerate(seats)]
    view = table.game.view(table.state, None)
    print(f"game {table.id}: {table.meta['game']} {games.title_of(table)!r}")
    print(f"status: {table.status}, version {table.version}")
    for number, name in enumerate(names):
        bot = seats[number].get("bot")
        print(f"seat {number + 1}: {name}" + (f" (bot {bot})" if bot else ""))
    for decision in table.pending:
        by = decision.get("deadline_at") or "no deadline"
        print(f"waiting for seat {decision['seat'] + 1} ({names[decision['seat']]}): "
              f"{decision['kind']}, since version {decision['since']}, by {by}")
    if table.status == Status.PAUSED:
        print(f"paused until {table.meta['paused_until']}")
    print(f"wake: {_when(store.wake_at(table.id))}")
    for key, value in presentation_of(table.game).board_facts(view, None, names).items():
        if not isinstance(value, (dict, list)):  # round, phase and the like; the whole view follows
            print(f"{key}: {value}")
    print(f"view: {json.dumps(view, sort_keys=True)}")
    stuck = list(stuck_jobs(store, table.id))
    for where, job in stuck:
        print(f"job {job.id} {where}: {job.func_name} {job.description or ''}".rstrip())
    if not stuck:
        print("jobs: none failed or waiting for later")
    return 0


def stuck_jobs(store: Store, game_id: str) -> Iterator[tuple[str, Job]]:
    """The game's RQ jobs (those whose first argument is its id) that failed for good or wait for a
    later time, on every queue of the followups (none without workers: PALAZZO_JOBS=inline)."""
    for name in ("queue", "replies"):
        queue = getattr(store.followups, name, None)
        if queue is None:
            continue
        for where, registry in (("failed", queue.failed_job_registry), ("scheduled", queue.scheduled_job_registry)):
            for job in Job.fetch_many(registry.get_job_ids(), connection=queue.connection):
                if job is not None and job.args and job.args[0] == game_id:
                    yield where, job


def _cancel(store: Store, args: argparse.Namespace) -> int:
    table = games.load(store, args.game)
    if table.status in (Status.FINISHED, Status.CANCELLED):
        return _bad(f"game {table.id} is {table.status} already: nothing to cancel")
    table = games.cancel(store, table, reason=args.reason)
    print(f"game {table.id} is {table.status}")
    return 0


def unwoken(store: Store) -> Iterator[tuple[games.Table, float, float | None]]:
    """Each running or paused game that no worker would look at in time: (table, when it is due, its
    wake time or None), its due time being what the commit path writes as its wake."""
    for game_id in upgrade.game_ids(store):
        try:
            table = games.stored_table(game_id, store.head(game_id, *games.LOAD_FIELDS))
        except Problem:  # gone since the scan
            continue
        if table.status not in (Status.RUNNING, Status.PAUSED):
            continue
        due = deadlines.wake_at(table, deadlines.now(), store.compact_after)
        wake = store.wake_at(game_id)
        if due is not None and (wake is None or wake > due + LATE_SLACK):
            yield table, due, wake


def _unwoken(store: Store, args: argparse.Namespace) -> int:
    found = list(unwoken(store))
    for table, due, wake in found:
        print(f"{table.id}  {table.status}  due {_when(due)}  wake {_when(wake)}")
    if not found:
        print("none")
    return 0


def _resend(store: Store, args: argparse.Namespace) -> int:
    """Release the claim the decision mail took for the seat's decision and its holder, and queue the
    channels job, which mails what nobody has been sent (`workers.notify.tell`): that mail again."""
    table = games.load(store, args.game)
    count = len(table.meta["seats"])
    if not args.seat.isdigit() or not 1 <= int(args.seat) <= count:
        return _bad(f"no seat {args.seat!r} in game {table.id}: seats 1 to {count}")
    seat = int(args.seat) - 1
    queue = getattr(store.followups, "queue", None)
    decision = table.decision_of(seat) if table.status == Status.RUNNING else None
    to = seats.recipient(store, table, seat) if decision else None
    if queue is None:
        return _bad("no mail without workers (PALAZZO_JOBS=inline)")
    if decision is None:
        return _bad(f"seat {seat + 1} of game {table.id} ({table.status}) has no decision pending")
    if to is None:
        return _bad(f"seat {seat + 1} of game {table.id} takes no decision mail (a bot, no address, or away)")
    store.unclaim(table.id, f"mailed:{seats.decision_claim(seat, to.holder, decision['since'])}")
    queue.enqueue(CHANNELS_JOB, table.id, description="mail a decision again")
    print(f"game {table.id}: the decision of seat {seat + 1} (since version {decision['since']}) is mailed again")
    return 0


ACTIONS: dict[str, Any] = {"games": _list, "show": _show, "cancel": _cancel, "unwoken": _unwoken,
                           "resend": _resend}
