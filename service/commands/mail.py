"""The local mailbox: `palazzo mail list` shows what a running `palazzo up` kept instead of sending.

Finds the store through REDIS_URL, or else the private redis-server of a running `palazzo up` (its
address is in <var>/redis.url). Sign-in links appear in full, so this is for local use only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from service.commands.serve import URL_FILE


class NoOutbox(Exception):
    """No local outbox could be reached; the message says where we looked."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="mail_command", required=True)
    add_list_arguments(actions.add_parser("list", help="the mail kept in the local outbox, oldest first"))


def add_list_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="one JSON array of the mails (to, subject, text, html, headers, kind, game, seat, "
                             "holder, since, parts)")
    parser.add_argument("--to", help="only mail to this address (case-insensitive)")
    parser.add_argument("--last", type=int, default=0, metavar="N", help="only the newest N messages")
    parser.add_argument("--var", default="var", help="the --var of the running `palazzo up` (default ./var)")


def run(args: argparse.Namespace) -> int:
    return run_list(args)


def run_list(args: argparse.Namespace, prog: str = "palazzo mail list") -> int:
    try:
        messages = select(read_outbox(args.var), args.to, args.last)
    except NoOutbox as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(messages, indent=2))
        return 0
    for message in messages:
        print(f"To: {message['to']}\nSubject: {message['subject']}\n\n{message['text']}\n{'-' * 72}")
    return 0


def redis_url(var: str) -> str:
    """REDIS_URL, else the address a running `palazzo up` wrote under its --var."""
    from service.config import named_store_url
    url = named_store_url()
    if url:
        return url
    url_file = Path(var) / URL_FILE
    if not url_file.exists():
        raise NoOutbox(f"no REDIS_URL and no {url_file}: is `palazzo serve` (`palazzo up`) running?")
    return url_file.read_text().strip()


def read_outbox(var: str) -> list[dict[str, Any]]:
    """Every kept mail, oldest first, each with all of a Mail's keys (older entries lack some)."""
    import redis

    from service import mailbox
    from service.mail.message import Mail
    from service.connection import connect
    from service.store import Store

    url = redis_url(var)
    try:
        kept = mailbox.outbox(Store(connect(url)))
    except redis.ConnectionError:
        raise NoOutbox(f"cannot reach {url}: is `palazzo serve` (`palazzo up`) running?") from None
    return [{**Mail.from_json(entry).to_json(), **entry} for entry in kept]


def select(messages: list[dict[str, Any]], to: str | None, last: int) -> list[dict[str, Any]]:
    if to:
        messages = [m for m in messages if m["to"].lower() == to.lower()]
    return messages[-last:] if last > 0 else messages
