"""Bot moves off the request path: a job a moment after a bot seat's decision appears."""
from __future__ import annotations

from service import games, playing
from workers import context


def move(game_id: str, seat: int, since: int) -> bool:
    """Play the seat's bot move if the decision pending since `since` is still the seat's and a bot
    (or a stand-in) plays it; True when a move was committed."""
    store = context.store()
    for _ in range(playing.ATTEMPTS):
        table = games.load(store, game_id)
        decision = table.decision_of(seat)
        if table.status != games.RUNNING or decision is None or decision["since"] != since or not table.bot_for(seat):
            return False
        if playing.play_bot(store, table, seat).outcome.outcome == "ok":
            return True
    return False
