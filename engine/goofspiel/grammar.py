"""Goofspiel's moves as lines of plain text, both ways: "bid 7" (or "7", "play 7", "bid seven") read
into a bid, and the lines a seat may send now (`answers`), for replies by mail or chat.

The grammar reads the lines the player wrote: what his mail program added (quotes, "wrote:" headings,
signatures) the inbound layer has stripped before (`service.inbound.quoting`). The first line that
reads as a command is the command; lines above it that read as none are greetings, skipped; lines
below it are prose, not read (one bid a round, so one command a reply). A line that starts like a
command but is not one ("bid seventeen", "bod 7") is refused, not skipped. Lines:
    bid 7 | 7 | play 7 | bid seven | help | leave | leave confirm
"""
from __future__ import annotations

import re
from typing import Any, Callable

from engine.core import LEAVE, LEAVE_CONFIRMED, Answers, Command, Fill, Move, Parsed, State, Unreadable
from engine.goofspiel.words import name
from engine.typed import whole_number

GUIDE = [
    "Reply with your bid as the first line: 'bid 7' (or just '7'). Bids stay hidden until every seat has bid.",
    "Write 'help' for the cards you can bid now.",
]

VERBS = frozenset({"bid", "bids", "play", "plays", "playing", "bidding"})
HELP = frozenset({"help", "?", "commands", "options"})
FILLERS = frozenset("i ill i'll will my the a card please pls now".split())
NUMBERS = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen".split())}
BID_HOW = "write 'bid' and a card of your hand, e.g. 'bid 7'"


def _words(line: str) -> list[str]:
    """A line as lowercase words without punctuation or filler words."""
    words = (word.strip(".,;:!'\"()[]*") for word in re.split(r"[\s,;]+", line.lower()))
    return [word for word in words if word and (word == "?" or word not in FILLERS)]


def _card(word: str) -> int | None:
    return NUMBERS.get(word, whole_number(word, digits=3))


def _read(line: str) -> Command | None:
    """The command of one line; None for a line that is no command (a greeting, prose); Unreadable for
    one that starts like a command and is none."""
    words = _words(line)
    if not words:
        return None
    first, rest = words[0], words[1:]
    if first in HELP:
        return Command(line, None)
    if first == "leave":
        if not rest:
            return Command(line, None, asks=LEAVE)
        if rest in (["confirm"], ["confirmed"]):
            return Command(line, None, asks=LEAVE_CONFIRMED)
        raise Unreadable("bad_command", "write 'leave' to be asked whether you want to leave the game, or "
                                        "'leave confirm' to leave it at once", line)
    if first in VERBS:
        card = _card(rest[0]) if len(rest) == 1 else None
        if card is None:
            raise Unreadable("bad_command", f"bid which card? {BID_HOW}", line)
        return Command(line, {"type": "bid", "card": card})
    if _card(first) is not None:
        if rest:
            raise Unreadable("bad_command", f"'{line}' is more than a card: {BID_HOW}", line)
        return Command(line, {"type": "bid", "card": _card(first)})
    if len(words) == 2 and _card(rest[0]) is not None:
        raise Unreadable("unknown_command", f"'{first}' is not a command: {BID_HOW}", line)
    return None


def parse(lines: list[str]) -> Parsed:
    """The one command of the player's own lines, and the prose after it."""
    commands: list[Command] = []
    prose: list[str] = []
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if commands:
            prose.append(line)
        elif (command := _read(line)) is not None:
            commands.append(command)
    if not commands:
        raise Unreadable("no_command", "I found no bid in your mail: write 'bid 7' (or 'help') as its first line")
    return Parsed(commands, prose)


def resolve(command: Command, legal: list[Move]) -> Move:
    """A bid is written whole: the engine judges it, in its own words (already bid, not in hand)."""
    return command.move


def settled(command: Command, start: State, played: list[Move], state: State, seat: int) -> str | None:
    return None  # every line of Goofspiel is a move


def reveals(before: State, after: State, seat: int) -> bool:
    """Whether the bid ended the round: then every bid is shown, and the next prize."""
    return len(after["history"]) > len(before["history"])


def answers(legal: list[Move], fill: Callable[[Move], list[Fill]], view: dict[str, Any], seat: int,
            full: bool = False) -> Answers:
    """A line per card the seat may bid, and what the prize and the tie rule are."""
    commands = [(f"bid {move['card']}", "") for move in legal]
    notes: list[str] = []
    if legal:
        carried = view["carried"]
        worth = (f" with {' + '.join(map(str, carried))} carried: {view['stake']} points at stake" if carried
                 else f": {view['stake']} points")
        notes.append(f"The prize is the {view['prize']}{worth}. The one highest bid takes it; "
                     f"{name(view['options']['ties'])} when the highest bid is tied.")
        notes.append("Bids stay hidden until every seat has bid; a bare number ('7') or 'play 7' is a bid too.")
    elif view["phase"] == "bidding":
        notes.append("Your bid is in: the others' are awaited.")
    else:
        notes.append("The game is over: nothing waits for you.")
    if full:
        notes.append("To leave the game for good, write 'leave' alone: you are asked to confirm first.")
    return Answers(commands, notes)


class GoofspielGrammar:
    """`engine.core.Grammar` for Goofspiel: this module's functions as the game's `grammar`."""

    guide = GUIDE
    parse = staticmethod(parse)
    resolve = staticmethod(resolve)
    settled = staticmethod(settled)
    reveals = staticmethod(reveals)
    answers = staticmethod(answers)


GRAMMAR = GoofspielGrammar()
