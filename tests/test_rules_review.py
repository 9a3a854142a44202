"""Rules settled in review: an enticement card is free at every decision of the seat's own (not only
its action turn and the purchase), and the final state shows the final scores.

Positions start in round 1's Phase B (see test_rules_actions): seat 0 holds alchemist, botanist and
physicist and has 3300 florins; seat 2 has published the historian, so an enticement card can take it.
"""
from __future__ import annotations

import pytest

from tests.rules_helpers import (
    GAME, decision, drive, edit, give, illegal, keep_all, new_game, play, play_events, to_actions, to_round, waiting,
)
from tests.test_rules_end import last_turn

ENTICE = {"type": "entice", "profession": "historian"}


def historian_published(state: dict) -> dict:
    """A copy in which seat 2 has published the historian from its hand."""
    state = edit(state)
    two = state["players"][2]
    two["private"]["hand"].remove("historian")
    two["played"].append("historian")
    two["works"].append({"profession": "historian", "value": 7, "round": state["round"], "bonus_cards": []})
    return state


def phase_b_with_card(**extra) -> dict:
    """Round 1's Phase B, seat 0 to act with an enticement card and the historian to entice."""
    state = historian_published(to_actions(keep_all(new_game(4))))
    return give(state, 0, enticements=1, **extra)


def entice_leaves_pending(state: dict, seat: int) -> dict:
    """Entice the historian during the seat's decision: the card is used and the decision is left as it was."""
    waiting_before = list(state["pending"])
    assert ENTICE in GAME.legal_moves(state, seat)
    assert GAME.default_move(state, seat)["type"] != "entice"
    state, events = play_events(state, (seat, ENTICE))
    assert events == [{"type": "enticed", "seat": seat, "from_seat": 2, "profession": "historian"}]
    assert state["pending"] == waiting_before
    me = state["players"][seat]
    assert me["private"]["hand"][-1] == "historian" and me["private"]["enticements"] == 0
    assert state["players"][2]["played"] == [] and state["players"][2]["enticements_received"] == 1
    assert ENTICE not in GAME.legal_moves(state, seat)
    illegal(state, seat, ENTICE, "bad_target")  # the card is used
    return state


def test_entice_while_choosing_a_bought_card_leaves_the_choice_pending() -> None:
    state = play(phase_b_with_card(), (0, {"type": "buy_freedom", "freedom": "travel"}),
                 (0, {"type": "buy_profession"}))
    assert waiting(state) == (0, "choose_card")
    shown = decision(state, 0)["private"]["cards"]
    state = entice_leaves_pending(state, 0)
    state = play(state, (0, GAME.default_move(state, 0)))
    assert state["players"][0]["private"]["hand"][-2:] == ["historian", shown[0]]
    assert waiting(state) == (1, "action")  # that was the second action: the turn is over


def test_entice_while_splitting_a_payout_leaves_the_split_pending() -> None:
    # alchemist: 2 jugglers 4 + 4 person cards (3 in hand, the enticement card) = 8
    state = play(phase_b_with_card(jugglers=2), (0, {"type": "buy_freedom", "freedom": "travel"}),
                 (0, {"type": "publish", "profession": "alchemist", "bonus_cards": []}))
    assert waiting(state) == (0, "split_payout") and decision(state, 0)["payout"] == 800
    state = entice_leaves_pending(state, 0)
    state = play(state, (0, {"type": "split_payout", "prestige": 4}))
    assert state["players"][0]["prestige"] == 4 and waiting(state) == (1, "action")


def test_entice_while_bidding_leaves_the_bid_pending() -> None:
    state = give(historian_published(to_round(keep_all(new_game(4)), 2)), 3, enticements=1)
    state = play(state, (1, {"type": "open_auction", "item": "juggler"}))
    assert waiting(state) == (2, "bid")
    illegal(state, 3, ENTICE, "not_your_decision")  # seat 2 is to bid, not seat 3
    state = play(state, (2, {"type": "step_out"}))
    assert waiting(state) == (3, "bid")
    state = entice_leaves_pending(state, 3)
    state = play(state, (3, {"type": "bid", "amount": 300}))
    assert waiting(state) == (0, "bid")


def test_entice_at_the_purchase_answers_that_decision() -> None:
    state = historian_published(to_round(keep_all(new_game(4)), 2))
    state = play(state, (1, {"type": "open_auction", "item": "enticement"}), (2, {"type": "step_out"}),
                 (3, {"type": "step_out"}), (0, {"type": "step_out"}))
    assert waiting(state) == (1, "use_enticement")
    assert GAME.legal_moves(state, 1) == [ENTICE, {"type": "keep_enticement"}]
    state = play(state, (1, ENTICE))
    assert waiting(state) == (2, "open_auction")


def test_no_entice_without_a_card_or_outside_the_own_decisions() -> None:
    state = historian_published(to_actions(keep_all(new_game(4))))
    assert not [m for m in GAME.legal_moves(state, 0) if m["type"] == "entice"]
    illegal(state, 0, ENTICE, "bad_target")
    state = give(state, 1, enticements=1)
    illegal(state, 1, ENTICE, "not_your_decision")
    assert GAME.legal_moves(state, 1) == []


# --- the final state shows the final score ---------------------------------------------------------


def final_states() -> list[dict]:
    end = play(last_turn(s2=2200), (2, {"type": "end_turn"}))
    timeouts = drive(keep_all(new_game(5, prestige_cards=["all_landscape_types"])), lambda s: s["phase"] == "over")
    return [end, timeouts]


@pytest.mark.parametrize("state", final_states(), ids=["hand-built", "timeouts"])
def test_the_final_view_shows_the_final_prestige_of_every_seat(state: dict) -> None:
    scores = GAME.result(state)["scores"]
    for viewer in [*range(len(state["players"])), None]:
        seen = GAME.view(state, viewer)
        assert [p["prestige"] for p in seen["players"]] == [s["prestige"] for s in scores]
        assert seen["result"] == GAME.result(state)


def test_prestige_cards_count_once_in_the_final_prestige() -> None:
    state, events = play_events(last_turn(s2=2200), (2, {"type": "end_turn"}))
    # seat 0: most_jugglers 6; seat 1: 4 PP and all_freedoms 0; seat 2: most_architects 6
    assert [p["prestige"] for p in state["players"]] == [6, 4, 6]
    assert [s["prestige"] for s in GAME.result(state)["scores"]] == [6, 4, 6]
    assert events[-1] == {"type": "game_over", "result": GAME.result(state)}
