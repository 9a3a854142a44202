"""Phase B: in table order from the start player, each seat takes up to two actions.

``state["turn"]`` is the seat whose turn it is, the actions taken, and the once-a-turn purchases used.
The round ends after the last turn: best work of the round, then the next auction or the final score.
"""
from __future__ import annotations

from itertools import compress

from engine.core import Event, Fill, IllegalMove, Move, State
from engine.pof import auction, orders, scoring, yard
from engine.pof.data import BUILDINGS, ECONOMY, FREEDOMS, MIN_WORK_VALUE, ROUNDS
from engine.pof.table import add, deck_size, decide, draw, player, resolve, spend, take
from engine.pof.words import name

ACTIONS_PER_TURN = ECONOMY["actions_per_turn"]


def start(state: State, events: list[Event]) -> None:
    state["phase"] = "actions"
    state["auction"] = None
    _begin_turn(state, state["start_player"])


def step(state: State, events: list[Event]) -> None:
    """Ask the seat in turn for an action, pass the turn on, or end the round."""
    turn = state["turn"]
    if turn["actions"] < ACTIONS_PER_TURN and not turn["ended"]:
        decide(state, turn["seat"], "action")
        return
    events.append({"type": "turn_ended", "seat": turn["seat"]})
    following = (turn["seat"] + 1) % len(state["players"])
    if following == state["start_player"]:
        _end_round(state, events)
    else:
        _begin_turn(state, following)


def legal_moves(state: State, seat: int) -> list[Move]:
    purchases, builds, rest = listing(state, seat)
    return purchases + list(compress(BUILD_MOVES, builds)) + rest


def listing(state: State, seat: int) -> tuple[list[Move], bytes, list[Move]]:
    """The seat's actions in `legal_moves` order, in three parts: the purchases, one byte per move of
    BUILD_MOVES (1 for a legal build), then the works and end_turn. Up to ~900 builds are legal early in
    a game; a random playout counts them (`engine.pof.fast`) rather than listing them."""
    me, turn = player(state, seat), state["turn"]
    cash = me["private"]["cash"]
    moves: list[Move] = []
    if not turn["freedom"] and cash >= ECONOMY["price_freedom"]:
        moves += [{"type": "buy_freedom", "freedom": f} for f in FREEDOMS if _freedom_open(state, seat, f)]
    if not turn["profession"] and cash >= ECONOMY["price_profession"] and deck_size(state, "professions"):
        moves.append({"type": "buy_profession"})
    if cash >= ECONOMY["price_bonus_card"] and deck_size(state, "bonus_cards"):
        moves.append({"type": "buy_bonus_card"})
    builds = b""
    if cash >= building_price(me):
        owned, left = {b["kind"] for b in me["buildings"]}, state["supply"]["buildings"]
        kinds = [kind for kind in BUILDING_KINDS if kind not in owned and left[kind] > 0]  # as _building_open
        if kinds:
            forbidden = yard.forbidden_mask(me, kinds[0])  # the same for every building kind
            builds = yard.selection(BUILDING_KINDS, kinds, forbidden)
    rest = _publish_moves(state, seat)
    rest.append({"type": "end_turn"})
    return moves, builds, rest


# Every build move there is, made once, in `yard.squares_of(BUILDING_KINDS)` order; listing picks out
# the legal ones (`yard.selection`) and shares them, like their squares: moves are data nobody mutates.
BUILDING_KINDS = tuple(BUILDINGS)
BUILD_MOVES: tuple[Move, ...] = tuple(
    {"type": "build", "building": kind, "squares": squares} for kind in BUILDING_KINDS for squares in yard.squares_of((kind,))
)


def building_price(me: dict) -> int:
    prices = ECONOMY["price_building_by_architects"]
    return prices[min(me["architects"], len(prices) - 1)]


def buy_freedom(state: State, seat: int, move: Move, events: list[Event]) -> None:
    freedom = move["freedom"]
    if freedom not in FREEDOMS:
        raise IllegalMove("unknown_freedom", f"{freedom!r} is not a freedom; freedoms: {FREEDOMS}")
    _once_a_turn(state, "freedom")
    if not _freedom_open(state, seat, freedom):
        raise IllegalMove("freedom_unavailable", f"you own the freedom of {name(freedom)} already, or none is left")
    spend(state, seat, ECONOMY["price_freedom"])
    state["supply"]["freedoms"][freedom] -= 1
    add(player(state, seat), "freedoms", freedom)
    _took_action(state, seat, events, {"type": "freedom_bought", "seat": seat, "freedom": freedom})


def buy_profession(state: State, seat: int, move: Move, events: list[Event]) -> None:
    _once_a_turn(state, "profession")
    _buy_card(state, seat, "professions", ECONOMY["price_profession"], events)


def buy_bonus_card(state: State, seat: int, move: Move, events: list[Event]) -> None:
    _buy_card(state, seat, "bonus_cards", ECONOMY["price_bonus_card"], events)


def build(state: State, seat: int, move: Move, events: list[Event]) -> None:
    kind, me = move["building"], player(state, seat)
    if kind not in BUILDINGS:
        raise IllegalMove("unknown_building", f"{kind!r} is not a building; buildings: {sorted(BUILDINGS)}")
    if not _building_open(state, seat, kind):
        raise IllegalMove("building_unavailable", f"you have a {name(kind)} already, or none is left")
    squares = yard.check_placement(me, kind, move["squares"])
    spend(state, seat, building_price(me))
    state["supply"]["buildings"][kind] -= 1
    add(me, "buildings", {"kind": kind, "squares": squares})
    me["prestige"] += ECONOMY["prestige_per_building"]
    _took_action(state, seat, events, {"type": "built", "seat": seat, "building": kind, "squares": squares})


def publish(state: State, seat: int, move: Move, events: list[Event]) -> None:
    me = player(state, seat)
    profession, cards = move["profession"], move["bonus_cards"]
    if profession not in me["private"]["hand"]:
        raise IllegalMove("not_in_hand", f"the {name(profession)} is not an unplayed profession in your hand")
    if len(set(cards)) != len(cards) or not set(cards) <= set(me["private"]["bonus_cards"]):
        raise IllegalMove("bad_bonus_cards", "add only bonus cards you hold, each once")
    value = scoring.work_value(me, profession, cards)
    least = MIN_WORK_VALUE[state["round"] - 1]
    if value < least:
        raise IllegalMove("work_too_weak", f"this work is worth {value}; round {state['round']} needs {least}")
    take(me["private"], "hand", profession)
    me["private"]["bonus_cards"] = [card for card in me["private"]["bonus_cards"] if card not in cards]
    add(me, "played", profession)
    add(me, "works", {"profession": profession, "value": value, "round": state["round"], "bonus_cards": cards})
    payout = value * ECONOMY["florins_per_work_point"]
    _took_action(state, seat, events, {"type": "work_published", "seat": seat, "profession": profession,
                                       "value": value, "bonus_cards": cards})
    decide(state, seat, "split_payout", payout=payout)


def end_turn(state: State, seat: int, move: Move, events: list[Event]) -> None:
    resolve(state, seat)
    state["turn"]["ended"] = True


def _begin_turn(state: State, seat: int) -> None:
    state["turn"] = {"seat": seat, "actions": 0, "freedom": False, "profession": False, "ended": False}


def _took_action(state: State, seat: int, events: list[Event], event: Event) -> None:
    resolve(state, seat)
    state["turn"]["actions"] += 1
    events.append(event)


def _once_a_turn(state: State, what: str) -> None:
    if state["turn"][what]:
        raise IllegalMove("once_a_turn", f"you may buy only one {what} a turn")
    state["turn"][what] = True


def _buy_card(state: State, seat: int, deck: str, price: int, events: list[Event]) -> None:
    if not deck_size(state, deck):
        raise IllegalMove("deck_empty", f"the {name(deck)} is empty")
    spend(state, seat, price)
    shown = draw(state, deck, ECONOMY["cards_shown_when_choosing"])
    _took_action(state, seat, events, {"type": "card_bought", "seat": seat, "deck": deck})
    decide(state, seat, "choose_card", deck=deck, private={"cards": shown})


def _freedom_open(state: State, seat: int, freedom: str) -> bool:
    return freedom not in player(state, seat)["freedoms"] and state["supply"]["freedoms"][freedom] > 0


def _building_open(state: State, seat: int, kind: str) -> bool:
    """A copy is left and the seat has none; whether it fits is the yard's question."""
    owned = any(b["kind"] == kind for b in player(state, seat)["buildings"])
    return not owned and state["supply"]["buildings"][kind] > 0


def _publish_moves(state: State, seat: int) -> list[Move]:
    """One publish per profession in hand that can reach the round's minimum (see `publish_fills`).

    It carries no bonus card when the profession reaches the minimum alone, else the fewest that do,
    the biggest first. Listing every set of cards instead would grow as 2^cards (6 million at 20).
    """
    me = player(state, seat)
    least = MIN_WORK_VALUE[state["round"] - 1]
    held = me["private"]["bonus_cards"]
    c = None  # the court, counted only for a work that needs cards to reach the minimum
    moves: list[Move] = []
    hand = me["private"]["hand"]
    for profession, value in zip(hand, scoring.work_values(me, hand)):
        if value >= least:
            moves.append({"type": "publish", "profession": profession, "bonus_cards": []})
        elif held:
            c = c or scoring.court(me)
            cards: list[str] = []
            adds = [(scoring.bonus_value(card, me, profession, c), card) for card in held]
            for extra, card in sorted(adds, key=lambda pair: -pair[0]):
                value += extra
                cards.append(card)
                if value >= least:
                    moves.append({"type": "publish", "profession": profession, "bonus_cards": cards})
                    break
    return moves


def publish_fills(state: State, seat: int, profession: str) -> list[Fill]:
    """The bonus cards a listed publish may carry instead, and what each adds (`engine.core.Fillable`).

    Any set of them is legal whose adds, with the work's value without cards, reach the round's
    minimum, since each card adds its own value whatever goes with it (`scoring.work_value`).
    """
    me = player(state, seat)
    held = me["private"]["bonus_cards"]
    if not held or profession not in me["private"]["hand"]:
        return []
    c = scoring.court(me)
    return [{
        "field": "bonus_cards",
        "choices": [{"value": card, "adds": scoring.bonus_value(card, me, profession, c)} for card in held],
        "base": scoring.work_value(me, profession, [], c),
        "least": MIN_WORK_VALUE[state["round"] - 1],
        "measure": "work value",
    }]


def _end_round(state: State, events: list[Event]) -> None:
    """Best work of the round (+3 PP to every seat that reached it), then the next round or the end."""
    this_round = [(w["value"], p["seat"]) for p in state["players"] for w in p["works"] if w["round"] == state["round"]]
    if this_round:
        best = max(value for value, _ in this_round)
        seats = sorted({seat for value, seat in this_round if value == best})
        for seat in seats:
            player(state, seat)["prestige"] += ECONOMY["prestige_for_best_work"]
        events.append({"type": "best_work", "round": state["round"], "value": best, "seats": seats,
                       "points": ECONOMY["prestige_for_best_work"]})
    orders.expire(state)
    state["turn"] = None
    if state["round"] == ROUNDS:
        _end_game(state, events)
        return
    state["round"] += 1
    state["start_player"] = (state["start_player"] + 1) % len(state["players"])
    auction.start(state, events)


def _end_game(state: State, events: list[Event]) -> None:
    """Score the prestige cards; each seat's public prestige becomes its final score, as the result says."""
    state["phase"] = "over"
    state["result"] = scoring.final_result(state["players"])
    for score in state["result"]["scores"]:
        player(state, score["seat"])["prestige"] = score["prestige"]
    events.append({"type": "game_over", "result": state["result"]})
