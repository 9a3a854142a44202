"""Standing orders for the auction: private instructions that bid for a seat when it is his turn.

Without them an email game needs one round trip per bid step. A seat's orders live in its private
part of the state as ``{"round", "limits": {item: highest bid}, "step_out_otherwise"}`` and apply to
one round's auction: the current one during Phase A, else the next. They vanish when that round ends.
"""
from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalMove, Move, State
from engine.pof.data import AUCTION_ITEMS, ROUNDS
from engine.pof.table import can_pay, decision_of, player, take


def set_orders(state: State, seat: int, move: Move, events: list[Event]) -> None:
    unknown = sorted(set(move["limits"]) - set(AUCTION_ITEMS))
    if unknown:
        raise IllegalMove("unknown_item", f"no auction items called {unknown}; items: {AUCTION_ITEMS}")
    if any(limit < 0 for limit in move["limits"].values()):
        raise IllegalMove("bad_amount", "a bid limit cannot be negative")
    private = player(state, seat)["private"]
    if not move["limits"] and not move["step_out_otherwise"]:
        private["orders"] = None
    else:
        target = state["round"] if state["phase"] in ("professions", "auction") else state["round"] + 1
        if target > ROUNDS:
            raise IllegalMove("no_more_auctions", "the last auction is over; standing orders have nothing to act on")
        private["orders"] = {
            "round": target,
            "limits": dict(move["limits"]),
            "step_out_otherwise": move["step_out_otherwise"],
        }
    events.append({"type": "orders_set", "private_to": seat, "orders": private["orders"]})
    decision = decision_of(state, seat)
    if decision is not None and decision["kind"] == "bid":
        take(state, "pending", decision)  # the auction step re-asks, and the new orders answer


def bid_for(state: State, seat: int, lot: dict[str, Any], amount: int) -> int | str | None:
    """What the seat's orders say when he is to bid `amount`: that amount, "step_out", or None (ask him)."""
    standing = player(state, seat)["private"]["orders"]
    if standing is None or standing["round"] != state["round"]:
        return None
    limit = standing["limits"].get(lot["item"])
    if limit is not None:
        return amount if amount <= limit and can_pay(state, seat, amount) else "step_out"
    # "step out of every auction unless I am the chooser": the seat that opened this lot is asked.
    return "step_out" if standing["step_out_otherwise"] and seat != lot["chooser"] else None


def expire(state: State) -> None:
    """At the end of a round, orders for that round (or older) are dropped."""
    for seat_state in state["players"]:
        standing = seat_state["private"]["orders"]
        if standing is not None and standing["round"] <= state["round"]:
            seat_state["private"]["orders"] = None
