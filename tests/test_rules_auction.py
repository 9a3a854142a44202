"""Phase A: who chooses, who bids in which order, how much, paying with prestige, and what each item does."""
from __future__ import annotations

from tests.rules_helpers import (
    GAME, FULL_YARD, LANDSCAPE_SPOTS, PRESTIGE_ORDER, cash, deck, decision, edit, give, illegal, keep_all, new_game,
    play, play_events, pp, to_actions, to_round, waiting, end_turns_until,
)

OUT = {"type": "step_out"}


def bid(amount: int) -> dict:
    return {"type": "bid", "amount": amount}


def open_(item: str) -> dict:
    return {"type": "open_auction", "item": item}


def started(seats: int = 4, **options) -> dict:
    return keep_all(new_game(seats, **options))


# --- chooser and bidding order -------------------------------------------------------------------


def test_bidding_goes_round_in_seat_order_and_the_last_bidder_in_pays() -> None:
    state = started()
    state = play(state, (0, open_("juggler")))
    assert state["auction"]["lot"]["bid"] == 200 and waiting(state) == (1, "bid")
    state = play(state, (1, OUT))
    assert waiting(state) == (2, "bid")
    state = play(state, (2, bid(300)))
    assert waiting(state) == (3, "bid")
    state = play(state, (3, OUT))
    assert waiting(state) == (0, "bid")  # the chooser, outbid, may answer
    state = play(state, (0, bid(400)))
    assert waiting(state) == (2, "bid")  # seat 1 and seat 3 are out for this item
    state, events = play_events(state, (2, OUT))
    assert {"type": "auction_won", "seat": 0, "item": "juggler", "price": 400} in events
    assert cash(state, 0) == 3100 and state["players"][0]["jugglers"] == 1 and state["supply"]["juggler"] == 6
    assert cash(state, 2) == 3500  # losers pay nothing
    # seat 0 has bought, so the next chooser is the next seat from the start player that has not: seat 1
    assert waiting(state) == (1, "open_auction")


def test_the_chooser_who_lost_chooses_again_and_buyers_no_longer_bid() -> None:
    state = started()
    state = play(state, (0, open_("juggler")), (1, OUT), (2, bid(300)), (3, OUT), (0, OUT))
    assert cash(state, 2) == 3200 and state["players"][2]["jugglers"] == 1
    assert waiting(state) == (0, "open_auction")  # seat 0 has not bought yet
    state = play(state, (0, open_("woods")))
    assert state["auction"]["lot"]["in"] == [0, 1, 3]  # seat 2 has bought
    state = play(state, (1, bid(300)))
    assert waiting(state) == (3, "bid")  # seat 2 is skipped


def test_round_two_starts_with_seat_one_and_bidding_follows_from_the_chooser() -> None:
    state = to_round(started(), 2)
    assert waiting(state) == (1, "open_auction")
    state = play(state, (1, open_("lake")))
    assert waiting(state) == (2, "bid")
    state = play(state, (2, OUT), (3, OUT))
    assert waiting(state) == (0, "bid")


def test_the_last_player_buys_for_200_without_bidding() -> None:
    state = started(3)
    state = play(state, (0, open_("juggler")), (1, OUT), (2, OUT))
    state = play(state, (1, open_("architect")), (2, OUT))
    assert waiting(state) == (2, "open_auction")
    state, events = play_events(state, (2, open_("enticement")))
    assert [e["type"] for e in events if e["type"] in ("bid", "stepped_out")] == []
    assert {"type": "auction_won", "seat": 2, "item": "enticement", "price": 200} in events
    assert cash(state, 2) == 3300 and state["players"][2]["private"]["enticements"] == 1
    assert state["phase"] == "actions" and waiting(state) == (0, "action")


# --- amounts -------------------------------------------------------------------------------------


def test_step_bidding_is_exactly_one_hundred_more() -> None:
    state = play(started(), (0, open_("lake")))
    assert GAME.legal_moves(state, 1) == [bid(300), OUT]
    illegal(state, 1, bid(400), "bad_amount")
    illegal(state, 1, bid(200), "bad_amount")
    illegal(state, 2, bid(300), "not_your_decision")


def test_open_bidding_takes_any_multiple_of_one_hundred_above() -> None:
    state = play(started(bidding="open"), (0, open_("lake")))
    illegal(state, 1, bid(200), "bad_amount")
    illegal(state, 1, bid(350), "bad_amount")
    state = play(state, (1, bid(900)))
    assert state["auction"]["lot"]["bid"] == 900
    moves = GAME.legal_moves(state, 2)
    amounts = [m["amount"] for m in moves if m["type"] == "bid"]
    assert amounts[0] == 1000 and amounts[-1] == 3500 and len(amounts) == 26 and moves[-1] == OUT


def test_a_bid_must_be_covered_by_cash_plus_100_per_prestige_point() -> None:
    state = play(give(started(), 1, cash=200, prestige=0), (0, open_("lake")))
    illegal(state, 1, bid(300), "cannot_afford")
    assert GAME.legal_moves(state, 1) == [OUT]
    state = play(give(started(), 1, cash=200, prestige=1), (0, open_("lake")))
    assert GAME.legal_moves(state, 1) == [bid(300), OUT]  # 200 + 1 x 100 = 300


def test_cash_short_sells_prestige_automatically_rounding_up() -> None:
    # seat 1 has 150 florins and 5 PP and wins at 300: short 150 -> 2 PP sold (rounded up) -> 150 + 200 - 300 = 50
    state = give(started(), 1, cash=150, prestige=5)
    state, events = play_events(state, (0, open_("juggler")), (1, bid(300)), (2, OUT), (3, OUT), (0, OUT))
    assert {"type": "prestige_sold", "seat": 1, "points": 2, "automatic": True} in events
    assert (cash(state, 1), pp(state, 1)) == (50, 3)


def test_a_chooser_with_no_cash_and_no_prestige_sits_out() -> None:
    state = end_turns_until(to_actions(started(3)), 2)  # the last turn of round 1
    state = give(state, 1, cash=0, prestige=0)
    state = give(state, 2, cash=0, prestige=2)
    state, events = play_events(state, (2, {"type": "end_turn"}))  # round 2: seat 1 would choose first
    assert {"type": "sat_out", "seat": 1, "reason": "nothing the seat can take or pay for"} in events
    assert waiting(state) == (2, "open_auction")  # 2 PP cover 200
    state, events = play_events(state, (2, open_("park")), (0, OUT))
    assert {"type": "prestige_sold", "seat": 2, "points": 2, "automatic": True} in events
    assert (cash(state, 2), pp(state, 2)) == (0, 0)


def test_opening_is_forced_unless_auction_pass() -> None:
    state = started()
    illegal(state, 0, {"type": "pass_auction"}, "pass_not_allowed")
    assert {"type": "pass_auction"} not in GAME.legal_moves(state, 0)
    state = started(auction_pass=True)
    assert {"type": "pass_auction"} in GAME.legal_moves(state, 0)
    assert GAME.default_move(state, 0) == {"type": "pass_auction"}
    state, events = play_events(state, (0, {"type": "pass_auction"}))
    assert state["auction"]["done"] == [0] and cash(state, 0) == 3500
    assert waiting(state) == (1, "open_auction")
    # seat 0 is out of this round's bidding too
    state = play(state, (1, open_("lake")))
    assert state["auction"]["lot"]["in"] == [1, 2, 3]


# --- items ---------------------------------------------------------------------------------------


def test_each_item_is_sold_once_a_round() -> None:
    state = play(started(), (0, open_("woods")), (1, OUT), (2, OUT), (3, OUT), (0, {"type": "discard_landscape"}))
    assert waiting(state) == (1, "open_auction")
    illegal(state, 1, open_("woods"), "item_unavailable")
    assert open_("woods") not in GAME.legal_moves(state, 1)
    illegal(state, 1, open_("gold"), "unknown_item")
    # next round woods is back
    state = to_round(state, 2)
    assert open_("woods") in GAME.legal_moves(state, 1)


def test_supply_limits() -> None:
    state = started()
    state = edit(state)
    state["supply"]["lake"] = 0
    state["supply"]["enticement"] = 0
    state["supply"]["juggler"] = 0
    state["secret"]["decks"]["prestige_cards"] = []
    items = [m["item"] for m in GAME.legal_moves(state, 0)]
    assert items == ["woods", "park", "architect"]
    state["supply"]["architect"] = 0
    assert [m["item"] for m in GAME.legal_moves(state, 0)] == ["woods", "park"]
    illegal(state, 0, open_("juggler"), "item_unavailable")
    illegal(state, 0, open_("architect"), "item_unavailable")
    illegal(state, 0, open_("lake"), "item_unavailable")
    illegal(state, 0, open_("prestige_card"), "item_unavailable")
    illegal(state, 0, open_("enticement"), "item_unavailable")


def test_architects_cost_pp_price_and_cap() -> None:
    state = started()
    state = play(state, (0, open_("architect")), (1, OUT), (2, OUT), (3, OUT))
    assert state["players"][0]["architects"] == 1 and pp(state, 0) == 0 and state["supply"]["architect"] == 5
    state = give(to_round(state, 2), 0, architects=1)  # now 2; 2nd via auction tested below
    assert state["players"][0]["architects"] == 2
    # seat 1 opens architects; seat 0 (2 architects) wins its 3rd: +3 PP
    state, events = play_events(state, (1, open_("architect")), (2, OUT), (3, OUT), (0, bid(300)), (1, OUT))
    assert state["players"][0]["architects"] == 3
    assert {"type": "prestige_gained", "seat": 0, "points": 3, "reason": "architect"} in events
    assert pp(state, 0) == 3 and cash(state, 0) == 3500 - 200 - 300
    # a 3-architect seat cannot open architects and is stepped out of an architect auction at once
    state = to_round(state, 3)
    assert waiting(state) == (2, "open_auction")
    state, events = play_events(state, (2, open_("architect")))
    assert {"type": "stepped_out", "seat": 0, "item": "architect", "reason": "cannot take this item"} in events
    assert 0 not in state["auction"]["lot"]["in"]
    state = play(state, (3, OUT))
    assert waiting(state) == (1, "bid")  # 2 -> 3 -> (0 skipped) -> 1
    state = drive_to_chooser(state, 0)
    illegal(state, 0, open_("architect"), "item_unavailable")


def drive_to_chooser(state: dict, seat: int) -> dict:
    from tests.rules_helpers import drive
    return drive(state, lambda s: s["pending"] and s["pending"][0]["seat"] == seat
                 and s["pending"][0]["kind"] == "open_auction")


def test_second_architect_gives_three_prestige() -> None:
    state = give(started(), 1, architects=1)
    state, events = play_events(state, (0, open_("architect")), (1, bid(300)), (2, OUT), (3, OUT), (0, OUT))
    assert state["players"][1]["architects"] == 2 and pp(state, 1) == 3
    assert cash(state, 1) == 3200


def test_jugglers() -> None:
    state = play(started(), (0, open_("juggler")), (1, OUT), (2, OUT), (3, OUT))
    assert state["players"][0]["jugglers"] == 1 and state["supply"]["juggler"] == 6 and cash(state, 0) == 3300


# --- landscapes ----------------------------------------------------------------------------------


def test_landscape_is_placed_turned_or_mirrored_and_a_wrong_shape_is_refused() -> None:
    state = play(started(), (0, open_("woods")), (1, OUT), (2, OUT), (3, OUT))
    assert waiting(state) == (0, "place_landscape") and decision(state, 0)["landscape"] == "woods"
    illegal(state, 0, {"type": "place_landscape", "squares": [[0, 0], [0, 1], [0, 2], [0, 3]]}, "wrong_shape")
    illegal(state, 0, {"type": "place_landscape", "squares": [[4, 0], [5, 0], [6, 0], [6, 1]]}, "square_taken")
    # turned a quarter and mirrored: the foot of the L to the top right
    mirrored = [[0, 0], [0, 1], [0, 2], [1, 2]]
    assert {"type": "place_landscape", "squares": mirrored} in GAME.legal_moves(state, 0)
    assert GAME.legal_moves(state, 0)[-1] == {"type": "discard_landscape"}
    state, events = play_events(state, (0, {"type": "place_landscape", "squares": mirrored}))
    assert state["players"][0]["landscapes"] == [{"kind": "woods", "squares": mirrored}]
    assert pp(state, 0) == 0 and state["supply"]["woods"] == 5
    assert waiting(state) == (1, "open_auction")


def test_a_landscape_may_touch_the_palazzo_and_buildings() -> None:
    state = give(started(), 0, buildings=[("tower", [[3, 0], [3, 1], [3, 2]])])
    state = play(state, (0, open_("park")), (1, OUT), (2, OUT), (3, OUT))
    illegal(state, 0, {"type": "place_landscape", "squares": [[4, 0], [4, 1], [4, 2]]}, "wrong_shape")
    # (4, 2) touches the tower above and the Palazzo below; (5, 3) touches the Palazzo on its left
    squares = [[4, 2], [4, 3], [5, 3]]
    state = play(state, (0, {"type": "place_landscape", "squares": squares}))
    assert state["players"][0]["landscapes"] == [{"kind": "park", "squares": squares}]


def test_a_landscape_may_be_thrown_away() -> None:
    state = play(started(), (0, open_("lake")), (1, OUT), (2, OUT), (3, OUT))
    state, events = play_events(state, (0, {"type": "discard_landscape"}))
    assert state["players"][0]["landscapes"] == [] and state["supply"]["lake"] == 5 and cash(state, 0) == 3300
    assert {"type": "landscape_discarded", "seat": 0, "kind": "lake", "reason": "thrown away"} in events


def test_a_repeated_landscape_type_gives_three_prestige_each_time() -> None:
    state = give(started(), 0, landscapes=[("woods", LANDSCAPE_SPOTS["woods"])])
    state = play(state, (0, open_("woods")), (1, OUT), (2, OUT), (3, OUT))
    state = play(state, (0, {"type": "place_landscape", "squares": [[0, 2], [1, 2], [2, 2], [2, 3]]}))
    assert pp(state, 0) == 3
    # a lake (a type seat 0 does not have) gives nothing; a third woods gives 3 more
    state = to_round(state, 2)
    state = play(state, (1, open_("lake")), (2, OUT), (3, OUT), (0, bid(300)), (1, OUT),
                 (0, {"type": "place_landscape", "squares": LANDSCAPE_SPOTS["lake"]}))
    assert pp(state, 0) == 3 and cash(state, 0) == 3500 - 200 - 300
    state = to_round(state, 3)
    state = play(state, (2, open_("woods")), (3, OUT), (0, bid(300)), (1, OUT), (2, OUT),
                 (0, {"type": "place_landscape", "squares": [[3, 5], [4, 5], [5, 5], [5, 6]]}))
    assert pp(state, 0) == 6 and cash(state, 0) == 3500 - 200 - 300 - 300


def test_a_landscape_with_no_room_is_lost() -> None:
    state = give(started(), 0, landscapes=FULL_YARD)  # no square left
    state, events = play_events(state, (0, open_("park")), (1, OUT), (2, OUT), (3, OUT))
    assert {"type": "landscape_discarded", "seat": 0, "kind": "park", "reason": "no room"} in events
    assert waiting(state) == (1, "open_auction")


# --- prestige cards and enticement at purchase ---------------------------------------------------


def test_prestige_card_choose_one_of_five_and_return_the_rest_in_chosen_order() -> None:
    state = play(started(), (0, open_("prestige_card")), (1, OUT), (2, OUT), (3, OUT))
    shown = decision(state, 0)["private"]["cards"]
    assert shown == PRESTIGE_ORDER[:5]
    assert len(deck(state, "prestige_cards")) == 9
    illegal(state, 0, {"type": "choose_card", "card": "most_works", "return_order": shown[1:]}, "bad_choice")
    illegal(state, 0, {"type": "choose_card", "card": shown[2], "return_order": shown[:2]}, "bad_order")
    illegal(state, 0, {"type": "choose_card", "card": shown[2], "return_order": [shown[0]] * 4}, "bad_order")
    order = [shown[4], shown[0], shown[3], shown[1]]
    state = play(state, (0, {"type": "choose_card", "card": shown[2], "return_order": order}))
    assert state["players"][0]["private"]["prestige_cards"] == [shown[2]]
    assert deck(state, "prestige_cards") == PRESTIGE_ORDER[5:] + order
    assert cash(state, 0) == 3300


def test_a_short_prestige_deck_shows_fewer() -> None:
    state = edit(started())
    state["secret"]["decks"]["prestige_cards"] = ["most_works", "all_freedoms"]
    state = play(state, (0, open_("prestige_card")), (1, OUT), (2, OUT), (3, OUT))
    assert decision(state, 0)["private"]["cards"] == ["most_works", "all_freedoms"]
    assert GAME.default_move(state, 0) == {"type": "choose_card", "card": "most_works", "return_order": ["all_freedoms"]}


def with_published(state: dict, seat: int, profession: str, round_: int = 1, value: int = 7) -> dict:
    """A copy in which `seat` has published `profession` (moved from its hand, or from the deck)."""
    state = edit(state)
    me = state["players"][seat]
    if profession in me["private"]["hand"]:
        me["private"]["hand"].remove(profession)
    else:
        state["secret"]["decks"]["professions"].remove(profession)
    me["played"].append(profession)
    me["works"].append({"profession": profession, "value": value, "round": round_})
    return state


def test_enticement_at_purchase_takes_an_opponents_played_profession() -> None:
    state = with_published(to_round(started(), 2), 2, "historian")
    state = with_published(state, 1, "goldsmith")
    state = play(state, (1, open_("enticement")), (2, OUT), (3, OUT), (0, OUT))
    assert waiting(state) == (1, "use_enticement")
    assert GAME.legal_moves(state, 1) == [{"type": "entice", "profession": "historian"}, {"type": "keep_enticement"}]
    illegal(state, 1, {"type": "entice", "profession": "map_maker"}, "bad_target")  # unplayed, in seat 2's hand
    illegal(state, 1, {"type": "entice", "profession": "goldsmith"}, "bad_target")  # seat 1's own
    before_2 = GAME.view(state, None)["players"][2]["counts"]["person_cards"]
    state, events = play_events(state, (1, {"type": "entice", "profession": "historian"}))
    assert {"type": "enticed", "seat": 1, "from_seat": 2, "profession": "historian"} in events
    one, two = state["players"][1], state["players"][2]
    assert "historian" in one["private"]["hand"] and one["private"]["enticements"] == 0
    assert two["played"] == [] and two["enticements_received"] == 1 and len(two["works"]) == 1
    assert GAME.view(state, None)["players"][2]["counts"]["person_cards"] == before_2 == 3  # 2 in hand + used card
    assert GAME.view(state, None)["players"][1]["counts"]["person_cards"] == 4  # 2 in hand, 1 played, historian


def test_enticement_with_nobody_to_entice_is_kept_without_asking() -> None:
    state = play(started(), (0, open_("enticement")), (1, OUT), (2, OUT), (3, OUT))
    assert state["players"][0]["private"]["enticements"] == 1 and state["supply"]["enticement"] == 4
    assert waiting(state) == (1, "open_auction")


def test_enticement_kept_for_later() -> None:
    state = with_published(started(), 2, "historian")
    state = play(state, (0, open_("enticement")), (1, OUT), (2, OUT), (3, OUT))
    assert GAME.default_move(state, 0) == {"type": "keep_enticement"}
    state = play(state, (0, {"type": "keep_enticement"}))
    assert state["players"][0]["private"]["enticements"] == 1 and state["players"][2]["played"] == ["historian"]
