"""Properties that must hold in every game: checked after every move of many random games."""
from __future__ import annotations

import json
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalMove, get_game, redact
from engine.bots import choose_move
from engine.core import filled
from engine.pof import scoring, yard
from engine.pof.data import AUCTION_ITEMS, BONUS_CARDS, FREEDOMS, MIN_WORK_VALUE, PROFESSIONS
from tests.rules_helpers import LANDSCAPE_SPOTS, edit, give, keep_all, new_game, to_actions

GAME = get_game("princes-of-florence")


def strings_in(doc: Any) -> set[str]:
    """Every string value (not key) in a JSON document."""
    if isinstance(doc, dict):
        return {s for v in doc.values() for s in strings_in(v)}
    if isinstance(doc, list):
        return {s for v in doc for s in strings_in(v)}
    return {doc} if isinstance(doc, str) else set()


def profession_places(state: dict) -> Counter:
    """How many places hold each profession: deck, hands, tables, cards dealt or shown, returned."""
    places: Counter = Counter(state["secret"]["decks"]["professions"])
    for seat_state in state["players"]:
        places.update(seat_state["private"]["hand"])
        places.update(seat_state["played"])
    for decision in state["pending"]:
        private = decision.get("private", {})
        places.update(private.get("dealt", []))
        if decision.get("deck") == "professions":
            places.update(private["cards"])
    for returned in state["secret"]["returned"].values():
        places.update(returned)
    return places


def secrets_kept_from(state: dict, viewer: int | None) -> set[str]:
    """Card names the viewer must never see: other seats' hands and offers, and every deck."""
    public = strings_in([p["works"] for p in state["players"]]) | strings_in([p["played"] for p in state["players"]])
    hidden: set[str] = set()
    for seat_state in state["players"]:
        if seat_state["seat"] != viewer:
            private = seat_state["private"]
            hidden |= set(private["hand"]) | set(private["bonus_cards"]) | set(private["prestige_cards"])
    for decision in state["pending"]:
        if decision["seat"] != viewer:
            hidden |= strings_in(decision.get("private", {}))
    for deck in state["secret"]["decks"].values():
        hidden |= set(deck)
    return hidden - public - set(AUCTION_ITEMS)  # the profession "architect" shares a name with an item


def check_state(state: dict) -> None:
    for seat_state in state["players"]:
        assert seat_state["private"]["cash"] >= 0
        assert seat_state["prestige"] >= 0
    assert profession_places(state) == Counter(list(PROFESSIONS)), "every profession is in exactly one place"
    seats = range(len(state["players"]))
    for viewer in [*seats, None]:
        seen = GAME.view(state, viewer)
        text = json.dumps(seen)
        assert '"secret"' not in text
        for other in seats:
            if other != viewer:
                assert "private" not in seen["players"][other]
                assert all("private" not in d for d in seen["pending"] if d["seat"] == other)
        leaked = secrets_kept_from(state, viewer) & strings_in(seen)
        assert not leaked, f"viewer {viewer} sees {leaked}"


def play_checked(seed: int, options: dict, deep: bool) -> None:
    """Play a random game, checking invariants after each move; `deep` also checks every legal move."""
    options = GAME.normalize_options(options)
    setup = GAME.make_setup(options, seed)
    state = GAME.new_state(options, setup)
    rng = random.Random(seed)
    log, bought, current_round = [], Counter(), 0
    while GAME.result(state) is None:
        check_state(state)
        seat = rng.choice(GAME.pending(state))["seat"]
        moves = GAME.legal_moves(state, seat)
        assert moves, "a pending seat always has a legal move"
        assert GAME.default_move(state, seat) in moves, "the deadline default is a legal move"
        before = json.dumps(state, sort_keys=True)
        if deep:
            for move in rng.sample(moves, min(len(moves), 8)):
                GAME.apply(state, seat, move)
                for fill in GAME.fill(state, seat, move):  # and filled in otherwise, as the fill allows
                    values = [c["value"] for c in fill["choices"] if rng.random() < 0.5]
                    other = filled(move, fill, values)
                    if other is None:
                        with pytest.raises(IllegalMove):
                            GAME.apply(state, seat, {**move, fill["field"]: values})
                    else:
                        GAME.apply(state, seat, other)
        move = rng.choice(moves)
        state, events = GAME.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) != before
        log.append((seat, move))
        for event in events:
            if event["type"] == "round_started":
                current_round = event["round"]
            if event["type"] == "auction_won":
                bought[(current_round, event["seat"])] += 1
            for viewer in [*range(options["seats"]), None]:
                if viewer in (event.get("seat"), event.get("private_to")) or event["type"] == "game_over":
                    continue  # a seat knows cards it saw itself; the final score shows prestige cards
                redacted = redact(event, viewer) or {}
                assert not secrets_kept_from(state, viewer) & strings_in(redacted), (viewer, event)
    assert all(count == 1 for count in bought.values()), "at most one auction item per seat and round"
    replayed = GAME.new_state(options, setup)
    for seat, move in log:
        replayed, _ = GAME.apply(replayed, seat, move)
    assert replayed == state, "replaying the moves from the setup gives the identical state"
    assert json.loads(json.dumps(state)) == state, "the state is plain JSON"


@pytest.mark.parametrize("bots, options", [
    (["random"] * 5, {"seats": 5}),
    (["greedy", "random", "greedy", "random"], {"seats": 4, "bidding": "open", "auction_pass": True}),
    (["greedy"] * 3, {"seats": 3}),
])
def test_apply_never_mutates_its_input(bots: list[str], options: dict) -> None:
    """`fork` shares lists with the input state: any change in place would show here."""
    options = GAME.normalize_options(options)
    state = GAME.new_state(options, GAME.make_setup(options, 11))
    rng = random.Random(11)
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        before = json.dumps(state, sort_keys=True)
        move = choose_move(bots[seat], GAME, state, seat, rng)
        state_after, _ = GAME.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) == before, move
        state = state_after


def test_illegal_moves_change_nothing() -> None:
    options = GAME.normalize_options({"seats": 4})
    state = GAME.new_state(options, GAME.make_setup(options, 5))
    before = json.dumps(state, sort_keys=True)
    for seat, move in [
        (0, {"type": "bid", "amount": 300}),
        (0, {"type": "keep_professions", "professions": ["nobody"]}),
        (0, {"type": "fly"}),
        (9, {"type": "end_turn"}),
        (0, {"type": "keep_professions", "professions": ["a"], "extra": 1}),
    ]:
        try:
            GAME.apply(state, seat, move)
        except IllegalMove as refused:
            assert refused.code and refused.message
        else:
            raise AssertionError(f"{move} was accepted")
    assert json.dumps(state, sort_keys=True) == before


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(3, 5),
    bidding=st.sampled_from(["step", "open"]),
    auction_pass=st.booleans(),
)
def test_random_games_keep_every_invariant(seed: int, seats: int, bidding: str, auction_pass: bool) -> None:
    play_checked(seed, {"seats": seats, "bidding": bidding, "auction_pass": auction_pass}, deep=False)


def test_every_listed_legal_move_applies() -> None:
    for seed in range(3):
        play_checked(seed, {"seats": 3 + seed}, deep=True)


PHASE_B = to_actions(keep_all(new_game(4)))  # seat 0 to act, holding alchemist, botanist, physicist


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    round_=st.integers(1, 7),
    jugglers=st.integers(0, 3),
    enticements=st.integers(0, 1),
    freedoms=st.lists(st.sampled_from(FREEDOMS), unique=True, max_size=2),
    landscapes=st.lists(st.sampled_from(sorted(LANDSCAPE_SPOTS)), unique=True),
    building=st.sampled_from([None, "laboratory", "library", "tower"]),
    cards=st.lists(st.sampled_from(list(BONUS_CARDS)), unique=True, max_size=6),
)
def test_the_publish_listing_allows_exactly_what_the_exhaustive_one_listed(
    round_: int, jugglers: int, enticements: int, freedoms: list[str], landscapes: list[str], building: str | None,
    cards: list[str],
) -> None:
    """One work per profession plus its fill allows the very (profession, cards) pairs that listing every
    set of cards did, and the rules accept exactly those; each card adds what the fill says."""
    state = edit(PHASE_B)
    state["round"] = round_
    state = give(state, 0, jugglers=jugglers, enticements=enticements, freedoms=freedoms, bonus_cards=cards,
                 landscapes=[(kind, LANDSCAPE_SPOTS[kind]) for kind in landscapes])
    if building:
        state = give(state, 0, buildings=[(building, yard.legal_placements(state["players"][0], building)[0])])
    me, least = state["players"][0], MIN_WORK_VALUE[round_ - 1]
    subsets = [frozenset(s) for n in range(len(cards) + 1) for s in combinations(cards, n)]
    exhaustive = {(p, s) for p in me["private"]["hand"] for s in subsets
                  if scoring.work_value(me, p, sorted(s)) >= least}  # what the old listing enumerated

    allowed = set()
    for move in GAME.legal_moves(state, 0):
        if move["type"] != "publish":
            continue
        fills = GAME.fill(state, 0, move)
        if not cards:
            assert fills == [] and move["bonus_cards"] == []
            allowed.add((move["profession"], frozenset()))
            continue
        (fill,) = fills
        assert fill["base"] == scoring.work_value(me, move["profession"], []) and fill["least"] == least
        for choice in fill["choices"]:
            alone = scoring.work_value(me, move["profession"], [choice["value"]])
            assert choice["adds"] == alone - fill["base"]
        allowed |= {(move["profession"], s) for s in subsets if filled(move, fill, sorted(s)) is not None}
    assert allowed == exhaustive

    for profession in me["private"]["hand"]:
        for s in subsets:
            try:
                GAME.apply(state, 0, {"type": "publish", "profession": profession, "bonus_cards": sorted(s)})
            except IllegalMove as refused:
                assert refused.code == "work_too_weak" and (profession, s) not in exhaustive
            else:
                assert (profession, s) in exhaustive
