"""The bots: legal, complete games, greedy clearly better than random, and blind to hidden information."""
from __future__ import annotations

import random

import pytest

from engine import IllegalMove, copy_state, get_game
from engine.core import filled
from engine.bots import BOTS, choose_move
from engine.bots.play import play_game
from engine.pof.data import BONUS_CARDS, PRESTIGE_CARDS, PROFESSIONS
from tests.rules_helpers import edit, give, keep_all, new_game, to_actions

GAME = get_game("princes-of-florence")


def _new(seats: int, seed: int, **options):
    options = GAME.normalize_options({"seats": seats, **options})
    return options, GAME.make_setup(options, seed)


def _listed_or_filled(state, seat, move) -> bool:
    """Whether `move` is a listed move, or one with its fill field filled in as the fill allows."""
    for listed in GAME.legal_moves(state, seat):
        if move == listed:
            return True
        for fill in GAME.fill(state, seat, listed):
            if filled(listed, fill, move.get(fill["field"], [])) == move:
                return True
    return False


def test_the_random_bot_only_picks_legal_moves():
    for seed in range(3):
        options, setup = _new(4, seed, bidding="open", auction_pass=True)
        state, rng = GAME.new_state(options, setup), random.Random(seed)
        while GAME.result(state) is None:
            seat = GAME.pending(state)[0]["seat"]
            move = choose_move("random", GAME, state, seat, rng)
            assert _listed_or_filled(state, seat, move)
            state, _ = GAME.apply(state, seat, move)


def _publishing_position(round_: int, jugglers: int, cards: list[str]) -> dict:
    """Seat 0 to act in Phase B of round `round_`, with no cash: it may only publish or end its turn."""
    state = edit(to_actions(keep_all(new_game(4))))  # seat 0 holds alchemist, botanist, physicist
    state["round"] = round_
    return give(state, 0, jugglers=jugglers, cash=0, bonus_cards=cards)


def test_the_random_bot_fills_in_bonus_cards_at_random_too():
    state = _publishing_position(1, 2, ["per_juggler", "per_freedom", "per_card_in_hand"])
    listed = GAME.legal_moves(state, 0)
    works = set()
    for seed in range(200):
        move = choose_move("random", GAME, state, 0, random.Random(seed))
        assert _listed_or_filled(state, 0, move)
        if move["type"] == "publish":
            works.add((move["profession"], tuple(move["bonus_cards"])))
    assert len(works) == 3 * 2 ** 3  # every profession with every set of cards: each reaches 7 alone
    assert sum(1 for m in listed if m["type"] == "publish") == 3


def test_greedy_publishes_with_every_card_that_raises_the_work():
    state = _publishing_position(5, 2, ["per_juggler", "per_freedom", "per_card_in_hand", "per_juggler_and_freedom",
                                        "per_work_published", "per_category", "per_lake"])
    # 3 person cards + 2 jugglers x 2 = 7; the cards add 4, 0, 2, 2, 1, 1, 0: the listing carries the
    # three biggest (15, round 5's minimum), greedy every card that adds something (17)
    listed = [m for m in GAME.legal_moves(state, 0) if m["type"] == "publish"]
    assert [len(m["bonus_cards"]) for m in listed] == [3, 3, 3]
    move = choose_move("greedy", GAME, state, 0, random.Random(0))
    assert move["type"] == "publish"
    assert sorted(move["bonus_cards"]) == sorted(["per_juggler", "per_card_in_hand", "per_juggler_and_freedom",
                                                  "per_work_published", "per_category"])


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_greedy_plays_whole_games(seats):
    for seed, bidding in ((seats, "step"), (seats + 10, "open")):
        options, setup = _new(seats, seed, bidding=bidding)
        state, moves = play_game(GAME, options, setup, ["greedy"] * seats, seed)
        assert GAME.result(state) is not None and len(moves) > 100


def test_greedy_clearly_beats_random():
    """1 greedy and 4 random, greedy moving one seat on each game: a fair share would be 20%."""
    games, wins = 40, 0
    for seed in range(games):
        bots = ["random"] * 5
        bots[seed % 5] = "greedy"
        options, setup = _new(5, seed)
        state, _ = play_game(GAME, options, setup, bots, seed)
        wins += (seed % 5) in GAME.result(state)["winners"]
    assert wins / games >= 0.6


def test_play_game_is_deterministic_and_replays():
    options, setup = _new(3, 5)
    first, moves = play_game(GAME, options, setup, ["greedy", "random", "random"], 5)
    second, again = play_game(GAME, options, setup, ["greedy", "random", "random"], 5)
    assert moves == again and first == second
    state = GAME.new_state(options, setup)
    for entry in moves:
        state, _ = GAME.apply(state, entry["seat"], entry["move"])
    assert state == first


def _scramble_hidden(state, seat):
    """The same game as `seat` sees it, with everything hidden from that seat changed (sizes kept)."""
    state = copy_state(state)
    for other in state["players"]:
        if other["seat"] != seat:
            private = other["private"]
            private["cash"] += 1000
            for key, names in (("hand", PROFESSIONS), ("bonus_cards", BONUS_CARDS), ("prestige_cards", PRESTIGE_CARDS)):
                private[key] = sorted(names, reverse=True)[: len(private[key])]
    for name, deck in state["secret"]["decks"].items():
        state["secret"]["decks"][name] = deck[::-1]
    for decision in state["pending"]:
        if decision["seat"] != seat and "private" in decision:
            decision["private"] = {key: value[::-1] for key, value in decision["private"].items()}
    return state


@pytest.mark.parametrize("bot", [bot for bot in BOTS if not bot.startswith("search")])  # tests/test_search_bot.py
def test_bots_decide_from_what_their_seat_may_see(bot):
    options, setup = _new(4, 3)
    state = GAME.new_state(options, setup)
    rng = random.Random(0)
    for step in range(400):
        if GAME.result(state) is not None:
            break
        for pending in GAME.pending(state):
            seat = pending["seat"]
            seen = choose_move(bot, GAME, state, seat, random.Random(step))
            assert choose_move(bot, GAME, _scramble_hidden(state, seat), seat, random.Random(step)) == seen
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move("greedy" if step % 2 else "random", GAME, state, seat, rng))


def test_unknown_bots_are_refused():
    options, setup = _new(3, 0)
    with pytest.raises(IllegalMove) as refused:
        choose_move("clever", GAME, GAME.new_state(options, setup), 0, random.Random(0))
    assert refused.value.code == "unknown_bot"
    with pytest.raises(IllegalMove):
        play_game(GAME, options, setup, ["greedy", "greedy", "nobody"], 0)


def test_greedy_counts_a_professions_worth_as_each_new_hand_would():
    """`_profession_worth` is the mean `_gain` of every hand with one profession more, counted once."""
    from statistics import mean
    from engine.bots import greedy
    options, setup = _new(4, 8)
    state, rng, checked = GAME.new_state(options, setup), random.Random(8), 0
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        view = GAME.view(state, seat)
        me = view["players"][seat]
        if me["private"]["hand"]:
            asked = mean(greedy._gain(view, me, greedy._with(me, private_hand=me["private"]["hand"] + [p]))
                         for p in PROFESSIONS)
            assert greedy._profession_worth(view, me) == asked
            checked += 1
        state, _ = GAME.apply(state, seat, choose_move("greedy", GAME, state, seat, rng))
    assert checked > 100


def test_greedy_values_a_bonus_card_by_the_best_work_of_its_hand():
    """`best_use` asks one profession of the hand what a card adds: the most any profession of it gets."""
    from engine.bots import greedy
    from engine.pof import scoring
    options, setup = _new(4, 9)
    state, rng, checked = GAME.new_state(options, setup), random.Random(9), 0
    while GAME.result(state) is None:
        seat = GAME.pending(state)[0]["seat"]
        me = GAME.view(state, seat)["players"][seat]
        counts = scoring.court(me)
        for card in BONUS_CARDS:
            asked = max((scoring.bonus_value(card, me, p, counts) for p in me["private"]["hand"]), default=0)
            assert greedy.best_use(me, card, counts) == asked
            checked += 1
        state, _ = GAME.apply(state, seat, choose_move("greedy", GAME, state, seat, rng))
    assert checked > 1000
