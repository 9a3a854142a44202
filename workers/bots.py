"""Bot moves off the request path: a job a moment after a bot seat's decision appears."""
from __future__ import annotations

from service import games, logs, playing
from service.store import Committed
from workers import context


@logs.game_job
def move(game_id: str, seat: int, since: int) -> bool:
    """Play the seat's bot move if the decision pending since `since` is still the seat's and a bot
    (or a stand-in) plays it; True when a move was committed."""
    store = context.store()

    def gone(table: games.Table) -> bool | None:
        decision = table.decision_of(seat)
        if table.status != games.RUNNING or decision is None or decision["since"] != since or not table.bot_for(seat):
            return False
        return None

    def act(table: games.Table) -> tuple[Committed, bool]:
        return playing.play_bot(store, table, seat).outcome, True

    return games.until_committed(store, game_id, gone, act, refuse=False, busy=None) or False
