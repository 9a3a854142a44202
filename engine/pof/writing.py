"""Princes of Florence moves written as lines of text: the line of each move (`write`), the lines a
seat's mail lists (`answers`: its legal moves, placements by example, with notes and its yard drawn
with the coordinates), and the geometry both directions share (squares named like C2, pieces turned).

`engine.pof.grammar` reads the lines back; every line written here reads back to the move it was
written for (tests/test_grammar.py checks it over whole games). Pure: no Flask, Redis or mail.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.core import Answers, Fill, Move, Unreadable
from engine.pof import actions, scoring
from engine.pof.view import COLUMNS, square_name, squares_name
from engine.pof.words import bonus_text, name, prestige_text, spoken
from engine.pof.yard import fits
from engine.pof.data import (AUCTION_ITEMS, BONUS_CARDS, BUILDINGS, ECONOMY, GRID_COLS, GRID_ROWS, LANDSCAPES,
                             PALAZZO, PROFESSIONS)

CODES = {card: f"B{number:02d}" for number, card in enumerate(BONUS_CARDS, start=1)}
EXAMPLES, MORE_EXAMPLES = 1, 6  # placements listed per piece in a decision mail, and in a help mail


def turned(kind: str, corner: tuple[int, int], turns: int, mirror: bool, line: str = "") -> list[list[int]]:
    """The squares of a piece with the top left corner of its box at `corner`, mirrored left to right
    if asked, then turned clockwise `turns` quarter turns, from its shape in data.json."""
    shape = (BUILDINGS.get(kind) or LANDSCAPES[kind])["shape"]
    points = [(row, -col) if mirror else (row, col) for row, col in shape]
    for _ in range(turns % 4):
        points = [(col, -row) for row, col in points]  # a clockwise quarter turn, rows counting down
    top, left = min(row for row, _ in points), min(col for _, col in points)
    squares = sorted([row - top + corner[0], col - left + corner[1]] for row, col in points)
    if any(row >= GRID_ROWS or col >= GRID_COLS for row, col in squares):
        raise Unreadable("bad_square", f"turned so, the {name(kind)} at {square_name(corner)} reaches past the yard",
                         line)
    return squares


def card_word(thing: str) -> str:
    """How a line names a thing: a bonus card by its code, anything else by its name as spoken."""
    return CODES.get(thing) or spoken(thing)


def write(move: Move) -> str:
    """The line that reads back to exactly this move, whatever the seat's options (see `short` for
    the lines a mail lists, which may leave a detail to the options)."""
    kind = move["type"]
    if kind == "keep_professions":
        return "keep " + " ".join(map(card_word, move["professions"]))
    if kind == "open_auction":
        return f"open {card_word(move['item'])}"
    if kind == "bid":
        return f"bid {move['amount']}"
    if kind == "place_landscape":
        return f"place at {squares_name(move['squares'], ' ')}"
    if kind == "choose_card":
        back = " ".join(card_word(card) for card in move["return_order"])
        return f"choose {card_word(move['card'])}" + (f" return {back}" if back else "")
    if kind == "entice":
        return f"entice {card_word(move['profession'])}"
    if kind == "buy_freedom":
        return f"buy freedom {card_word(move['freedom'])}"
    if kind == "build":
        return f"build {card_word(move['building'])} at {squares_name(move['squares'], ' ')}"
    if kind == "publish":
        cards = " ".join(card_word(card) for card in move["bonus_cards"])
        return f"publish {card_word(move['profession'])} " + (f"with bonus {cards}" if cards else "without bonus")
    if kind == "split_payout":
        return f"prestige {move['prestige']}"
    if kind == "sell_prestige":
        return f"sell {move['points']}"
    if kind == "set_orders":
        return _orders_text(move)
    return WORDS[kind]


WORDS = {"pass_auction": "pass", "step_out": "out", "discard_landscape": "discard",
         "keep_enticement": "keep enticement card",
         "buy_profession": "buy profession", "buy_bonus_card": "buy bonus card", "end_turn": "end"}


def _orders_text(move: Move) -> str:
    limits = [f"{move['limits'][item]} for {card_word(item)}" for item in AUCTION_ITEMS if item in move["limits"]]
    parts = ["bid up to " + " and ".join(limits)] if limits else []
    if move["step_out_otherwise"]:
        parts.append("step out otherwise")
    return "orders " + (", ".join(parts) if parts else "cancel")


def short(move: Move) -> str:
    """The line a mail lists for a move: like `write`, leaving to the options what they settle
    (a card's return order as shown, a listed work's bonus cards)."""
    if move["type"] == "choose_card":
        return f"choose {card_word(move['card'])}"
    if move["type"] == "publish" and not move["bonus_cards"]:
        return f"publish {card_word(move['profession'])}"
    return write(move)


def corner_of(squares: list[list[int]]) -> tuple[int, int]:
    """The top-left corner of the squares' box: where a reply's "at C2" puts a piece."""
    return min(row for row, _ in squares), min(col for _, col in squares)


def turned_or_none(kind: str, corner: tuple[int, int], turns: int, mirror: bool) -> list[list[int]] | None:
    try:
        return turned(kind, corner, turns, mirror)
    except Unreadable:
        return None


def _card_note(card: str) -> str:
    """What a card shown to choose does: a bonus card's rule, a profession's likes, a prestige card's points."""
    if card in BONUS_CARDS:
        return bonus_text(card)
    if card in PROFESSIONS:
        likes = PROFESSIONS[card]
        return f"likes the {name(likes['building'])}, {name(likes['landscape'])}, {name(likes['freedom'])}"
    return f"{prestige_text(card)} at the end"


def _publish_note(move: Move, fills: list[Fill], me: dict[str, Any]) -> str:
    value = scoring.work_value(me, move["profession"], move["bonus_cards"])
    note = f"worth {value}"
    for fill in fills:
        adds = ", ".join(f"{card_word(c['value'])} +{c['adds']}" for c in fill["choices"] if c["adds"] > 0)
        if adds:
            note += f"; worth {fill['base']} alone, you may add {adds}"
    return note


def marks(me: dict[str, Any]) -> tuple[list[list[str]], list[str]]:
    """A seat's yard as one mark a square (# the Palazzo, w/l/p landscapes, digits its buildings, . empty)
    and the buildings' legend ("1 library"): the text grid and the HTML mail's table show the same marks."""
    grid = [["." for _ in range(GRID_COLS)] for _ in range(GRID_ROWS)]
    for row, col in PALAZZO:
        grid[row][col] = "#"
    for piece in me.get("landscapes", []):
        for row, col in piece["squares"]:
            grid[row][col] = piece["kind"][0]
    legend = []
    for number, piece in enumerate(me.get("buildings", []), start=1):
        for row, col in piece["squares"]:
            grid[row][col] = str(number % 10)
        legend.append(f"{number % 10} {name(piece['kind'])}")
    return grid, legend


def picture(me: dict[str, Any]) -> str:
    """A seat's yard with its coordinates, in the marks of `marks`."""
    grid, legend = marks(me)
    lines = ["     " + " ".join(COLUMNS)]
    lines += [f"  {row + 1}  " + " ".join(grid[row]) for row in range(GRID_ROWS)]
    lines.append("  # Palazzo, w woods, l lake, p park, . empty" + "".join(f", {item}" for item in legend))
    return "\n".join(lines)


def answers(legal: list[Move], fill: Callable[[Move], list[Fill]], view: dict[str, Any], seat: int,
            full: bool = False) -> Answers:
    """The lines the seat may send now, each reading back to one of its legal moves; placements by
    example (a piece may have hundreds), bids in open bidding by the smallest, with notes on the rest."""
    me = view["players"][seat]
    entries: list[tuple[str, str] | str] = []  # a (line, note), or a piece whose placements go here
    pieces: dict[str, list[Move]] = {}
    bids = [move for move in legal if move["type"] == "bid"]
    for move in legal:
        kind = move["type"]
        if kind in ("build", "place_landscape"):
            piece = move.get("building", "landscape")
            if piece not in pieces:
                pieces[piece] = []
                entries.append(piece)
            pieces[piece].append(move)
        elif kind != "bid" or move is bids[0]:
            note = _card_note(move["card"]) if kind == "choose_card" else (
                _publish_note(move, fill(move), me) if kind == "publish" else "")
            if (short(move), note) not in entries:
                entries.append((short(move), note))
    commands: list[tuple[str, str]] = []
    for entry in entries:
        if isinstance(entry, tuple):
            commands.append(entry)
        else:
            commands += [(write(move), "") for move in pieces[entry][:MORE_EXAMPLES if full else EXAMPLES]]
    notes: list[str] = []
    if pieces:
        counts = ", ".join(f"{name(piece) if piece in BUILDINGS else piece} {len(moves)}"
                           for piece, moves in pieces.items())
        first = next(iter(pieces.values()))[0]
        notes.append(f"Legal places: {counts}. Write a piece's squares, or the top left corner of the box around "
                     f"it with clockwise quarter turns (0-3), 'mirror' flipping it left to right first: "
                     f"'{corner_example(first)}' is the first example above.")
    dealt = list(dict.fromkeys(p for move in legal if move["type"] == "keep_professions" for p in move["professions"]))
    if dealt:
        notes.append("; ".join(f"the {name(p)} {_card_note(p)}" for p in dealt) + ".")
    if len(bids) > 1:
        notes.append(f"Or bid more: 'bid' and any multiple of {ECONOMY['auction_step']} up to {bids[-1]['amount']}.")
    if sum(move["type"] == "choose_card" for move in legal) > 1:
        notes.append("The other cards go back under the deck in the order shown; to set it, write e.g. "
                     "'choose X return Y Z'.")
    turn = example_turn(legal, view, seat)
    if turn:
        notes.append(f"Several lines make one turn, e.g. '{' / '.join(turn)}'; a turn ends by itself after its "
                     "second action, so an 'end' after it changes nothing.")
    if any(move["type"] == "publish" and fill(move) for move in legal):
        notes.append("A work may carry bonus cards: 'publish painter with bonus B07 B12' (or 'without bonus').")
    if not legal:
        notes.append("Nothing waits for you now; standing orders may be set at any time "
                     "('orders bid up to 600 for juggler').")
    if full:
        notes.append("To leave the game for good, write 'leave' alone: you are asked to confirm first.")
    return Answers(commands, notes, picture(me) if pieces or full else None)


def example_turn(legal: list[Move], view: dict[str, Any], seat: int) -> list[str]:
    """The lines of the rest of an action turn the seat could send now, from its own legal moves: a
    freedom and a building if two actions are left and it can pay both, else one of them, then
    "end" ([] outside an action turn, or with neither to offer). Neither shows cards, so no line
    after them waits to be seen (`grammar.reveals`)."""
    if {"type": "end_turn"} not in legal:
        return []
    me = view["players"][seat]
    freedom = next((move for move in legal if move["type"] == "buy_freedom"), None)
    build = next((move for move in legal if move["type"] == "build"), None)
    left = ECONOMY["actions_per_turn"] - view["turn"]["actions"]
    both = left > 1 and ECONOMY["price_freedom"] + actions.building_price(me) <= me["private"]["cash"]
    chosen = [freedom, build] if freedom and build and both else [freedom or build]
    return [write(move) for move in chosen if move] + ["end"] if freedom or build else []


def corner_example(move: Move) -> str:
    """The first listed placement written by its corner and turn (it reads back to the same move)."""
    kind = move.get("building") or next(k for k in LANDSCAPES if fits(k, move["squares"]))
    corner = corner_of(move["squares"])
    turns, mirror = next((t, m) for m in (False, True) for t in range(4)
                         if turned_or_none(kind, corner, t, m) == move["squares"])
    verb = f"build {card_word(kind)}" if move["type"] == "build" else "place"
    return f"{verb} at {square_name(corner)} rotate {turns}" + (" mirror" if mirror else "")
