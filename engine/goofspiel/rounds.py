"""A round of Goofspiel: secret bids, then all of them shown at once, the prize to the one highest bid.

A bid is kept in its seat's `private` part (engine.core's convention: seen by that seat alone) and its
card stays in the public hand until the round is revealed, so that nobody learns a bid from a hand
that shrank. When the last bid is in, every bid is shown in one `round_over` event and the round's
history entry, the hands shrink, and the next prize is turned up. The last round has no choice in it
(one card in each hand), so it plays itself, as in OpenSpiel.
"""
from __future__ import annotations

from typing import Any

from engine.core import Event, State

Player = dict[str, Any]


def stake_of(state: State) -> int:
    """What the prize showing is worth this round: its value, plus the prizes carried to it (ties: carry)."""
    return state["prize"] + sum(state["carried"]) if state["prize"] is not None else 0


def place_bid(state: State, seat: int, card: int, events: list[Event]) -> None:
    """Keep the seat's bid, hidden; reveal the round once every seat has bid (on a copy `apply` made)."""
    player = state["players"][seat]
    player["has_bid"] = True
    player["private"] = {"bid": card}
    events.append({"type": "bid_made", "seat": seat, "private": {"card": card}})
    while all(each["has_bid"] for each in state["players"]) and state["phase"] == "bidding":
        _reveal(state, events)


def _reveal(state: State, events: list[Event]) -> None:
    players = state["players"]
    bids = [{"seat": each["seat"], "card": each["private"]["bid"]} for each in players]
    top = max(bid["card"] for bid in bids)
    leaders = [bid["seat"] for bid in bids if bid["card"] == top]
    at_stake = [*state["carried"], state["prize"]]
    last = not state["secret"]["prizes"]
    winner = leaders[0] if len(leaders) == 1 else None
    if winner is not None:
        outcome, carried = "taken", []
        players[winner]["points"] += sum(at_stake)
        players[winner]["won"] = sorted(players[winner]["won"] + at_stake)
    elif state["options"]["ties"] == "carry" and not last:
        outcome, carried = "carried", at_stake
    else:
        outcome, carried = "lost", []
    for each, bid in zip(players, bids):
        each["hand"] = [card for card in each["hand"] if card != bid["card"]]
        each["has_bid"] = False
        each["private"] = {"bid": None}
    entry = {"round": state["round"], "prize": state["prize"], "carried": state["carried"],
             "stake": sum(at_stake), "bids": bids, "winner": winner, "outcome": outcome}
    state["history"] = [*state["history"], entry]
    events.append({"type": "round_over", **entry})
    state["carried"] = carried
    if last:
        _end(state, events)
    else:
        _next_prize(state, events)


def _next_prize(state: State, events: list[Event]) -> None:
    """Turn up the next prize; in the last round every seat's one card is its bid, at once."""
    prize, *rest = state["secret"]["prizes"]
    state["secret"] = {"prizes": rest}
    state["prize"] = prize
    state["prizes_left"] = sorted(rest)
    state["round"] += 1
    events.append({"type": "prize_turned", "round": state["round"], "prize": prize, "stake": stake_of(state)})
    if all(len(each["hand"]) == 1 for each in state["players"]):
        for each in state["players"]:
            each["has_bid"] = True
            each["private"] = {"bid": each["hand"][0]}
        events.append({"type": "last_round", "round": state["round"]})


def _end(state: State, events: list[Event]) -> None:
    state["phase"] = "over"
    state["prize"] = None
    state["result"] = result(state["players"])
    events.append({"type": "game_over", "result": state["result"]})


def result(players: list[Player]) -> dict[str, Any]:
    """Each seat's points and the prizes it took; equal points share a rank (1, 1, 3)."""
    scores = [{"seat": each["seat"], "points": each["points"], "prizes": each["won"],
               "rank": 1 + sum(other["points"] > each["points"] for other in players)} for each in players]
    return {"scores": scores, "winners": [score["seat"] for score in scores if score["rank"] == 1]}
