"""The job after each public commit of a game with an address in it: every channel is told of it.

`service.followups` queues `game` once per commit (its job id names the version); it loads the game
once and lets each channel (`service.channels.Channel`) tell its readers what the game now has for
them. Mail goes first: a webhook that fails to queue does not hold up anyone's mail (the job fails,
RQ keeps it, and each channel's claims make running it again send nothing twice).
"""
from __future__ import annotations

from service import games, logs
from service.channels import Channel
from workers import context, notify, webhooks

CHANNELS: tuple[Channel, ...] = (notify, webhooks)


@logs.game_job
def game(game_id: str) -> int:
    """Tell every channel of the game as it is now; how many things they sent or queued."""
    store = context.store()
    table = games.load(store, game_id)
    return sum(channel.tell(store, table) for channel in CHANNELS)
