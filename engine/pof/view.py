"""What one viewer may see of a game, and human-readable labels for moves."""
from __future__ import annotations

from typing import Any, Iterable

from engine.core import Move, State, Viewer, redact
from engine.pof import scoring
from engine.pof.data import ECONOMY, GRID_COLS, MIN_WORK_VALUE
from engine.pof.words import name, names

COLUMNS = "".join(chr(ord("A") + col) for col in range(GRID_COLS))  # the yard's columns, A from the left


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """The state with public counts of hidden things added, then redacted for the viewer."""
    seen = dict(state)
    seen["players"] = [_with_counts(p) for p in state["players"]]
    seen["decks"] = {name: len(cards) for name, cards in state["secret"]["decks"].items()}
    seen["min_work_value"] = MIN_WORK_VALUE[state["round"] - 1]
    return redact(seen, viewer)


def _with_counts(seat_state: dict[str, Any]) -> dict[str, Any]:
    private = seat_state["private"]
    return {
        **seat_state,
        "counts": {
            "hand": len(private["hand"]),
            "bonus_cards": len(private["bonus_cards"]),
            "prestige_cards": len(private["prestige_cards"]),
            "enticements": private["enticements"],
            "person_cards": scoring.person_cards(seat_state),
        },
    }


def square_name(square: Iterable[int]) -> str:
    """[1, 2] -> C2, as on a chess board: column letter from the left, row number from the top. The one
    naming of squares, for labels, mails, replies and pages."""
    row, col = square
    return f"{COLUMNS[col]}{row + 1}"


def squares_name(squares: list[list[int]], between: str = ", ") -> str:
    """[[0, 0], [0, 1]] -> A1, B1 (or A1 B1, as a reply writes them, with between=" ")."""
    return between.join(square_name(square) for square in squares)


_LABELS = {
    "keep_professions": lambda m: f"Keep {names(m['professions'])}",
    "open_auction": lambda m: f"Auction the {name(m['item'])} (opening bid {ECONOMY['auction_opening_bid']})",
    "pass_auction": lambda m: "Pass: buy nothing this round",
    "bid": lambda m: f"Bid {m['amount']}",
    "step_out": lambda m: "Step out of this auction",
    "place_landscape": lambda m: f"Place the landscape on {squares_name(m['squares'])}",
    "discard_landscape": lambda m: "Throw the landscape away",
    "choose_card": lambda m: f"Keep {name(m['card'])}"
    + (f"; return {names(m['return_order'])}" if m["return_order"] else ""),
    "entice": lambda m: f"Entice the {name(m['profession'])}",
    "keep_enticement": lambda m: "Keep the enticement card for later",
    "buy_freedom": lambda m: f"Buy the freedom of {name(m['freedom'])} ({ECONOMY['price_freedom']})",
    "buy_profession": lambda m: f"Buy a profession ({ECONOMY['price_profession']})",
    "buy_bonus_card": lambda m: f"Buy a bonus card ({ECONOMY['price_bonus_card']})",
    "build": lambda m: f"Build the {name(m['building'])} on {squares_name(m['squares'])}",
    "publish": lambda m: f"Publish a work by the {name(m['profession'])}"
    + (f" with {names(m['bonus_cards'])}" if m["bonus_cards"] else ""),
    "split_payout": lambda m: f"Take {m['prestige']} prestige, the rest in florins",
    "end_turn": lambda m: "End your turn",
    "sell_prestige": lambda m: f"Sell {m['points']} prestige for florins",
    "set_orders": lambda m: "Set standing orders for the auction",
}


def describe(move: Move) -> str:
    """A label for a move, in the words of `engine.pof.words`; squares read like a chess board: columns
    A-G, rows 1-7 from the top."""
    return _LABELS[move["type"]](move)
