"""How large a decision mail is: its text part, its HTML part (and, of that, the principality's table),
and the whole as sent (MIME, text and HTML alternatives), over the decisions of whole 3-5 seat games
played by greedy bots, with each seat's real reply commands and a recap of 30 sentences at most.
Medians and the largest, in kB (1,000 bytes), since mail programs clip long mails (Gmail at 102 kB).

    python benchmarks/mail_size.py [--games 6]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine.bots  # noqa: E402
from engine.core import answers, get_game  # noqa: E402
from engine.pof import GAME  # noqa: E402,F401  (registers the game)
from service import deadlines  # noqa: E402
from service.mail import render  # noqa: E402
from engine.pof.presentation import yard_svg  # noqa: E402
from service import story  # noqa: E402

BASE = "https://palazzo.example"
# the mail's macro that lays out the table
YARD = render._TEMPLATES.get_template("games/princes-of-florence/mail/_yard.html").module


def mails(games: int) -> list[tuple[int, int, int, int]]:
    """(text, html, table, MIME) bytes of the decision mail of every decision in `games` games."""
    game = get_game("princes-of-florence")
    sizes = []
    now = deadlines.parse("2026-12-02T06:00:00Z")
    for number in range(games):
        seats = 3 + number % 3
        options = game.normalize_options({"seats": seats})
        state = game.new_state(options, game.make_setup(options, number))
        rng = random.Random(number)
        table = render.Table("e1f24b4c321c85fa", [f"Player {n + 1}" for n in range(seats)], "palazzo.example",
                             "A game of Princes of Florence")
        told: list[dict] = []
        while game.result(state) is None:
            decision = {**game.pending(state)[0], "deadline_at": "2026-12-02T17:00:00Z", "since": 3}
            seat = decision["seat"]
            view = game.view(state, seat)
            lines = [line["text"] for line in story.lines(GAME, [{"event": e} for e in told[-30:]], table.names, seat)]
            recap = {"lines": lines, "more": max(0, len(told) - 30), "since_decision": True}
            found = answers(game, state, seat)
            reply = {"address": f"play+e1f24b4c321c85fa-{seat}-0-tag@palazzo.example", "commands": found.commands,
                     "notes": found.notes, "picture": found.picture, "guide": ["One command a line."]}
            links = {"seat": f"{BASE}/seat?t={'x' * 120}", "unsubscribe": f"{BASE}/unsubscribe?t={'x' * 120}",
                     "one_click": [{"label": label, "url": f"{BASE}/act?t={'x' * 160}"}
                                   for label in ("Answer one", "Answer two", "Answer three")]}
            to = render.Recipient(f"p{seat}@example.org", f"Player {seat + 1}", seat, "Europe/Rome", 0)
            part = render.decision_part(view, decision, table, to, links, now, game.default_move(state, seat),
                                        reply, recap=recap)
            mail = render.merged([part], to.email, table.domain)
            table_html = YARD.table(yard_svg.grid(view["players"][seat], "Your principality"))
            mime = EmailMessage()
            mime.set_content(mail.text)
            mime.add_alternative(mail.html, subtype="html")
            sizes.append((len(mail.text.encode()), len(mail.html.encode()), len(str(table_html).encode()),
                          len(mime.as_bytes())))
            move = engine.bots.choose_move("greedy", game, state, seat, rng)
            state, events = game.apply(state, seat, move)
            told += [e for e in events if "private_to" not in e]
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    sizes = mails(parser.parse_args().games)
    print(f"decision mails: {len(sizes)} (of {parser.parse_args().games} games)")
    for index, name in enumerate(("text part", "HTML part", "  of it, the principality's table", "as sent (MIME)")):
        values = [size[index] / 1000 for size in sizes]
        print(f"{name:36} median {statistics.median(values):6.1f} kB   largest {max(values):6.1f} kB")


if __name__ == "__main__":
    main()
