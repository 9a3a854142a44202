"""Copy Palazzo's data (games, deadlines, timers, tokens, addresses) into FILE, while the service runs.

Each shard's games and their deadlines are copied as of one instant (see service/backup.py); RQ's
queued jobs are not copied. The store is REDIS_URL's, as for the service. `palazzo restore FILE`
writes the copy back.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import redis

from service import backup
from service.config import Config, ConfigError

PROG = "palazzo backup"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="where to write the backup (replaced if it exists)")


def run(args: argparse.Namespace) -> int:
    try:
        count = backup.write(backup.binary(Config.from_env()), args.file)
    except (ConfigError, redis.RedisError, OSError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    print(f"{count} keys written to {args.file}")
    return 0
