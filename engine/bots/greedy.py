"""The greedy bot: a Princes of Florence heuristic that grows its court around the professions it holds.

It values everything in florins: a prestige point at 200 (what publishing charges for one) and a
point of work value at 150 (its 100 payout plus a share of meeting minimums and best-work prestige).
It looks one step ahead only, and sees only its own view of the game.
"""
from __future__ import annotations

import random
from itertools import combinations
from typing import Any, Callable

from engine.core import Game, IllegalMove, Move, State, filled, fills
from engine.pof import scoring, yard
from engine.pof.data import BONUS_CARDS, ECONOMY, PROFESSIONS, ROUNDS, WORK_VALUE
from engine.pof.actions import building_price

Player = dict[str, Any]
View = dict[str, Any]
PP = ECONOMY["florins_per_prestige_when_publishing"]
WORK_POINT = 150
PRESTIGE_CARD = 700  # the best of five usually scores 5-8 PP, but only if the court earns it
RESERVE = 400  # cash kept through Phase B for the next auction
IMPROVEMENTS = ("build", "buy_freedom", "buy_profession", "buy_bonus_card")


def choose(game: Game, state: State, seat: int, rng: random.Random) -> Move:
    if game.name != "princes-of-florence":
        raise IllegalMove("unknown_bot", f"the greedy bot plays only princes-of-florence, not {game.name}")
    return decide(game, state, seat, game.view(state, seat), rng)


def decide(game: Game, state: State, seat: int, view: View, rng: random.Random) -> Move:
    """`choose` from a view already at hand: a search bot's playouts, on a state made up whole, pass
    the state itself (with `min_work_value`), sparing a redaction per move."""
    me = view["players"][seat]
    decision = next(d for d in view["pending"] if d["seat"] == seat)
    moves = game.legal_moves(state, seat)
    entice = _best([m for m in moves if m["type"] == "entice"], lambda m: entice_value(me, m), rng)
    if entice and entice_value(me, entice) >= view["min_work_value"]:
        return entice  # free at any decision: a profession that can publish is worth taking at once
    answers = [fill_fully(game, state, seat, m) for m in moves if m["type"] != "entice"]
    return _DECIDE[decision["kind"]](view, me, decision, answers, rng)


def fill_fully(game: Game, state: State, seat: int, move: Move) -> Move:
    """The listed move with every choice that adds something: a work with every bonus card that raises it."""
    if move["type"] != "publish":
        return move  # the only move with fields to fill in; asking for the others costs time
    for fill in fills(game, state, seat, move):
        move = filled(move, fill, [choice["value"] for choice in fill["choices"] if choice["adds"] > 0]) or move
    return move


def _with(me: Player, **changes: Any) -> Player:
    """A hypothetical court: `me` with some public fields or private fields (prefixed `private_`) changed."""
    private = {**me["private"], **{k[8:]: v for k, v in changes.items() if k.startswith("private_")}}
    return {**me, **{k: v for k, v in changes.items() if not k.startswith("private_")}, "private": private}


def potential(view: View, me: Player) -> int:
    """Work points the best unplayed professions would publish, one a round for the rounds left."""
    values = sorted(scoring.work_values(me, me["private"]["hand"]), reverse=True)
    return sum(values[: ROUNDS - view["round"] + 1])


def _gain(view: View, me: Player, after: Player) -> int:
    return WORK_POINT * (potential(view, after) - potential(view, me))


def _best(moves: list[Move], score: Callable[[Move], Any], rng: random.Random) -> Move | None:
    """The best-scoring move, ties broken by the bot's generator; None for no moves."""
    return max(moves, key=lambda move: (score(move), rng.random()), default=None)


def keep_professions(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    """Keep the three professions that share the most preferences, so each purchase serves several."""
    def synergy(move: Move) -> int:
        return sum(
            WORK_VALUE[pref] * (PROFESSIONS[a][pref] == PROFESSIONS[b][pref])
            for a, b in combinations(move["professions"], 2)
            for pref in ("building", "landscape", "freedom")
        )
    return _best(moves, synergy, rng)


def item_value(view: View, me: Player, item: str) -> int:
    """What an auction item is worth to this court, in florins."""
    if item in ("woods", "lake", "park"):
        spots = yard.legal_placements(me, item)
        if not spots:
            return 0
        repeat = any(tile["kind"] == item for tile in me["landscapes"])
        after = _with(me, landscapes=me["landscapes"] + [{"kind": item, "squares": spots[0]}])
        return _gain(view, me, after) + ECONOMY["prestige_per_extra_landscape_of_a_type"] * PP * repeat + 100
    if item == "juggler":
        return _gain(view, me, _with(me, jugglers=me["jugglers"] + 1))
    if item == "architect":
        bonus = ECONOMY["prestige_for_2nd_and_3rd_architect"] * PP if me["architects"] >= 1 else 0
        saving = building_price(me) - building_price(_with(me, architects=me["architects"] + 1))
        return bonus + saving * len(_wanted_buildings(me))
    if item == "enticement":
        after = _with(me, private_enticements=me["private"]["enticements"] + 1)
        targets = [p for other in view["players"] if other["seat"] != me["seat"] for p in other["played"]]
        best = max((scoring.work_value(me, p, []) for p in targets), default=0)
        return _gain(view, me, after) + WORK_POINT * best // 2
    return PRESTIGE_CARD


def _wanted_buildings(me: Player) -> set[str]:
    owned = {b["kind"] for b in me["buildings"]}
    return {PROFESSIONS[p]["building"] for p in me["private"]["hand"]} - owned


def budget(view: View, me: Player, item: str) -> int:
    """The most to bid: the item's worth, never eating into the cash kept for Phase B."""
    return min(item_value(view, me, item), me["private"]["cash"] - RESERVE)


def open_auction(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    return _best(moves, lambda m: item_value(view, me, m["item"]) if m["type"] == "open_auction" else 0, rng)


def bid(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    limit = budget(view, me, view["auction"]["lot"]["item"])
    bids = [m for m in moves if m["type"] == "bid" and m["amount"] <= limit]
    return bids[0] if bids else {"type": "step_out"}


def place_landscape(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    return moves[0]


def choose_card(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    """Keep the card that fits the court best; the rest go back in the order shown."""
    shown, deck = decision["private"]["cards"], decision["deck"]
    if deck == "professions":
        value = {card: scoring.work_value(me, card, []) for card in shown}
    elif deck == "bonus_cards":
        counts = scoring.court(me)
        value = {card: best_use(me, card, counts) for card in shown}
    else:
        players = view["players"]
        value = {}
        for card in shown:
            trial = [_with(me, private_prestige_cards=[card]) if p is me else p for p in players]
            value[card] = scoring.prestige_card_points(trial)[me["seat"]][0]["points"]
    card = max(shown, key=lambda c: (value[c], rng.random()))
    return {"type": "choose_card", "card": card, "return_order": [c for c in shown if c != card]}


def best_use(me: Player, card: str, counts: scoring.Court) -> int:
    """What a bonus card would add to the best work of the hand (0 with none in hand).

    A card adds the same to every work of the hand: only `per_card_in_hand` looks at the profession,
    and only to leave out the one publishing, which is in the hand. So the first profession tells
    what the card adds to each, in one call where asking every profession took one per card in hand.
    """
    hand = me["private"]["hand"]
    return scoring.bonus_value(card, me, hand[0], counts) if hand else 0


def entice_value(me: Player, move: Move) -> int:
    return scoring.work_value(me, move["profession"], [])


def use_enticement(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    """`choose` has used the card already if any profession was worth it."""
    return {"type": "keep_enticement"}


def split_payout(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    """Florins while there are rounds to spend them in, prestige late: keep what the rest of the game needs."""
    need = 800 * (ROUNDS - view["round"]) + (RESERVE if view["turn"]["actions"] < 2 else 0)
    spare = me["private"]["cash"] + decision["payout"] - need
    return {"type": "split_payout", "prestige": max(0, min(spare // PP, len(moves) - 1))}


def _mean(values: list[int]) -> float:
    """The mean of integers, correctly rounded as statistics.mean gives it, at a fraction of its cost."""
    return sum(values) / len(values)


def _profession_worth(view: View, me: Player) -> float:
    """The mean `_gain` of one more profession in hand, over every profession: the same figure as
    asking `potential` of each new hand, counted once (a card in hand adds a person card to every work)."""
    best = ROUNDS - view["round"] + 1
    values = scoring.work_values(me, me["private"]["hand"])
    now = sum(sorted(values, reverse=True)[:best])
    person = WORK_VALUE["per_person_card"]
    raised = [value + person for value in values]
    return _mean([WORK_POINT * (sum(sorted([*raised, value + person], reverse=True)[:best]) - now)
                  for value in scoring.work_values(me, PROFESSIONS)])


def improvement_value(view: View, me: Player, move: Move) -> int:
    """What an action that improves the court is worth, net of its price, in florins."""
    kind, cash = move["type"], me["private"]["cash"]
    if kind == "build":
        after = _with(me, buildings=me["buildings"] + [{"kind": move["building"], "squares": move["squares"]}])
        price = building_price(me)
        worth = _gain(view, me, after) + ECONOMY["prestige_per_building"] * PP
    elif kind == "buy_freedom":
        price = ECONOMY["price_freedom"]
        worth = _gain(view, me, _with(me, freedoms=me["freedoms"] + [move["freedom"]]))
    elif kind == "buy_profession":
        price = ECONOMY["price_profession"]
        worth = _profession_worth(view, me)
    else:
        price = ECONOMY["price_bonus_card"]
        counts = scoring.court(me)  # once for all 20 cards
        worth = WORK_POINT * _mean([best_use(me, card, counts) for card in BONUS_CARDS])
    reserve = RESERVE if view["round"] < ROUNDS else 0
    return worth - price if cash - price >= reserve else -1


def action(view: View, me: Player, decision: dict, moves: list[Move], rng: random.Random) -> Move:
    """Improve the court before publishing, publish the most valuable work."""
    works = [m for m in moves if m["type"] == "publish"]
    work = _best(works, lambda m: (scoring.work_value(me, m["profession"], m["bonus_cards"]), -len(m["bonus_cards"])),
                 rng)
    # One build per building kind, on its first legal placement: valuing every spot is slow.
    firsts: dict[tuple, Move] = {}
    for move in moves:
        if move["type"] in IMPROVEMENTS:
            firsts.setdefault((move["type"], move.get("building"), move.get("freedom")), move)
    values = {key: improvement_value(view, me, move) for key, move in firsts.items()}
    best = max((key for key in values if values[key] > 0), key=lambda k: (values[k], rng.random()), default=None)
    improvement = firsts[best] if best else None
    if work and (view["turn"]["actions"] > 0 or improvement is None):
        return work
    return improvement or work or {"type": "end_turn"}


_DECIDE = {
    "keep_professions": keep_professions,
    "open_auction": open_auction,
    "bid": bid,
    "place_landscape": place_landscape,
    "choose_card": choose_card,
    "use_enticement": use_enticement,
    "split_payout": split_payout,
    "action": action,
}
