"""Princes of Florence moves as lines of plain text: what a player writes in a mail (or a chat) read
into the engine's moves. `engine.pof.writing` is the other direction, and `GRAMMAR` (the game's
`grammar`, an `engine.core.Grammar`) joins both.

Pure and game-specific, with no Flask, Redis or mail in it, so that any front end can use it through
`parse` and `engine.core.read_commands` (text -> commands -> moves, checked on the state) and
`engine.core.answers` (the lines a seat may send now). `parse` reads without the state; `resolve` fills in what a line left to the
seat's options ("choose painter": the other cards go back in the order shown) and leaves a fully
written move to the engine, which says best why it is refused.

The grammar (case-insensitive, the README has the table):
    keep painter sculptor architect | open juggler | pass | bid 500 | bid | out
    place at B2 C2 B3 | discard | choose painter [return poet doctor] | entice painter | keep enticement
    buy freedom travel | buy profession | buy bonus card | build library at C2 D2 E2 C3 D3
    publish painter [with bonus B07 B12 | without bonus] | prestige 2 | end | sell 2
    orders bid up to 600 for juggler and 400 for lake, step out otherwise | orders cancel | help
    leave | leave confirm (no move: the seat's player leaves the game, after confirming)
A name is its id or its name in `engine.pof.words` ("bell maker", "+2 per woods", "Most woods") in any
case, with spaces, hyphens or underscores alike, or a prefix of it that fits one id only; bonus cards
also go by code, B01-B20 in data.json's order; lines name things as `writing.card_word` does.
Squares read like a chess board seen from above: columns A-G from the left, rows 1-7 from the top,
so C2 is [row 1, col 2]; the API's `[1, 2]` works too. A piece is given by all its squares, or by the
top left corner of the box around it, with `rotate 0-3` clockwise quarter turns after an optional
`mirror` (left to right) of its shape as data.json draws it; a corner alone is enough when one
placement fits there.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

from engine.core import LEAVE, LEAVE_CONFIRMED, Command, Move, Parsed, State, Unreadable
from engine.pof import writing
from engine.pof.data import (AUCTION_ITEMS, BONUS_CARDS, BUILDINGS, FREEDOMS, GRID_COLS, GRID_ROWS, LANDSCAPES,
                             PRESTIGE_CARDS, PROFESSIONS)
from engine.pof.table import decision_of
from engine.pof.view import COLUMNS, square_name
from engine.pof.words import name, spoken
from engine.pof.writing import CODES, card_word, corner_of, turned, turned_or_none, write
from engine.pof.yard import fits
from engine.typed import whole_number

GUIDE = [
    "Reply to this mail with a command as its first line; several lines, one command each, make one turn. "
    "Quoted text, greetings and your signature are left alone.",
    "Names may be shortened while they fit one thing only; bonus cards also go by their codes (B01-B20).",
    f"Squares: columns {COLUMNS[0]}-{COLUMNS[-1]} from the left, rows 1-{GRID_ROWS} from the top "
    "(A1 is the top left corner, [row 0, col 0] in the API).",
    "Write 'help' for every command you can send now, 'orders bid up to 600 for juggler' for standing orders.",
]

# ---------------------------------------------------------------------------------------------------
# The command lines among those a player wrote (the inbound layer keeps them): greetings above them are
# skipped, prose after them (a sign-off) is not read, and a typo of a command is refused, not skipped.

GREETINGS = ("hi", "hello", "hey", "dear", "good morning", "good afternoon", "good evening", "greetings",
             "hallo", "liebe", "lieber", "guten morgen", "guten tag", "guten abend", "moin", "servus", "grüß gott",
             "hoi", "dag", "beste", "goedemorgen", "goedemiddag", "goedenavond",
             "hej", "hejsan", "hallå", "god morgon", "god dag",
             "cześć", "dzień dobry", "witam", "witaj",
             "salut", "bonjour", "bonsoir", "coucou", "cher", "chère",
             "hola", "buenos días", "buenas tardes", "buenas noches", "buenas", "querido", "querida", "estimado",
             "ciao", "buongiorno", "buonasera", "salve", "caro", "cara",
             "olá", "ola", "oi", "bom dia", "boa tarde", "boa noite", "prezado", "prezada")
GREETING = re.compile(r"^(%s)(?!\w)" % "|".join(sorted(GREETINGS, key=len, reverse=True)), re.IGNORECASE)
GREETED = 3  # words after a greeting that may name whom it greets ("Hallo zusammen", "Hi Palazzo team")


def _command_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    """The command lines (the first non-empty line, and the lines after it that start like a
    command) and the prose after them (a sign-off), which is not read; a greeting above is skipped,
    and what follows it on its line ("Guten Morgen, bid 500") is read as a line of its own."""
    commands: list[str] = []
    prose: list[str] = []
    for line in lines:
        if not line:
            continue
        if prose or (commands and not _looks_like_command(line)):
            prose.append(line)
            continue
        if not commands and not _looks_like_command(line):
            rest = _after_greeting(line)
            if rest == "":
                continue
            line = rest or line
        commands.append(line)
    return commands, prose


def _after_greeting(line: str) -> str | None:
    """What follows a greeting on its line ("" for nothing), or None when the line is no greeting: a
    greeting may name whom it greets in a few words, but none of them may start a command."""
    match = GREETING.match(line)
    if match is None:
        return None
    parts = re.split(r"([,!:;.])", line[match.end():], maxsplit=1)
    head, mark, rest = (parts + ["", ""])[:3]
    named = _words(head)
    if len(named) > GREETED or any(_near_verb(word) for word in named):
        return None
    return rest.strip() if mark else ""


def _looks_like_command(line: str) -> bool:
    """Starts with a command's word, or nearly (a typo is a command to refuse, not prose to skip)."""
    words = _words(line)
    if not words:
        return False
    first = words[0]
    if _amount(first) is not None and len(words) > 1 and words[1] in PRESTIGE_WORDS:
        return True
    return _near_verb(first) is not None


# The verbs of the command table (README) that a typo is measured against; the other spellings the
# grammar reads ("cash", "pick", "skip", ...) are read when written exactly, but a word near them is
# too often a name or a word of a sign-off ("Ash", "Nick") to be refused as a typo.
TYPO_VERBS = ("keep", "open", "auction", "pass", "bid", "out", "step", "fold", "place", "discard", "throw",
              "choose", "entice", "buy", "build", "publish", "prestige", "florins", "take", "end", "sell",
              "orders", "help", "leave")


def _near_verb(word: str) -> str | None:
    """The verb a word is, or is a likely typo of: two neighbouring letters swapped ("byu"), or for a
    verb of four letters one missing or extra letter ("kep"), of five or more any one ("biuld",
    "publsh"). Further than that, or one wrong letter of a short verb ("Nick", "well"), it is prose."""
    if word in VERBS:
        return word
    for verb in TYPO_VERBS:
        if abs(len(verb) - len(word)) > 1 or not word.isalpha():
            continue
        distance, swapped = _edits(word, verb)
        if distance == 1 and (swapped or len(verb) >= 5 or (len(verb) == 4 and len(word) != len(verb))):
            return verb
    return None


def _edits(a: str, b: str) -> tuple[int, bool]:
    """The optimal string alignment distance of two words (a swap of neighbours counts as one edit),
    and whether a one-edit answer is that swap."""
    rows = [[max(i, j) if min(i, j) == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] and a[i - 1] != b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    distance = rows[len(a)][len(b)]
    swapped = distance == 1 and len(a) == len(b) and sorted(a) == sorted(b)
    return distance, swapped


# ---------------------------------------------------------------------------------------------------
# Words, numbers, squares and names.

PAIR = re.compile(r"[\[(]\s*(\d+)\s*[,;]\s*(\d+)\s*[\])]")  # the API's [row, col]
THOUSANDS = re.compile(r"(?<=\d)[,.'](?=\d{3}\b)")  # 1,000 or 1.000
ASIDE = re.compile(r"\((?:[^()]|\([^()]*\))*\)")  # a note copied from the mail with its command, maybe (nested)
FILLERS = frozenset("the a an my your please pls i ill id will want would like to at on in into of for and "
                    "then it by work now".split())
CURRENCY = frozenset({"florins", "florin", "fl"})
PRESTIGE_WORDS = frozenset({"prestige", "pp", "points", "point"})
SQUARE = re.compile(r"^([a-z])(\d{1,2})$")
API_SQUARE = re.compile(r"^@(\d+)\.(\d+)$")


def _words(line: str) -> list[str]:
    """A line as lowercase words, without punctuation, notes in brackets or filler words; an API pair
    [row, col] becomes one word that `_square` reads."""
    text = PAIR.sub(lambda m: f" @{m[1]}.{m[2]} ", line.lower().replace("’", "'"))
    text = ASIDE.sub(" ", THOUSANDS.sub("", text))
    words = (word.strip(".!?:'\"[]()*") for word in re.split(r"[\s,;/|]+", text))
    return [word for word in words if word and word not in FILLERS]


def _amount(word: str | None) -> int | None:
    return whole_number(word, digits=8)


def _square(word: str, line: str) -> tuple[int, int] | None:
    """The square a word names (None: it names none); one off the yard is refused."""
    if match := API_SQUARE.match(word):
        row, col, written = int(match[1]), int(match[2]), f"[{match[1]}, {match[2]}]"
    elif match := SQUARE.match(word):
        row, col, written = int(match[2]) - 1, ord(match[1]) - ord("a"), word.upper()
    else:
        return None
    if not (0 <= row < GRID_ROWS and 0 <= col < GRID_COLS):
        raise Unreadable("bad_square", f"{written} is not on the yard: columns {COLUMNS[0]}-{COLUMNS[-1]}, rows "
                                       f"1-{GRID_ROWS} (or [row, col] from [0, 0] to [{GRID_ROWS - 1}, {GRID_COLS - 1}])",
                         line)
    return row, col


def _key(word: str) -> str:
    return re.sub(r"[^a-z0-9]", "", word.lower())


class Names:
    """The ids of one kind of thing, found from what a player writes: the id or its name (the words
    of `engine.pof.words`) in any spelling, an alias, either without its filler words ("per card
    hand"), a plural, or a prefix fitting one id."""

    def __init__(self, what: str, ids: Iterable[str], aliases: dict[str, str] | None = None, *, listed: bool = True):
        self.what = what
        self.ids = list(ids)
        self.listed = listed  # whether a refusal lists every id (not for all 55 cards)
        self.keys: dict[str, str] = {}
        for thing in self.ids:
            self.keys[_key(thing)] = thing
        for thing in self.ids:
            for spelling in (thing, name(thing)):
                parts = re.split(r"[_\s,]+", spelling.lower())
                for key in (_key(spelling), _key("".join(part for part in parts if part not in FILLERS))):
                    self.keys.setdefault(key, thing)
        self.keys.update({_key(alias): thing for alias, thing in (aliases or {}).items()})

    def find(self, words: list[str], at: int, line: str) -> tuple[str, int]:
        """The name starting at words[at] and the index after it. A name of several words ("bell maker")
        is joined; a shortened one of several words ("most woo") is tried when its first word fits many."""
        for span in range(min(6, len(words) - at), 1, -1):
            joined = _key("".join(words[at:at + span]))
            found = self.keys.get(joined) or (self.keys.get(joined[:-1]) if joined.endswith("s") else None)
            if found:
                return found, at + span
        try:
            return self.one(words[at], line), at + 1
        except Unreadable as error:
            if error.code != "ambiguous_name":
                raise
            for span in range(2, min(6, len(words) - at) + 1):
                matches = self.starting(_key("".join(words[at:at + span])))
                if len(matches) == 1:
                    return matches[0], at + span
            raise

    def starting(self, prefix: str) -> list[str]:
        """The ids with a spelling that starts with `prefix`, in their order."""
        return sorted({thing for key, thing in self.keys.items() if key.startswith(prefix)}, key=self.ids.index)

    def one(self, word: str, line: str) -> str:
        key = _key(word)
        for attempt in (key, key[:-1] if key.endswith("s") else ""):
            if not attempt:
                continue
            if attempt in self.keys:
                return self.keys[attempt]
            matches = self.starting(attempt)
            if len(matches) == 1:
                return matches[0]
            if matches:
                raise Unreadable("ambiguous_name", f"'{word}' could be {' or '.join(map(spoken, matches))}: "
                                                   "write more of it", line)
        known = f"; {self.what}s: {', '.join(map(spoken, self.ids))}" if self.listed else ""
        raise Unreadable("unknown_name", f"'{word}' is not a {self.what}{known}", line)

    def all(self, words: list[str], line: str) -> list[str]:
        found, at = [], 0
        while at < len(words):
            thing, at = self.find(words, at, line)
            found.append(thing)
        return found


_CODE_ALIASES = {alias: card for card, code in CODES.items() for alias in (code, f"b{int(code[1:])}")}
PROFESSION_NAMES = Names("profession", PROFESSIONS)
ITEM_NAMES = Names("auction item", AUCTION_ITEMS, {"enticement card": "enticement"})
FREEDOM_NAMES = Names("freedom", FREEDOMS)
BUILDING_NAMES = Names("building", BUILDINGS)
LANDSCAPE_NAMES = Names("landscape", LANDSCAPES, {"forest": "woods", "wood": "woods"})
BONUS_NAMES = Names("bonus card", BONUS_CARDS, _CODE_ALIASES, listed=False)
CARD_NAMES = Names("card", [*PROFESSIONS, *BONUS_CARDS, *PRESTIGE_CARDS], _CODE_ALIASES, listed=False)


def _one_name(names: Names, words: list[str], line: str) -> str:
    if not words:
        raise Unreadable("bad_command", f"name the {names.what}", line)
    thing, at = names.find(words, 0, line)
    _nothing_after(words[at:], line)
    return thing


def _nothing_after(words: list[str], line: str, allowed: Iterable[str] = ()) -> None:
    extra = [word for word in words if word not in set(allowed)]
    if extra:
        raise Unreadable("bad_command", f"I do not know what '{' '.join(extra)}' means here", line)


# ---------------------------------------------------------------------------------------------------
# One line -> one command.

def _command(line: str) -> Command:
    words = _words(line)
    if not words:
        raise Unreadable("unknown_command", "there is no command in this line", line)
    verb, rest = words[0], words[1:]
    if _amount(verb) is not None and rest and rest[0] in PRESTIGE_WORDS:  # "2 prestige"
        return _split([verb, *rest[1:]], line)
    handler = VERBS.get(verb)
    if handler is None:
        close = _near_verb(verb)
        hint = f" Did you mean '{close}'?" if close else ""
        raise Unreadable("unknown_command", f"'{verb}' is not a command.{hint} Write 'help' for the commands "
                                           "you can send now.", line)
    return handler(rest, line)


def _simple(move_type: str, allowed: Iterable[str] = ()) -> Callable[[list[str], str], Command]:
    """A command of one move without fields, whose verb may be followed by the `allowed` words."""
    def read(words: list[str], line: str) -> Command:
        _nothing_after(words, line, allowed)
        return Command(line, {"type": move_type})
    return read


def _help(words: list[str], line: str) -> Command:
    return Command(line, None)


def _leave(words: list[str], line: str) -> Command:
    """"leave" asks to leave the game (the answer asks to confirm), "leave confirm" leaves it."""
    said = [word for word in words if word not in ("game", "this")]
    if not said:
        return Command(line, None, asks=LEAVE)
    if said in (["confirm"], ["confirmed"]):
        return Command(line, None, asks=LEAVE_CONFIRMED)
    raise Unreadable("bad_command", "write 'leave' to be asked whether you want to leave the game, or "
                                    "'leave confirm' to leave it at once", line)


def _keep(words: list[str], line: str) -> Command:
    """"keep painter sculptor architect" keeps professions; "keep", "keep enticement" the card."""
    card_words = {"enticement", "enticements", "card", "later"}
    if not words or set(words) <= card_words:
        return Command(line, {"type": "keep_enticement"})
    return Command(line, {"type": "keep_professions", "professions": PROFESSION_NAMES.all(words, line)})


def _open(words: list[str], line: str) -> Command:
    return Command(line, {"type": "open_auction", "item": _one_name(ITEM_NAMES, words, line)})


def _pass(words: list[str], line: str) -> Command:
    """"pass": as chooser, buy nothing (auction_pass); while bidding, step out."""
    _nothing_after(words, line, {"auction", "round"})
    return Command(line, {"type": "pass_auction"}, {"pass": True})


def _bid(words: list[str], line: str) -> Command:
    """"bid 500", or "bid" for the smallest raise."""
    if not words:
        return Command(line, {"type": "bid", "amount": None}, {"amount": "the smallest raise"})
    amount = _amount(words[0])
    if amount is None:
        raise Unreadable("bad_command", f"bid how much? '{words[0]}' is not a number of florins", line)
    _nothing_after(words[1:], line, CURRENCY)
    return Command(line, {"type": "bid", "amount": amount})


def _step(words: list[str], line: str) -> Command:
    if not words or words[0] != "out":
        raise Unreadable("bad_command", "write 'step out' (or 'out')", line)
    return _simple("step_out")(words[1:], line)


def _choose(words: list[str], line: str) -> Command:
    """"choose painter" (the others go back in the order shown) or "choose painter return poet doctor"."""
    if not words:
        raise Unreadable("bad_command", "choose which card?", line)
    card, at = CARD_NAMES.find(words, 0, line)
    rest = words[at:]
    if not rest:
        return Command(line, {"type": "choose_card", "card": card, "return_order": None},
                       {"return_order": "as shown"})
    if rest[0] not in ("return", "returning", "back", "under"):
        raise Unreadable("bad_command", f"after the card, write 'return' and the order of the others, not "
                                        f"'{' '.join(rest)}'", line)
    order = [] if rest[1:] in (["none"], ["nothing"]) else CARD_NAMES.all(rest[1:], line)
    return Command(line, {"type": "choose_card", "card": card, "return_order": order})


def _take(words: list[str], line: str) -> Command:
    """"take 2 prestige" splits a payout; "take painter" chooses a card."""
    if words and _amount(words[0]) is not None:
        return _split(words, line)
    return _choose(words, line)


def _entice(words: list[str], line: str) -> Command:
    return Command(line, {"type": "entice", "profession": _one_name(PROFESSION_NAMES, words, line)})


def _buy(words: list[str], line: str) -> Command:
    """"buy freedom travel" (or "buy travel"), "buy profession", "buy bonus card"."""
    if not words:
        raise Unreadable("bad_command", "buy what? 'buy freedom travel', 'buy profession' or 'buy bonus card'", line)
    first, rest = words[0], words[1:]
    if first in ("freedom", "freedoms"):
        return Command(line, {"type": "buy_freedom", "freedom": _one_name(FREEDOM_NAMES, rest, line)})
    card = {"card", "cards"}
    if first in ("profession", "professions", "person", "persons", "people"):
        return _simple("buy_profession", card)(rest, line)
    if first in ("bonus", "bonuses", "bonuscard", "bonuscards"):
        return _simple("buy_bonus_card", card)(rest, line)
    try:
        freedom = _one_name(FREEDOM_NAMES, words, line)
    except Unreadable:
        raise Unreadable("bad_command", f"buy what? '{' '.join(words)}': write 'buy freedom travel', "
                                        "'buy profession' or 'buy bonus card'", line) from None
    return Command(line, {"type": "buy_freedom", "freedom": freedom})


def _build(words: list[str], line: str) -> Command:
    if not words or _square(words[0], line) is not None:
        raise Unreadable("bad_command", "build which building? e.g. 'build tower at A1 B1 C1'", line)
    building, at = BUILDING_NAMES.find(words, 0, line)
    return _placing({"type": "build", "building": building}, building, words[at:], line)


def _place(words: list[str], line: str) -> Command:
    """"place at B2 C2 B3" (the landscape just bought; naming it is allowed: "place park at B2 C2 B3")."""
    kind = None
    if words and _square(words[0], line) is None and words[0] not in TURN_WORDS | MIRROR_WORDS:
        if _key(words[0]) in BUILDING_NAMES.keys:
            raise Unreadable("bad_command", "buildings are built: 'build tower at A1 B1 C1'", line)
        kind, at = LANDSCAPE_NAMES.find(words, 0, line)
        words = words[at:]
    return _placing({"type": "place_landscape"}, kind, words, line)


TURN_WORDS = frozenset({"rotate", "rotated", "turn", "turned", "rotation"})
MIRROR_WORDS = frozenset({"mirror", "mirrored", "flip", "flipped"})


def _placing(move: Move, kind: str | None, words: list[str], line: str) -> Command:
    """A piece's squares (all of them), or its corner with an optional turn (see the module docstring)."""
    squares: list[tuple[int, int]] = []
    turns, mirror = None, False
    at = 0
    while at < len(words):
        word = words[at]
        if word in TURN_WORDS:
            at += 1
            turns = _turns(words[at] if at < len(words) else None, line)
        elif word in MIRROR_WORDS:
            mirror = True
        elif (square := _square(word, line)) is not None:
            squares.append(square)
        else:
            raise Unreadable("bad_command", f"'{word}' is not a square (A1 to G7, or [row, col])", line)
        at += 1
    if not squares:
        raise Unreadable("bad_command", "say where: all its squares (B2 C2 B3) or its top left corner (B2)", line)
    if len(squares) > 1:
        if turns is not None or mirror:
            raise Unreadable("bad_command", "give all its squares, or its top left corner with rotate", line)
        return Command(line, {**move, "squares": sorted([list(square) for square in squares])})
    if kind is not None and (turns is not None or mirror):
        return Command(line, {**move, "squares": turned(kind, squares[0], turns or 0, mirror, line)})
    wanted = {"corner": squares[0], "turn": None if turns is None and not mirror else (turns or 0, mirror), "kind": kind}
    return Command(line, {**move, "squares": None}, {"squares": wanted})


def _turns(word: str | None, line: str) -> int:
    quarter = {"0": 0, "1": 1, "2": 2, "3": 3, "90": 1, "180": 2, "270": 3}
    if word not in quarter:
        raise Unreadable("bad_command", "rotate by 0, 1, 2 or 3 quarter turns clockwise (or 90, 180, 270)", line)
    return quarter[word]


def _publish(words: list[str], line: str) -> Command:
    """"publish painter" (as listed), "publish painter with bonus B07 B12", "publish painter without bonus"."""
    if not words:
        raise Unreadable("bad_command", "publish with which profession?", line)
    profession, at = PROFESSION_NAMES.find(words, 0, line)
    rest = words[at:]
    if not rest:
        return Command(line, {"type": "publish", "profession": profession, "bonus_cards": None},
                       {"bonus_cards": "as listed"})
    card_words = {"bonus", "bonuses", "card", "cards", "bonuscard", "bonuscards"}
    if rest[0] in ("without", "alone") or rest[:2] in (["with", "no"], ["with", "nothing"]):
        _nothing_after(rest, line, card_words | {"with", "without", "no", "nothing", "alone"})
        return Command(line, {"type": "publish", "profession": profession, "bonus_cards": []})
    if rest[0] == "with":
        rest = rest[1:]
    while rest and rest[0] in card_words:
        rest = rest[1:]
    if not rest:
        raise Unreadable("bad_command", "with which bonus cards? e.g. 'publish painter with bonus B07'", line)
    return Command(line, {"type": "publish", "profession": profession, "bonus_cards": BONUS_NAMES.all(rest, line)})


def _split(words: list[str], line: str) -> Command:
    """"prestige 2", "take 2 prestige", "2 prestige", "split 2": prestige points from a payout."""
    numbers = [word for word in words if word not in PRESTIGE_WORDS]
    if numbers in (["none"], ["no"], []) and words:
        numbers = ["0"]
    points = _amount(numbers[0]) if len(numbers) == 1 else None
    if points is None:
        raise Unreadable("bad_command", "how many prestige points? e.g. 'prestige 2' (0 keeps all florins)", line)
    return Command(line, {"type": "split_payout", "prestige": points})


def _florins(words: list[str], line: str) -> Command:
    _nothing_after(words, line, {"all", "only", "just", "cash"})
    return Command(line, {"type": "split_payout", "prestige": 0})


def _sell(words: list[str], line: str) -> Command:
    numbers = [word for word in words if word not in PRESTIGE_WORDS]
    points = _amount(numbers[0]) if len(numbers) == 1 else None
    if points is None:
        raise Unreadable("bad_command", "sell how many prestige points? e.g. 'sell 2'", line)
    return Command(line, {"type": "sell_prestige", "points": points})


ORDER_WORDS = frozenset({"bid", "up", "upto", "max", "maximum", "most", "limit", "until", "till", *CURRENCY})
OTHERWISE = re.compile(r"\b(otherwise|unless|else)\b")
OTHERWISE_WORDS = frozenset({"step", "out", "otherwise", "unless", "else", "chooser", "am", "every", "other",
                             "auction", "auctions"})  # "step out of every other auction unless I am the chooser"


def _orders(words: list[str], line: str) -> Command:
    """"orders bid up to 600 for juggler and 400 for lake, step out otherwise"; "orders cancel"."""
    if set(words) & {"cancel", "none", "clear", "off", "nothing", "delete", "stop"} and len(words) == 1:
        return Command(line, {"type": "set_orders", "limits": {}, "step_out_otherwise": False})
    otherwise = bool(OTHERWISE.search(" ".join(words)))
    limits: dict[str, int] = {}
    amount: int | None = None
    item: str | None = None
    at = 0
    while at < len(words):
        word = words[at]
        if word in ORDER_WORDS or (otherwise and word in OTHERWISE_WORDS):
            at += 1
            continue
        if (number := _amount(word)) is not None:
            amount, at = number, at + 1
        else:
            item, at = ITEM_NAMES.find(words, at, line)
        if amount is not None and item is not None:
            limits[item], amount, item = amount, None, None
    if amount is not None or item is not None or not (limits or otherwise):
        raise Unreadable("bad_command", "write 'orders bid up to 600 for juggler', add 'step out otherwise', "
                                        "or 'orders cancel'", line)
    return Command(line, {"type": "set_orders", "limits": limits, "step_out_otherwise": otherwise})


def _standing(words: list[str], line: str) -> Command:
    if not words or words[0] not in ("orders", "order"):
        raise Unreadable("bad_command", "write 'orders bid up to 600 for juggler'", line)
    return _orders(words[1:], line)


VERBS: dict[str, Callable[[list[str], str], Command]] = {
    "help": _help, "commands": _help, "options": _help,
    "leave": _leave,
    "keep": _keep,
    "open": _open, "auction": _open, "offer": _open,
    "pass": _pass,
    "bid": _bid, "raise": _bid,
    "out": _simple("step_out"), "step": _step, "stepout": _simple("step_out"), "fold": _simple("step_out"),
    "drop": _simple("step_out", {"out"}),
    "place": _place, "put": _place,
    "discard": _simple("discard_landscape", {"landscape", "away"}),
    "throw": _simple("discard_landscape", {"away", "landscape"}),
    "choose": _choose, "pick": _choose, "take": _take,
    "entice": _entice,
    "buy": _buy,
    "build": _build,
    "publish": _publish,
    "prestige": _split, "split": _split, "florins": _florins, "cash": _florins,
    "end": _simple("end_turn", {"turn"}), "skip": _simple("end_turn", {"turn"}),
    "sell": _sell,
    "orders": _orders, "order": _orders, "standing": _standing,
}


# ---------------------------------------------------------------------------------------------------
# Lines checked against the seat's options.

DOING = {"bid": "bid", "choose_card": "choose a card", "publish": "publish", "build": "build",
         "place_landscape": "place a landscape"}  # the moves a command may leave a field of to the options


def _resolve_placement(command: Command, same: list[Move]) -> Move:
    """A piece given by its corner (and maybe a turn): the one legal placement that fits there."""
    wanted = command.loose["squares"]
    corner, turn = wanted["corner"], wanted["turn"]
    building = command.move.get("building")
    kind = building or wanted["kind"]
    found = [move for move in same if move.get("building") == building and corner_of(move["squares"]) == corner]
    if kind is not None:
        found = [move for move in found if fits(kind, move["squares"])]
    if turn is not None:
        shapes = [turned_or_none(each, corner, *turn) for each in ([kind] if kind else LANDSCAPES)]
        found = [move for move in found if move["squares"] in shapes]
    piece = name(kind) if kind else "landscape"
    if not found:
        raise Unreadable("not_listed", f"the {piece} has no legal place with its top left corner at "
                                       f"{square_name(corner)}" + (" turned so" if turn else ""), command.text)
    if len(found) > 1:
        ways = " or ".join(f"'{write(move)}'" for move in found)
        raise Unreadable("ambiguous_place", f"the {piece} fits at {square_name(corner)} in {len(found)} ways: {ways}",
                         command.text)
    return found[0]


def resolve(command: Command, legal: list[Move]) -> Move:
    """The move a command names among the seat's legal moves. A fully written move is returned as it
    is, for the engine to judge in its own words (it knows why: once a turn, too little cash, ...); one
    that leaves a field to the options takes it from the listed moves. Raises Unreadable."""
    move, loose = command.move, command.loose
    if "pass" in loose:
        for answer in ({"type": "pass_auction"}, {"type": "step_out"}):
            if answer in legal:
                return answer
        raise Unreadable("not_now", "there is nothing to pass now", command.text)
    kind = move["type"]
    if not loose:
        return move
    same = [listed for listed in legal if listed["type"] == kind]
    if not same:
        raise Unreadable("not_now", f"you cannot {DOING[kind]} now", command.text)
    if "amount" in loose:
        return min(same, key=lambda listed: listed["amount"])
    if "return_order" in loose:
        shown = next((listed for listed in same if listed["card"] == move["card"]), None)
        if shown is None:
            raise Unreadable("not_listed", f"{card_word(move['card'])} is not among the cards shown to you", command.text)
        return shown
    if "bonus_cards" in loose:
        work = next((listed for listed in same if listed["profession"] == move["profession"]), None)
        if work is None:
            raise Unreadable("not_listed", f"the {name(move['profession'])} cannot publish now: it is not in your "
                                           "hand, or its work cannot reach this round's minimum", command.text)
        return work
    return _resolve_placement(command, same)


def settled(command: Command, start: State, played: list[Move], state: State, seat: int) -> str | None:
    """Why a line needs no move: an 'end' after the `played` lines before it have ended the seat's
    action turn, which its second action does by itself (an action mail's example turn ends so); None for
    any other line, which is read as usual (a second 'end' after an 'end' is refused). `start` is the
    state the reply was read on, `state` the one the played lines leave."""
    began = decision_of(start, seat)
    if (command.move != {"type": "end_turn"} or not played or {"type": "end_turn"} in played
            or began is None or began["kind"] != "action"):
        return None
    turn = state["turn"]
    if turn is not None and turn["seat"] == seat and state["round"] == start["round"]:
        return None
    return "your turn had ended by itself after its second action"


def reveals(before: State, after: State, seat: int) -> bool:
    """Whether the seat's new decision shows it something private it had not seen (cards drawn)."""
    seen = [decision for decision in before["pending"] if decision["seat"] == seat]
    return any(decision["seat"] == seat and "private" in decision and decision not in seen
               for decision in after["pending"])


class PofGrammar:
    """`engine.core.Grammar` for Princes of Florence: this module's functions as the game's `grammar`."""

    guide = GUIDE

    def parse(self, lines: list[str]) -> Parsed:
        lines, prose = _command_lines([line.strip() for line in lines])
        if not lines:
            raise Unreadable("no_command", "I found no command in your mail: write one (or 'help') as its first line")
        return Parsed([_command(line) for line in lines], prose)

    resolve = staticmethod(resolve)
    settled = staticmethod(settled)
    reveals = staticmethod(reveals)
    answers = staticmethod(writing.answers)


GRAMMAR = PofGrammar()
