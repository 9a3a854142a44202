"""Table talk in a reply by mail, read by the service beside the game's commands (the game's grammar
never sees these lines, so any game's replies can talk):

    say Good luck, everyone          -> to the whole table
    tell Bea I will bid on the lake  -> to Bea alone (a seat's name as the table shows it, any case)
    tell seat 2: shall we?           -> to seat 2 alone (seats counted from 1)

Each such line is one message: the rest of the line after the word (and a name), a colon or comma
after it allowed. The lines are those the player wrote (`service.inbound.quoting` has taken off the
quoted mail and his signature), wherever they stand among his commands; the other lines are left for
the game's grammar. A reply to a message mail that holds no such line, and no line the grammar reads
as a command, is a message as a whole (`whole`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

SAY = re.compile(r"^say(?:\s*:\s*|\s+)(.*)$", re.IGNORECASE | re.DOTALL)
TELL = re.compile(r"^tell(?:\s*:\s*|\s+)(.*)$", re.IGNORECASE | re.DOTALL)
SEAT = re.compile(r"^seat\s*(\d{1,2})(?![\w])[\s:,]*(.*)$", re.IGNORECASE | re.DOTALL)
AFTER_NAME = re.compile(r"^[\s:,]+")


@dataclass(frozen=True)
class Said:
    """One message a reply asks for: its line, the seat it goes to (None: the table), its text."""

    line: str
    to: int | None
    text: str


@dataclass(frozen=True)
class Talk:
    """What a reply's talk lines ask for, the lines refused (with why), and the other lines, as text
    for the game's grammar."""

    said: list[Said] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    rest: str = ""

    @property
    def any(self) -> bool:
        return bool(self.said or self.refused)


def read(lines: list[str], names: list[str | None]) -> Talk:
    """The `say` and `tell` lines of a reply among the lines its writer wrote; `names` are the seats'
    names, by seat (None for a seat without one)."""
    said: list[Said] = []
    refused: list[tuple[str, str]] = []
    rest: list[str] = []
    for line in lines:
        say, tell = SAY.match(line), TELL.match(line)
        if say:
            _take(said, refused, line, None, say[1].strip())
        elif tell:
            to, words, why = _addressee(tell[1].strip(), names)
            if why:
                refused.append((line, why))
            else:
                _take(said, refused, line, to, words)
        else:
            rest.append(line)
    return Talk(said, refused, "\n".join(rest))


def _take(said: list[Said], refused: list[tuple[str, str]], line: str, to: int | None, words: str) -> None:
    if words:
        said.append(Said(line, to, words))
    else:
        refused.append((line, "there is nothing to say after it: write the message on the same line"))


def _addressee(words: str, names: list[str | None]) -> tuple[int | None, str, str | None]:
    """(seat, the message, None) for "seat 2 ..." or "<name> ...", else (None, "", why not)."""
    numbered = SEAT.match(words)
    if numbered:
        number = int(numbered[1])
        if not 1 <= number <= len(names):
            return None, "", f"there is no seat {number}: seats go from 1 to {len(names)}"
        return number - 1, numbered[2].strip(), None
    lowered = words.lower()
    fitting = [(len(name), seat) for seat, name in enumerate(names)
               if name and lowered.startswith(name.lower())
               and (len(words) == len(name) or not words[len(name)].isalnum())]
    if not fitting:
        return None, "", ("no player at this table is called so: write 'tell', a player's name as the table "
                          "shows it and the message, or 'tell seat 2' and the message")
    longest = max(length for length, _ in fitting)
    seats = [seat for length, seat in fitting if length == longest]
    if len(seats) > 1:
        return None, "", (f"{len(seats)} players are called {words[:longest]}: write 'tell seat' and the "
                          "number of the one you mean")
    return seats[0], AFTER_NAME.sub("", words[longest:]).strip(), None


def whole(lines: list[str]) -> str:
    """A reply as one message: every line its writer wrote (not the quote, not the signature)."""
    return "\n".join(lines).strip()
