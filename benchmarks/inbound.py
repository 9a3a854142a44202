"""How long reading a reply can take: the mail's text and the grammar's parse of it, which a reply job
does before it plays anything, for the worst mails a post may carry, with and without the bounds.

Each case is a parsed-mode post whose ``text`` (or ``html``) is as large as the endpoint keeps of a
field (FIELD_BYTES), or the 1 MB a post under the old 10 MB limit could carry. "unbounded" reads and
parses the whole of it, as the job did before; "bounded" reads what the endpoint now keeps of it, of
which `message.text` takes only MAX_LINES lines and MAX_CHARS characters. The best of --rounds is reported (a shared machine only adds time).

    python benchmarks/inbound.py [--rounds 3]
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.core import Unreadable  # noqa: E402
from engine.pof.grammar import GRAMMAR  # noqa: E402
from service.inbound import endpoint, message  # noqa: E402

SHAPES: dict[str, Callable[[int], str]] = {
    "lines that nearly start like a command": lambda size: "bidd 300\n" * (size // 9),
    "command lines": lambda size: "bid 300\n" * (size // 8),
    "one long command line": lambda size: "build library at " + "C2 " * (size // 3),
    "HTML only, one command a block": lambda size: "<div>bid 300</div>" * (size // 18),
}


def parse(text: str) -> None:
    try:
        GRAMMAR.parse(text)
    except Unreadable:
        pass


def best(rounds: int, work: Callable[[], None]) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| the mail's text | size | unbounded | bounded |\n|---|---|---|---|")
    for name, make in SHAPES.items():
        for size in (endpoint.FIELD_BYTES, 1024 * 1024):
            field, raw = ("html" if name.startswith("HTML") else "text"), make(size)
            read = message.html_text if field == "html" else str
            kept = {field: raw.encode()[:endpoint.FIELD_BYTES]}  # what the endpoint keeps of the field
            unbounded = best(args.rounds, lambda: parse(read(raw)))
            bounded = best(args.rounds, lambda: parse(message.text(kept)))
            print(f"| {name} | {size // 1024} KB | {unbounded:.2f} s | {bounded * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
