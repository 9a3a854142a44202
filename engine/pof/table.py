"""Small shared helpers over the state: players, money, decks, decisions."""
from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalMove, State
from engine.pof.data import ECONOMY

DEADLINE_CLASS = {
    "keep_professions": "setup",
    "open_auction": "auction",
    "bid": "auction",
    "action": "turn",
    "place_landscape": "choice",
    "choose_card": "choice",
    "use_enticement": "choice",
    "split_payout": "choice",
}
DECISION_KINDS: tuple[str, ...] = tuple(DEADLINE_CLASS)


def fork(state: State) -> State:
    """The copy `apply` changes, made in a few microseconds because apply is the hot path.

    Every dict a move may change is new; lists are shared, because the rules never change a list in
    place: they replace it (`add`, `take`, `put_under`, `decide`, `resolve`). Options, orders, placed
    pieces, works and decisions are never changed once made. The property tests check that `apply`
    leaves its input untouched over many whole games.
    """
    auction, turn, supply, secret = state["auction"], state["turn"], state["supply"], state["secret"]
    players = []
    for seat_state in state["players"]:
        copied = seat_state.copy()
        copied["private"] = seat_state["private"].copy()
        players.append(copied)
    forked = state.copy()
    forked["players"] = players
    forked["supply"] = {**supply, "buildings": supply["buildings"].copy(), "freedoms": supply["freedoms"].copy()}
    forked["auction"] = auction and {**auction, "lot": auction["lot"] and auction["lot"].copy()}
    forked["turn"] = turn and turn.copy()
    forked["secret"] = {**secret, "decks": secret["decks"].copy(), "returned": secret["returned"].copy()}
    return forked


def add(holder: dict[str, Any], key: str, item: Any) -> None:
    """Append to a list of the state by replacing it (see `fork`)."""
    holder[key] = holder[key] + [item]


def take(holder: dict[str, Any], key: str, item: Any) -> None:
    """Remove an item (all cards and seats are unique) from a list of the state by replacing it."""
    holder[key] = [kept for kept in holder[key] if kept != item]


def player(state: State, seat: int) -> dict[str, Any]:
    return state["players"][seat]


def seats_from(state: State, first: int) -> list[int]:
    """All seats in table order, starting with `first`."""
    count = len(state["players"])
    return [*range(first, count), *range(first)]


def can_pay(state: State, seat: int, amount: int) -> bool:
    """Auction purchases may be covered by selling prestige; this is the limit."""
    buyer = player(state, seat)
    return buyer["private"]["cash"] + ECONOMY["florins_per_prestige_when_selling"] * buyer["prestige"] >= amount


def pay(state: State, seat: int, amount: int, events: list[Event]) -> None:
    """Pay from cash, selling prestige automatically when cash is short (auction purchases)."""
    buyer = player(state, seat)
    short = amount - buyer["private"]["cash"]
    if short > 0:
        rate = ECONOMY["florins_per_prestige_when_selling"]
        points = -(-short // rate)
        sell_prestige(state, seat, points, events, automatic=True)
    buyer["private"]["cash"] -= amount


def spend(state: State, seat: int, amount: int) -> None:
    """Pay from cash for an action; the player sells prestige himself first if he wants to."""
    cash = player(state, seat)["private"]["cash"]
    if cash < amount:
        raise IllegalMove("not_enough_cash", f"this costs {amount} florins and you have {cash}")
    player(state, seat)["private"]["cash"] = cash - amount


def sell_prestige(state: State, seat: int, points: int, events: list[Event], automatic: bool = False) -> None:
    seller = player(state, seat)
    if points < 1 or points > seller["prestige"]:
        raise IllegalMove("bad_points", f"you can sell 1 to {seller['prestige']} prestige points")
    seller["prestige"] -= points
    seller["private"]["cash"] += points * ECONOMY["florins_per_prestige_when_selling"]
    events.append({"type": "prestige_sold", "seat": seat, "points": points, "automatic": automatic})


def draw(state: State, deck: str, count: int) -> list[str]:
    cards = state["secret"]["decks"][deck]
    drawn, state["secret"]["decks"][deck] = cards[:count], cards[count:]
    return drawn


def put_under(state: State, deck: str, cards: list[str]) -> None:
    decks = state["secret"]["decks"]
    decks[deck] = decks[deck] + cards


def deck_size(state: State, deck: str) -> int:
    return len(state["secret"]["decks"][deck])


def decide(state: State, seat: int, kind: str, **fields: Any) -> None:
    """Add a pending decision; `private` (if given) is seen by that seat alone."""
    decision = {"seat": seat, "kind": kind, "deadline": DEADLINE_CLASS[kind]}
    if fields:
        decision.update(fields)
    state["pending"] = state["pending"] + [decision]


def decision_of(state: State, seat: int) -> dict[str, Any] | None:
    for decision in state["pending"]:
        if decision["seat"] == seat:
            return decision
    return None


def resolve(state: State, seat: int) -> None:
    state["pending"] = [d for d in state["pending"] if d["seat"] != seat]
