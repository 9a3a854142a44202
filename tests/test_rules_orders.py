"""Standing orders: private instructions that bid or step out for a seat when it is that seat's turn to bid."""
from __future__ import annotations

from engine.core import redact
from tests.rules_helpers import (
    GAME, cash, give, illegal, keep_all, new_game, play, play_events, to_actions, to_round, waiting,
)

OUT = {"type": "step_out"}


def bid(amount: int) -> dict:
    return {"type": "bid", "amount": amount}


def orders(limits: dict | None = None, otherwise: bool = False) -> dict:
    return {"type": "set_orders", "limits": limits or {}, "step_out_otherwise": otherwise}


def open_(item: str) -> dict:
    return {"type": "open_auction", "item": item}


def test_bid_up_to_the_limit_then_step_out() -> None:
    state = keep_all(new_game(4))
    state = play(state, (2, orders({"juggler": 500})))
    state, events = play_events(state, (0, open_("juggler")), (1, bid(300)))
    assert {"type": "bid", "seat": 2, "item": "juggler", "amount": 400} in events  # the order bid
    assert waiting(state) == (3, "bid")
    state = play(state, (3, OUT), (0, bid(500)))
    state, events = play_events(state, (1, bid(600)))  # 700 > 500: seat 2's order steps out
    assert {"type": "stepped_out", "seat": 2, "item": "juggler"} in events
    assert waiting(state) == (0, "bid")
    state = play(state, (0, OUT))
    assert cash(state, 1) == 2900 and state["players"][1]["jugglers"] == 1


def test_an_order_with_a_limit_the_seat_cannot_pay_steps_out() -> None:
    state = give(keep_all(new_game(4)), 2, cash=300, prestige=0)
    state = play(state, (2, orders({"lake": 1000})), (0, open_("lake")), (1, bid(300)))
    assert 2 not in state["auction"]["lot"]["in"] and waiting(state) == (3, "bid")


def test_step_out_of_everything_but_still_choose() -> None:
    state = keep_all(new_game(4))
    state = play(state, (3, orders({}, otherwise=True)), (1, orders({"architect": 900}, otherwise=True)))
    state, events = play_events(state, (0, open_("lake")), (2, OUT))
    assert [e["seat"] for e in events if e["type"] == "stepped_out"] == [1, 2, 3]
    state = play(state, (0, {"type": "discard_landscape"}))
    assert waiting(state) == (1, "open_auction")  # orders never choose for a seat
    state = play(state, (1, open_("park")))  # 2 is asked, 3 steps out by order, 0 has bought
    assert waiting(state) == (2, "bid")
    state, events = play_events(state, (2, OUT))
    assert events[1] == {"type": "stepped_out", "seat": 3, "item": "park"}
    assert {"type": "auction_won", "seat": 1, "item": "park", "price": 200} in events


def test_items_not_named_are_asked_without_step_out_otherwise() -> None:
    state = keep_all(new_game(4))
    state = play(state, (1, orders({"juggler": 800})), (0, open_("woods")))
    assert waiting(state) == (1, "bid")


def test_orders_set_while_the_seats_bid_is_pending_act_at_once() -> None:
    state = play(keep_all(new_game(4)), (0, open_("woods")))
    assert waiting(state) == (1, "bid")
    state, events = play_events(state, (1, orders({"woods": 300})))
    assert {"type": "bid", "seat": 1, "item": "woods", "amount": 300} in events
    assert waiting(state) == (2, "bid")
    # an order that says nothing about the item leaves the seat to decide
    state = play(state, (2, orders({"lake": 900})))
    assert waiting(state) == (2, "bid")
    state, events = play_events(state, (2, orders({}, otherwise=True)))
    assert {"type": "stepped_out", "seat": 2, "item": "woods"} in events and waiting(state) == (3, "bid")


def test_orders_set_at_the_deal_act_in_round_one() -> None:
    state = play(new_game(4), (1, orders({}, otherwise=True)))
    state = keep_all(state)
    state, events = play_events(state, (0, open_("park")))
    assert {"type": "stepped_out", "seat": 1, "item": "park"} in events and waiting(state) == (2, "bid")


def test_orders_vanish_when_the_round_ends() -> None:
    state = play(keep_all(new_game(4)), (3, orders({"juggler": 300})))
    state = to_actions(state)
    assert state["players"][3]["private"]["orders"]["round"] == 1
    state = play(state, (0, {"type": "end_turn"}), (1, {"type": "end_turn"}), (2, {"type": "end_turn"}))
    state = play(state, (3, {"type": "end_turn"}))
    assert state["round"] == 2 and state["players"][3]["private"]["orders"] is None


def test_orders_set_in_phase_b_are_for_the_next_auction_then_vanish() -> None:
    state = to_actions(keep_all(new_game(4)))
    state = play(state, (2, orders({}, otherwise=True)))  # not seat 2's turn: free moves are fine
    assert state["players"][2]["private"]["orders"] == {"round": 2, "limits": {}, "step_out_otherwise": True}
    state = to_round(state, 2)
    assert state["players"][2]["private"]["orders"]["round"] == 2
    state, events = play_events(state, (1, open_("juggler")))
    assert {"type": "stepped_out", "seat": 2, "item": "juggler"} in events
    state = to_round(state, 3)
    assert state["players"][2]["private"]["orders"] is None


def test_cancel_and_refuse_bad_orders() -> None:
    state = play(keep_all(new_game(4)), (1, orders({"lake": 500})))
    illegal(state, 1, orders({"gold": 500}), "unknown_item")
    illegal(state, 1, orders({"lake": -100}), "bad_amount")
    illegal(state, 1, {"type": "set_orders", "limits": {"lake": "500"}, "step_out_otherwise": False}, "bad_move")
    state = play(state, (1, orders()))
    assert state["players"][1]["private"]["orders"] is None


def test_orders_are_invisible_to_other_seats() -> None:
    state = keep_all(new_game(4))
    state, events = play_events(state, (2, orders({"architect": 700}, otherwise=True)))
    mine = {"round": 1, "limits": {"architect": 700}, "step_out_otherwise": True}
    assert GAME.view(state, 2)["players"][2]["private"]["orders"] == mine
    for viewer in (0, 1, 3, None):
        seen = GAME.view(state, viewer)
        assert "private" not in seen["players"][2]
        assert "limits" not in str(seen) and "step_out_otherwise" not in str(seen)
        assert redact(events, viewer) == []
    assert redact(events, 2) == [{"type": "orders_set", "private_to": 2, "orders": mine}]


def test_step_out_otherwise_never_steps_the_chooser_out_of_the_auction_he_opened() -> None:
    # "step out of every auction unless I am the chooser": seat 0 opened the juggler auction, so when
    # outbid it is asked, not stepped out; in seat 1's auction the same order steps seat 0 out.
    state = keep_all(new_game(4))
    state = play(state, (0, orders({}, otherwise=True)), (0, open_("juggler")), (1, bid(300)), (2, OUT), (3, OUT))
    assert waiting(state) == (0, "bid")
    state = play(state, (0, bid(400)), (1, OUT))
    assert state["players"][0]["jugglers"] == 1 and cash(state, 0) == 3100
    state = play(keep_all(new_game(4)), (0, orders({}, otherwise=True)), (1, orders({}, otherwise=True)),
                 (0, open_("lake")), (2, OUT), (3, OUT))
    assert state["players"][0]["landscapes"] == [] and waiting(state) == (0, "place_landscape")
    state = play(state, (0, {"type": "discard_landscape"}))
    state, events = play_events(state, (1, open_("woods")), (2, bid(300)), (3, OUT))
    assert waiting(state) == (1, "bid")  # seat 1 is the chooser of this one


def test_a_limit_still_binds_the_chooser() -> None:
    state = keep_all(new_game(4))
    state, events = play_events(state, (0, orders({"juggler": 300}, otherwise=True)), (0, open_("juggler")),
                                (1, bid(300)), (2, OUT), (3, bid(400)))
    assert {"type": "stepped_out", "seat": 0, "item": "juggler"} in events
    assert waiting(state) == (1, "bid")


def test_no_orders_after_the_last_auction() -> None:
    state = to_actions(to_round(keep_all(new_game(3)), 7))
    assert state["round"] == 7 and state["phase"] == "actions"
    illegal(state, 1, orders({"juggler": 500}), "no_more_auctions")
