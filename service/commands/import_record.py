"""Keep a finished game's record (GET /games/{id}/record) in this store as a game of its archive.

The record is replayed first: one that does not replay to its result, names a game this server does
not serve or a rules version it does not know, is of an unfinished game or is malformed is refused
with status 2, and nothing is stored. Prints the new game's id and its archive page.
"""
from __future__ import annotations

import argparse
import sys

import redis

from service import importing
from service.commands import replay
from service.config import Config, ConfigError, make_store

PROG = "palazzo import"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="RECORD.json", help="a finished game's record, as GET /games/{id}/record gives it")


def run(args: argparse.Namespace) -> int:
    try:
        record = replay.read(args.file)
        config = Config.from_env()
        game_id = importing.import_record(make_store(config), record, config.games)
    except (replay.BadReplay, importing.BadRecord) as error:
        return _bad(f"{args.file}: {error}; nothing stored")
    except (ConfigError, redis.RedisError) as error:
        return _bad(f"{error}; nothing stored")
    print(f"imported as game {game_id}: {config.base_url.rstrip('/')}/games/{game_id}/archive")
    return 0


def _bad(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2
