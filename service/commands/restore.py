"""Write a `palazzo backup` FILE into an empty store (REDIS_URL's); --force writes over what is there.

The whole file is checked first: a file cut short or not a backup is refused and nothing is written.
A store that already holds Palazzo's keys is refused too, unless --force, which replaces each key of
the backup and leaves the others.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import redis

from service import backup
from service.config import Config, ConfigError

PROG = "palazzo restore"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a file written by `palazzo backup`")
    parser.add_argument("--force", action="store_true",
                        help="restore even though the store holds Palazzo's keys (the backup's keys replace them)")


def run(args: argparse.Namespace) -> int:
    try:
        kept = backup.read(args.file)
        client = backup.binary(Config.from_env())
        there = backup.keys(client)
        if there and not args.force:
            return _bad(f"the store already holds {len(there)} of Palazzo's keys; restore into an empty one, "
                        "or --force to write over them")
        backup.restore(client, kept, replace=args.force)
    except backup.BadBackup as error:
        return _bad(f"{error}; nothing written")
    except (ConfigError, redis.RedisError) as error:
        return _bad(f"{error}; nothing written" if not args.force else str(error))
    print(f"{len(kept)} keys restored from {args.file}")
    return 0


def _bad(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 2
