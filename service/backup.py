"""A copy of Palazzo's data in one file, and that copy written back into an empty Redis.

The copy is every key under PREFIX but the request rate counts: games (hash, move log, event feed,
idempotency answers, claims), each shard's wake index (the deadlines, pauses and compactions to come),
the service-clock timers, tokens, addresses and the lobby. RQ's keys are not in it: deadlines do not
wait in RQ (a worker's poll reads the wake index and the timers), so a restored game's deadlines fire;
only jobs queued at the moment of the copy (a mail, a bot's delayed move) are not.

Each key is taken with DUMP and its time to live. The keys sharing a hash tag (a shard's games and its
wake index; the timers) are taken in one MULTI, and every commit writes a game's keys and its shard's
wake index in one atomic script, so each shard is copied as of one instant: no game is half a move
ahead of its log, nor its deadline of its state. Different shards, and the untagged keys (tokens,
addresses, the lobby), may be copied a moment apart: a game created or a token issued during the copy
may be in it or not. A DUMP payload is read only by a redis-server of the same or a later version.

The file is JSON lines: a header {format, created_at, keys}, then {key, dump (base64), ttl (ms, 0 for
none)} a line.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import redis

from service.config import Config, make_store
from service.connection import connect
from service.store import PREFIX

FORMAT = "palazzo-backup-1"
SKIPPED = f"{PREFIX}:rate:"  # request rate counts: a minute's worth, nothing to keep
BATCH = 500  # untagged keys taken in one round trip
HEADER_WIDTH = 100  # the header line, padded with spaces (JSON allows them)


class BadBackup(ValueError):
    """The file is not a whole backup of this format; nothing was written."""


@dataclass(frozen=True)
class Kept:
    key: str
    dump: bytes
    ttl: int  # ms to live, 0 for none


def binary(config: Config) -> redis.Redis:
    """A client of the store whose answers stay bytes, as DUMP payloads are (redis-py decodes a DUMP
    inside a transaction otherwise)."""
    make_store(config)  # the store's own checks of REDIS_URL: not a lone node of a cluster
    return connect(config.redis_url, decode=False)


def keys(client: redis.Redis) -> list[str]:
    """Palazzo's keys (on a Redis Cluster, redis-py's SCAN goes over every primary)."""
    found = {key.decode() if isinstance(key, bytes) else key for key in client.scan_iter(match=f"{PREFIX}:*", count=1000)}
    return sorted(key for key in found if not key.startswith(SKIPPED))


def _tag(key: str) -> str | None:
    start = key.find("{")
    end = key.find("}", start + 1)
    return key[start + 1:end] if start >= 0 and end > start + 1 else None


def take(client: redis.Redis) -> Iterator[Kept]:
    """DUMP and PTTL of every key, each hash tag's keys in one transaction (one slot on a cluster)."""
    tagged: dict[str, list[str]] = {}
    untagged: list[str] = []
    for key in keys(client):
        tag = _tag(key)
        (tagged.setdefault(tag, []) if tag else untagged).append(key)
    groups = [(True, group) for group in tagged.values()]
    groups += [(False, untagged[i:i + BATCH]) for i in range(0, len(untagged), BATCH)]
    for transaction, group in groups:
        with client.pipeline(transaction=transaction) as pipe:
            for key in group:
                pipe.dump(key)
                pipe.pttl(key)
            answers = pipe.execute()
        for key, dump, ttl in zip(group, answers[0::2], answers[1::2]):
            if dump is not None and ttl != -2:  # gone since the SCAN: expired or compacted away
                yield Kept(key, dump, max(ttl, 0))


def write(client: redis.Redis, path: Path) -> int:
    """The backup of `client` into `path`, a key at a time (the header's count is written last, over a
    line of spaces kept for it), beside it and then renamed: never half a file under its name; how
    many keys."""
    created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    partial = path.with_name(path.name + ".partial")
    count = 0
    with partial.open("w") as out:
        out.write(" " * HEADER_WIDTH + "\n")
        for one in take(client):
            out.write(json.dumps({"key": one.key, "dump": base64.b64encode(one.dump).decode(), "ttl": one.ttl}) + "\n")
            count += 1
        out.seek(0)
        out.write(json.dumps({"format": FORMAT, "created_at": created, "keys": count}).ljust(HEADER_WIDTH))
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)
    return count


def read(path: Path) -> list[Kept]:
    """Every key of a backup file, all checked before any is written."""
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise BadBackup(f"cannot read {path}: {error}") from None
    try:
        header = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("keys"), int):
        raise BadBackup(f"{path} is not a Palazzo backup (no {FORMAT} header on its first line)")
    if len(lines) - 1 != header["keys"]:
        raise BadBackup(f"{path} holds {len(lines) - 1} keys where its header says {header['keys']}: cut short?")
    kept = []
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
            one = Kept(record["key"], base64.b64decode(record["dump"], validate=True), int(record["ttl"]))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, binascii.Error):
            raise BadBackup(f"{path} line {number} is not a key of a backup") from None
        if not isinstance(one.key, str) or not one.key.startswith(f"{PREFIX}:") or one.ttl < 0:
            raise BadBackup(f"{path} line {number} is not a key of a backup")
        kept.append(one)
    return kept


def restore(client: redis.Redis, kept: list[Kept], replace: bool) -> None:
    """RESTORE each key with its time to live (from now). Should Redis refuse one (a payload of a later
    redis-server), the keys written are deleted again unless `replace`, and the error raised."""
    written: list[str] = []
    try:
        for start in range(0, len(kept), BATCH):
            batch = kept[start:start + BATCH]
            with client.pipeline(transaction=False) as pipe:
                for one in batch:
                    pipe.restore(one.key, one.ttl, one.dump, replace=replace)
                answers = pipe.execute(raise_on_error=False)
            written += [one.key for one, answer in zip(batch, answers) if not isinstance(answer, Exception)]
            refused = next((answer for answer in answers if isinstance(answer, Exception)), None)
            if refused is not None:
                raise refused
    except redis.RedisError:
        if not replace and written:
            for start in range(0, len(written), BATCH):  # redis-py splits a multi-key DEL by cluster slot
                client.delete(*written[start:start + BATCH])
        raise
