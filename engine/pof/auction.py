"""Phase A, the auction: every seat buys one item a round; each item kind is sold once a round.

The state's ``auction`` holds ``done`` (seats that bought or sat out this round), ``sold`` (item kinds
sold this round) and ``lot``: the item under the hammer with the seat that opened it, its bid, leader,
the seats still in, and the seat to bid next.
"""
from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalMove, Move, State
from engine.pof import orders, yard
from engine.pof.choices import entice_targets
from engine.pof.data import AUCTION_ITEMS, ECONOMY, LANDSCAPES, SUPPLY
from engine.pof.table import add, can_pay, decide, deck_size, draw, pay, player, resolve, seats_from, take
from engine.pof.words import name

OPENING_BID = ECONOMY["auction_opening_bid"]
STEP = ECONOMY["auction_step"]


def start(state: State, events: list[Event]) -> None:
    state["phase"] = "auction"
    state["auction"] = {"done": [], "sold": [], "lot": None}
    events.append({"type": "round_started", "round": state["round"], "start_player": state["start_player"]})


def can_take(state: State, seat: int, item: str) -> bool:
    """Whether the seat could receive this item now: sold once a round, while supply lasts."""
    if item in state["auction"]["sold"]:
        return False
    if item == "prestige_card":
        return deck_size(state, "prestige_cards") > 0
    if item == "architect" and player(state, seat)["architects"] >= SUPPLY["architect_max_per_player"]:
        return False
    return state["supply"][item] > 0


def takeable(state: State, seat: int) -> list[str]:
    return [item for item in AUCTION_ITEMS if can_take(state, seat, item)]


def _takes_any(state: State, seat: int) -> bool:
    for item in AUCTION_ITEMS:
        if can_take(state, seat, item):
            return True
    return False


def next_chooser(state: State) -> int | None:
    """The first seat from the start player that has not bought this round; None ends Phase A."""
    done = state["auction"]["done"]
    for seat in seats_from(state, state["start_player"]):
        if seat not in done:
            return seat
    return None


def over(state: State) -> bool:
    return state["auction"]["lot"] is None and next_chooser(state) is None


def step(state: State, events: list[Event]) -> None:
    """Move the auction on by one decision: the next bidder or the next chooser (see `over`)."""
    auction = state["auction"]
    lot = auction["lot"]
    if lot is not None:
        bidders = lot["in"]
        if len(bidders) == 1 and bidders[0] == lot["leader"]:
            _sell(state, lot["leader"], lot["item"], lot["bid"], events)
            return
        seat = lot["to_bid"]
        standing = orders.bid_for(state, seat, lot, _next_amount(lot))
        if standing is None:
            decide(state, seat, "bid")
        elif standing == "step_out":
            _step_out(state, seat, events)
        else:
            _raise(state, seat, standing, events)
        return
    chooser = next_chooser(state)
    if not _takes_any(state, chooser) or not can_pay(state, chooser, OPENING_BID):
        add(auction, "done", chooser)
        events.append({"type": "sat_out", "seat": chooser, "reason": "nothing the seat can take or pay for"})
        return
    decide(state, chooser, "open_auction")


def legal_moves(state: State, seat: int, kind: str) -> list[Move]:
    if kind == "open_auction":
        moves: list[Move] = [{"type": "open_auction", "item": item} for item in takeable(state, seat)]
        if state["options"]["auction_pass"]:
            moves.append({"type": "pass_auction"})
        return moves
    lot = state["auction"]["lot"]
    least = _next_amount(lot)
    if state["options"]["bidding"] == "open":  # every amount up to _max_bid, which can_pay allows
        moves = [{"type": "bid", "amount": amount} for amount in range(least, _max_bid(state, seat) + 1, STEP)]
    else:
        moves = [{"type": "bid", "amount": least}] if can_pay(state, seat, least) else []
    moves.append({"type": "step_out"})
    return moves


def open_auction(state: State, seat: int, move: Move, events: list[Event]) -> None:
    item = move["item"]
    if item not in AUCTION_ITEMS:
        raise IllegalMove("unknown_item", f"{item!r} is not an auction item; items: {AUCTION_ITEMS}")
    if not can_take(state, seat, item):
        raise IllegalMove("item_unavailable", f"you cannot take the {name(item)} this round (sold, none left, "
                                              "or 3 architects)")
    resolve(state, seat)
    events.append({"type": "auction_opened", "seat": seat, "item": item, "bid": OPENING_BID})
    bidders = [s for s in seats_from(state, seat) if s not in state["auction"]["done"]]
    lot = {"item": item, "chooser": seat, "bid": OPENING_BID, "leader": seat, "in": bidders, "to_bid": seat}
    state["auction"]["lot"] = lot
    for other in bidders[1:]:
        if not can_take(state, other, item):
            _step_out(state, other, events, reason="cannot take this item")
    lot["to_bid"] = _next_bidder(state, lot, seat)


def pass_auction(state: State, seat: int, move: Move, events: list[Event]) -> None:
    if not state["options"]["auction_pass"]:
        raise IllegalMove("pass_not_allowed", "the chooser must open an auction: this game does not allow passing")
    resolve(state, seat)
    add(state["auction"], "done", seat)
    events.append({"type": "sat_out", "seat": seat, "reason": "passed"})


def bid(state: State, seat: int, move: Move, events: list[Event]) -> None:
    lot = state["auction"]["lot"]
    amount, least = move["amount"], _next_amount(lot)
    if state["options"]["bidding"] == "step" and amount != least:
        raise IllegalMove("bad_amount", f"the next bid must be exactly {least}")
    if amount < least or amount % STEP:
        raise IllegalMove("bad_amount", f"a bid must be a multiple of {STEP} of at least {least}")
    if not can_pay(state, seat, amount):
        raise IllegalMove("cannot_afford", f"you cannot pay {amount}, even by selling prestige")
    resolve(state, seat)
    _raise(state, seat, amount, events)


def step_out(state: State, seat: int, move: Move, events: list[Event]) -> None:
    resolve(state, seat)
    _step_out(state, seat, events)


def _raise(state: State, seat: int, amount: int, events: list[Event]) -> None:
    lot = state["auction"]["lot"]
    lot["bid"], lot["leader"] = amount, seat
    events.append({"type": "bid", "seat": seat, "item": lot["item"], "amount": amount})
    lot["to_bid"] = _next_bidder(state, lot, seat)


def _step_out(state: State, seat: int, events: list[Event], reason: str | None = None) -> None:
    lot = state["auction"]["lot"]
    take(lot, "in", seat)
    event = {"type": "stepped_out", "seat": seat, "item": lot["item"]}
    if reason:
        event["reason"] = reason
    events.append(event)
    lot["to_bid"] = _next_bidder(state, lot, seat)


def _next_bidder(state: State, lot: dict[str, Any], after: int) -> int:
    """The next seat still in after `after`, in table order, that is not the leader."""
    count, bidders, leader = len(state["players"]), lot["in"], lot["leader"]
    for step in range(1, count):
        seat = (after + step) % count
        if seat in bidders and seat != leader:
            return seat
    return leader


def _next_amount(lot: dict[str, Any]) -> int:
    return lot["bid"] + STEP


def _max_bid(state: State, seat: int) -> int:
    buyer = player(state, seat)
    total = buyer["private"]["cash"] + ECONOMY["florins_per_prestige_when_selling"] * buyer["prestige"]
    return total - total % STEP


def _sell(state: State, seat: int, item: str, price: int, events: list[Event]) -> None:
    """The leader buys: he pays, the item takes effect, and maybe a follow-up decision is his."""
    auction = state["auction"]
    auction["lot"] = None
    add(auction, "done", seat)
    add(auction, "sold", item)
    pay(state, seat, price, events)
    events.append({"type": "auction_won", "seat": seat, "item": item, "price": price})
    buyer = player(state, seat)
    if item == "prestige_card":
        shown = draw(state, "prestige_cards", ECONOMY["cards_shown_when_choosing"])
        decide(state, seat, "choose_card", deck="prestige_cards", private={"cards": shown})
        return
    state["supply"][item] -= 1
    if item in LANDSCAPES:
        if yard.has_placement(buyer, item):
            decide(state, seat, "place_landscape", landscape=item)
        else:
            events.append({"type": "landscape_discarded", "seat": seat, "kind": item, "reason": "no room"})
    elif item == "juggler":
        buyer["jugglers"] += 1
    elif item == "architect":
        buyer["architects"] += 1
        if buyer["architects"] >= 2:
            _award(buyer, ECONOMY["prestige_for_2nd_and_3rd_architect"], "architect", events)
    elif item == "enticement":
        buyer["private"]["enticements"] += 1
        if entice_targets(state, seat):
            decide(state, seat, "use_enticement")


def _award(buyer: dict[str, Any], points: int, reason: str, events: list[Event]) -> None:
    buyer["prestige"] += points
    events.append({"type": "prestige_gained", "seat": buyer["seat"], "points": points, "reason": reason})
