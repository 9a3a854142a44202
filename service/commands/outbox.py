"""Show the mail Palazzo sent to the local mailbox (what `palazzo serve` uses instead of SendGrid).

Finds the store through REDIS_URL, or else the private redis-server of a running `palazzo serve`
(its address is in <var>/redis.url). Sign-in links appear in full, so this is for local use only.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service.commands.serve import URL_FILE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--to", help="only mail to this address (case-insensitive)")
    parser.add_argument("--last", type=int, default=0, metavar="N", help="only the newest N messages")
    parser.add_argument("--var", default="var", help="the --var of the running `palazzo serve` (default ./var)")


def run(args: argparse.Namespace) -> int:
    from service import mailbox
    from service.store import Store, connect

    url = os.environ.get("REDIS_URL")
    url_file = Path(args.var) / URL_FILE
    if not url:
        if not url_file.exists():
            print(f"palazzo outbox: no REDIS_URL and no {url_file}: is `palazzo serve` running?", file=sys.stderr)
            return 2
        url = url_file.read_text().strip()
    messages = mailbox.outbox(Store(connect(url)))
    if args.to:
        messages = [m for m in messages if m["to"].lower() == args.to.lower()]
    for message in messages[-args.last:] if args.last else messages:
        print(f"To: {message['to']}\nSubject: {message['subject']}\n\n{message['text']}\n{'-' * 72}")
    return 0
