"""Bot moves off the request path, on the bots' own queue (`followups.BOT_QUEUE`): a bot seat's move a
moment after its decision appears (again at its deadline, if that job was lost), and a stand-in's
move at a deadline, handed over by the deadline's job (`workers.deadlines.wake`) so that a bot's
think time never holds up another game's deadline.

A job has PALAZZO_BOT_SECONDS (`followups.Queued.bot_seconds`); RQ stops one that runs out of them (or
fails) and calls `gave_up`, which plays the game's default move on that same decision instead, so
that the game goes on.
"""
from __future__ import annotations

import logging

from service import games, leaving, logs, playing
from service.followups import STAND_IN_JOB
from service.store import Committed
from workers import context, deadlines

log = logging.getLogger(__name__)


@logs.game_job
def move(game_id: str, seat: int, since: int, think: bool = True) -> bool:
    """Play the seat's bot move if the decision pending since `since` is still the seat's and a bot
    (or a stand-in) plays it; True when a move was committed. Without `think`, the game's default move."""
    store = context.store()

    def gone(table: games.Table) -> bool | None:
        decision = table.decision_of(seat)
        if table.status != games.RUNNING or decision is None or decision["since"] != since or not table.bot_for(seat):
            return False
        return None

    def act(table: games.Table) -> tuple[Committed, bool]:
        return playing.play_bot(store, table, seat, think=think).outcome, True

    return games.until_committed(store, game_id, gone, act, refuse=False, busy=None) or False


@logs.game_job
def stand_in(game_id: str, seat: int, since: int, think: bool = True) -> bool:
    """The deadline's move on the seat's overdue decision pending since `since`, as the deadline's job
    would have played it (`playing.default_on`: the stand-in's choice, or without `think` the game's
    default), then the seat's removal if its player has now missed too many; True when it moved. The game
may be due again at once: its claimed wake time is let go (`deadlines.release`)."""
    store = context.store()
    table, moved = playing.default_on(store, games.load(store, game_id), seat, since, think=think)
    if moved:
        leaving.after_timeout(store, context.links(), table, seat)
        deadlines.release(store, game_id)
    return moved


def gave_up(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback of a bot job (out of time, or failed): the game's default move instead."""
    game_id, seat, since = job.args[:3]
    with logs.for_game(game_id):
        log.warning("the bot of seat %d gave no move (%s: %s); it plays the default move", seat,
                    exc_type.__name__, exc_value)
    (stand_in if job.func_name == STAND_IN_JOB else move)(game_id, seat, since, think=False)
