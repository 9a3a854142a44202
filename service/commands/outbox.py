"""Show the mail Palazzo sent to the local mailbox: `palazzo mail list` under its older name.

Kept because the README and scripts already say `palazzo outbox`; it takes the same options.
"""
from __future__ import annotations

import argparse

from service.commands import mail


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mail.add_list_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return mail.run_list(args, prog="palazzo outbox")
