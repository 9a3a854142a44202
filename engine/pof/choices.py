"""Decisions that follow a purchase or a deal: keep professions, place a landscape, choose a card,
use an enticement card, split a payout."""
from __future__ import annotations

from itertools import combinations, compress, permutations

from engine.core import Event, IllegalMove, Move, State
from engine.pof import yard
from engine.pof.data import ECONOMY, LANDSCAPES
from engine.pof.table import add, decision_of, player, put_under, resolve, take
from engine.pof.words import name, names

KEPT = ECONOMY["start_professions_kept"]
PRESTIGE_PER_EXTRA_LANDSCAPE = ECONOMY["prestige_per_extra_landscape_of_a_type"]


def legal_moves(state: State, seat: int, kind: str) -> list[Move]:
    decision = decision_of(state, seat)
    if kind == "keep_professions":
        dealt = decision["private"]["dealt"]
        return [{"type": "keep_professions", "professions": list(kept)} for kept in combinations(dealt, KEPT)]
    if kind == "place_landscape":
        landscape = decision["landscape"]
        moves = list(compress(PLACE_MOVES[landscape], yard.placement_selection(player(state, seat), landscape)))
        moves.append({"type": "discard_landscape"})
        return moves
    if kind == "choose_card":
        shown = decision["private"]["cards"]
        return [
            {"type": "choose_card", "card": card, "return_order": list(order)}
            for card in shown
            for order in permutations([c for c in shown if c != card])
        ]
    if kind == "use_enticement":
        return [{"type": "keep_enticement"}]  # the entice moves are listed at every decision (rules.py)
    if kind == "split_payout":
        return [{"type": "split_payout", "prestige": points} for points in range(_max_prestige(decision) + 1)]
    raise AssertionError(kind)


# Every placement of every landscape as a move, made once and shared like `actions.BUILD_MOVES`.
PLACE_MOVES: dict[str, tuple[Move, ...]] = {
    kind: tuple({"type": "place_landscape", "squares": squares} for squares in yard.squares_of((kind,)))
    for kind in LANDSCAPES
}


def keep_professions(state: State, seat: int, move: Move, events: list[Event]) -> None:
    dealt = decision_of(state, seat)["private"]["dealt"]
    kept = move["professions"]
    if len(kept) != KEPT or len(set(kept)) != KEPT or not set(kept) <= set(dealt):
        raise IllegalMove("bad_choice", f"keep exactly {KEPT} different professions of those dealt: {names(dealt)}")
    returned = [card for card in dealt if card not in kept]
    resolve(state, seat)
    player(state, seat)["private"]["hand"] = list(kept)
    state["secret"]["returned"][str(seat)] = returned
    events.append({"type": "professions_kept", "seat": seat, "private": {"kept": kept, "returned": returned}})
    if not state["pending"]:
        returned = state["secret"]["returned"]
        for other in range(len(state["players"])):
            put_under(state, "professions", returned.pop(str(other)))


def place_landscape(state: State, seat: int, move: Move, events: list[Event]) -> None:
    owner = player(state, seat)
    kind = decision_of(state, seat)["landscape"]
    squares = yard.check_placement(owner, kind, move["squares"])
    resolve(state, seat)
    repeat = any(placed["kind"] == kind for placed in owner["landscapes"])
    add(owner, "landscapes", {"kind": kind, "squares": squares})
    events.append({"type": "landscape_placed", "seat": seat, "kind": kind, "squares": squares})
    if repeat:
        owner["prestige"] += PRESTIGE_PER_EXTRA_LANDSCAPE
        events.append({"type": "prestige_gained", "seat": seat, "points": PRESTIGE_PER_EXTRA_LANDSCAPE,
                       "reason": f"another {name(kind)}"})


def discard_landscape(state: State, seat: int, move: Move, events: list[Event]) -> None:
    kind = decision_of(state, seat)["landscape"]
    resolve(state, seat)
    events.append({"type": "landscape_discarded", "seat": seat, "kind": kind, "reason": "thrown away"})


def choose_card(state: State, seat: int, move: Move, events: list[Event]) -> None:
    decision = decision_of(state, seat)
    shown, deck = decision["private"]["cards"], decision["deck"]
    rest = [card for card in shown if card != move["card"]]
    if move["card"] not in shown:
        raise IllegalMove("bad_choice", f"choose one of the cards shown: {names(shown)}")
    if sorted(move["return_order"]) != sorted(rest) or len(set(move["return_order"])) != len(rest):
        raise IllegalMove("bad_order", f"give back each card you do not keep, once: {names(rest)}")
    resolve(state, seat)
    hand = {"professions": "hand", "bonus_cards": "bonus_cards", "prestige_cards": "prestige_cards"}[deck]
    add(player(state, seat)["private"], hand, move["card"])
    put_under(state, deck, move["return_order"])
    events.append({"type": "card_chosen", "seat": seat, "deck": deck,
                   "private": {"card": move["card"], "returned": move["return_order"]}})


def entice_targets(state: State, seat: int) -> list[tuple[int, str]]:
    """(owner, profession) pairs the seat may entice: professions that published for an opponent."""
    if player(state, seat)["private"]["enticements"] < 1:
        return []
    return [(other["seat"], p) for other in state["players"] if other["seat"] != seat for p in other["played"]]


def entice_moves(state: State, seat: int) -> list[Move]:
    return [{"type": "entice", "profession": profession} for _, profession in entice_targets(state, seat)]


def entice(state: State, seat: int, move: Move, events: list[Event]) -> None:
    """The profession joins the seat's hand unplayed; its former owner receives the used card.

    Free at any of the seat's decisions: it answers a use_enticement decision, and leaves any other
    pending for the seat to answer still.
    """
    owners = {profession: owner for owner, profession in entice_targets(state, seat)}
    if move["profession"] not in owners:
        raise IllegalMove("bad_target", "entice a profession that has published for an opponent, with an unused card")
    owner, enticer = player(state, owners[move["profession"]]), player(state, seat)
    if decision_of(state, seat)["kind"] == "use_enticement":
        resolve(state, seat)
    take(owner, "played", move["profession"])
    owner["enticements_received"] += 1
    enticer["private"]["enticements"] -= 1
    add(enticer["private"], "hand", move["profession"])
    events.append({"type": "enticed", "seat": seat, "from_seat": owner["seat"], "profession": move["profession"]})


def keep_enticement(state: State, seat: int, move: Move, events: list[Event]) -> None:
    resolve(state, seat)
    events.append({"type": "enticement_kept", "seat": seat})


def split_payout(state: State, seat: int, move: Move, events: list[Event]) -> None:
    decision = decision_of(state, seat)
    points, most = move["prestige"], _max_prestige(decision)
    if not 0 <= points <= most:
        raise IllegalMove("bad_points", f"take 0 to {most} prestige points from this payout")
    florins = decision["payout"] - points * ECONOMY["florins_per_prestige_when_publishing"]
    resolve(state, seat)
    earner = player(state, seat)
    earner["prestige"] += points
    earner["private"]["cash"] += florins
    events.append({"type": "payout_split", "seat": seat, "prestige": points, "florins": florins})


def _max_prestige(decision: dict) -> int:
    return decision["payout"] // ECONOMY["florins_per_prestige_when_publishing"]
