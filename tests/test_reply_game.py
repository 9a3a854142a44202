"""A whole game in which two players move only by replying to the mails they find in the outbox, and
three bots play the other seats. Each reply is written from the mail it answers: one of the commands
that mail lists (sometimes two lines for one turn, sometimes "help" first), in the shapes mail programs
give a reply (top-posted above the quoted mail, bottom-posted below it, HTML only, with a signature).
Deadlines are an hour, so every move of theirs comes from a reply; every reply must be played."""
from __future__ import annotations

import random
import time

from tests.test_inbound import (ANSWER_KINDS, DOMAIN, create, game, listed, live, mail_workers,  # noqa: F401 (fixtures)
                                moves_by, outbox, parse_fields, post)

HUMANS = {"ann@example.org": 0, "bea@example.org": 1}
DECISIONS = ("choose", "your_turn", "your_bid", "reply_help")


def body(mail: dict, reply: str, style: str) -> dict[str, str | None]:
    """The text (or HTML) of a reply in one of the shapes mail programs give it."""
    quoted = "\n".join(f"> {line}" for line in mail["text"].splitlines()[:12])
    heading = f"On Tue, 2 Dec 2025 at 18:00, Palazzo <palazzo@{DOMAIN}> wrote:"
    if style == "top":
        return {"text": f"{reply}\n\nCheers\n\n{heading}\n{quoted}\n"}
    if style == "bottom":
        return {"text": f"{heading}\n{quoted}\n\n{reply}\n\n-- \nSent from a phone\n"}
    if style == "html":
        lines = "".join(f"<div>{line}</div>" for line in reply.split("\n"))
        return {"text": None, "html": f"<html><body>{lines}<br><div class=\"gmail_quote\">{heading}"
                                      f"<blockquote>{mail['html']}</blockquote></div></body></html>"}
    return {"text": "  " + reply.replace("\n", "  \n  ").upper() + "  "}


class Chooser:
    """Picks each reply among the commands its mail lists: mostly a work when one may be published, else
    mostly a building (so that the courts grow and works and payouts come), else any; "help" now and then (and at the first action turn), and two
    lines for one turn when the first action leaves the turn open (always the first time)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.helped = self.joined = 0

    def reply(self, mail: dict) -> str:
        commands = listed(mail)
        assert commands, mail["text"]
        preferred = [c for c in commands if c.startswith("publish ")] or [c for c in commands if c.startswith("build ")]
        command = self.rng.choice(preferred if preferred and self.rng.random() < 0.8 else commands)
        turn = mail["kind"] == "your_turn" and "action turn" in mail["text"]
        if mail["kind"] != "reply_help" and ((turn and not self.helped) or self.rng.random() < 0.05):
            self.helped += 1
            return "help"
        first_action = "two of two actions left" in mail["text"]
        if first_action and command.startswith(("buy freedom", "build")) and (not self.joined or self.rng.random() < 0.5):
            self.joined += 1
            return f"{command}\nend"
        return command


def test_two_players_play_a_whole_game_only_by_replying_to_their_mail(live, mail_workers, monkeypatch):
    from service import ratelimit
    from service.inbound import receiving
    for limit in ("SEAT_LIMIT", "SENDER_LIMIT"):  # these players answer in a blink, far beyond a person's hourly share
        monkeypatch.setattr(receiving, limit, ratelimit.Limit(10_000, 3600))
    seats = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bea", "email": "bea@example.org"},
             {"name": "Cy", "bot": "random"}, {"name": "Di", "bot": "greedy"}, {"name": "Ed", "bot": "random"}]
    game_id = create(live, seats)
    mail_workers(2)
    rng, chooser = random.Random(10), Chooser(11)
    answered: set[str] = set()
    sent = 0
    deadline = time.monotonic() + 420
    while game(live, game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the game did not reach its end"
        for mail in outbox(live.app, kinds=DECISIONS):
            message_id = mail["headers"]["Message-ID"]
            if mail["to"] not in HUMANS or message_id in answered or mail["game"] != game_id:
                continue
            answered.add(message_id)
            sender = mail["to"]
            reply = chooser.reply(mail)
            shape = body(mail, reply, rng.choice(["top", "bottom", "html", "plain"]))
            fields = parse_fields(sender, mail["headers"]["Reply-To"], shape["text"], html=shape.get("html"),
                                  answering=message_id, subject=f"Re: {mail['subject']}", from_name=sender[:3].title())
            assert post(live, fields)[0] == 200
            sent += 1
        time.sleep(0.05)
    answers = [m for m in outbox(live.app, kinds=ANSWER_KINDS) if m["to"] in HUMANS]
    assert sent >= 40 and answers
    assert not [m["text"] for m in answers if m["kind"] not in ("reply_done", "reply_help")], "every reply was played"
    for seat in HUMANS.values():
        moves = moves_by(live, game_id, seat)
        assert moves and not [m for m in moves if m.get("timeout") or m.get("bot")], "every move came from a reply"
    played = {m["move"]["type"] for seat in HUMANS.values() for m in moves_by(live, game_id, seat)}
    assert {"keep_professions", "open_auction", "bid", "step_out", "build", "publish", "split_payout"} <= played, played
    assert chooser.helped and chooser.joined and any(m["kind"] == "reply_help" for m in answers)
    assert game(live, game_id)["result"] is not None
