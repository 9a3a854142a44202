"""The `palazzo` command: one subcommand per job, each in its own module."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

COMMANDS = {
    "simulate": "service.commands.simulate",
    "replay": "service.commands.replay",
    "import": "service.commands.import_record",
    "upgrade": "service.commands.upgrade",
    "backup": "service.commands.backup",
    "restore": "service.commands.restore",
    "admin": "service.commands.admin",
    "up": "service.commands.serve",
    "serve": "service.commands.serve",
    "outbox": "service.commands.outbox",
    "mail": "service.commands.mail",
    "worker": "workers.command",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="palazzo", description="Board games played slowly, by mail and on the web.")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {name: importlib.import_module(path) for name, path in COMMANDS.items()}
    for name, module in modules.items():
        module.add_arguments(sub.add_parser(name, help=module.__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    try:
        status = modules[args.command].run(args)
        sys.stdout.flush()
    except BrokenPipeError:  # `palazzo mail list | head -1`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the flush at exit is quiet too
        return 0
    return status


if __name__ == "__main__":
    sys.exit(main())
