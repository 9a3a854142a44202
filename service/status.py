"""The statuses of a game's life, one enum for the service (and the strings stored and served).

A game is created `open` (seats are taken), starts `running`, may be `paused` by its host and
resumed, and ends `finished` (its last move) or `cancelled` (by its host, from any of the first
three). A `StrEnum`, as RQ's JobStatus is a str enum: each member is its string, so stored games, the
API's JSON and the pages read the same words as before, and a status read back from Redis compares
equal to its member. Its own module, below `service.games` which owns the changes, so that the
store and the deadlines (which `games` imports) name the statuses too.
"""
from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    OPEN = "open"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    CANCELLED = "cancelled"
