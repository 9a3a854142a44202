"""Princes of Florence as an `engine.core.Game`: the one entry point to the rules.

`apply` works on a copy (`table.fork`): it checks the move's shape, checks that it answers the seat's pending
decision, lets the move's handler change the copy (a handler raises IllegalMove before the copy is
ever returned), then moves the game on until somebody has a decision to make.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.core import Event, Fill, IllegalMove, Move, State, Viewer, started_under
from engine.pof import actions, auction, choices, orders, setup, view, yard
from engine.pof.moves import MOVE_TYPES, check_shape
from engine.pof.data import ECONOMY, RULES_VERSION
from engine.pof.errors import ERROR_CODES
from engine.pof.grammar import GRAMMAR
from engine.pof.schemas import SCHEMAS
from engine.pof.table import DEADLINE_CLASS, DECISION_KINDS, decision_of, fork, sell_prestige
from engine.pof import words as pof_words

Handler = Callable[[State, int, Move, list[Event]], None]

# move type -> (the decision kinds during which the seat may make it, its handler). Enticing and
# selling prestige are free during any of the seat's own decisions (decisions.md); an entice answers
# only a use_enticement decision, any other stays pending. Standing orders may be set at any time.
MOVES: dict[str, tuple[tuple[str, ...], Handler]] = {
    "keep_professions": (("keep_professions",), choices.keep_professions),
    "open_auction": (("open_auction",), auction.open_auction),
    "pass_auction": (("open_auction",), auction.pass_auction),
    "bid": (("bid",), auction.bid),
    "step_out": (("bid",), auction.step_out),
    "place_landscape": (("place_landscape",), choices.place_landscape),
    "discard_landscape": (("place_landscape",), choices.discard_landscape),
    "choose_card": (("choose_card",), choices.choose_card),
    "entice": (DECISION_KINDS, choices.entice),
    "keep_enticement": (("use_enticement",), choices.keep_enticement),
    "buy_freedom": (("action",), actions.buy_freedom),
    "buy_profession": (("action",), actions.buy_profession),
    "buy_bonus_card": (("action",), actions.buy_bonus_card),
    "build": (("action",), actions.build),
    "publish": (("action",), actions.publish),
    "split_payout": (("split_payout",), choices.split_payout),
    "end_turn": (("action",), actions.end_turn),
    "sell_prestige": (
        DECISION_KINDS, lambda state, seat, move, events: sell_prestige(state, seat, move["points"], events)
    ),
    "set_orders": ((), orders.set_orders),
}
assert set(MOVES) == set(MOVE_TYPES), "every move of the vocabulary has exactly one handler"


class PrincesOfFlorence:
    name = "princes-of-florence"
    min_seats, max_seats = setup.MIN_SEATS, setup.MAX_SEATS
    move_types = MOVE_TYPES
    schemas = SCHEMAS
    error_codes = ERROR_CODES
    rules_version = RULES_VERSION
    decision_kinds = list(DECISION_KINDS)
    deadline_keys = list(dict.fromkeys([*DECISION_KINDS, *DEADLINE_CLASS.values()]))
    fill_fields = {"publish": "bonus_cards"}  # `engine.core.Fillable`: a publish's bonus cards
    grammar = GRAMMAR  # `engine.core.Grammar`: moves as lines of text, for replies by mail
    words = staticmethod(pof_words.name)  # `engine.core.Worded`: the one table of words (engine/pof/words.py)

    def normalize_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        return setup.normalize_options(options)

    def make_setup(self, options: dict[str, Any], seed: int) -> dict[str, Any]:
        return setup.make_setup(setup.normalize_options(options), seed)

    def new_state(self, options: dict[str, Any], game_setup: dict[str, Any], rules: int | None = None) -> State:
        return started_under(self, setup.new_state(options, game_setup), rules)

    def pending(self, state: State) -> list[dict[str, Any]]:
        return [{"seat": d["seat"], "kind": d["kind"], "deadline": d["deadline"]} for d in state["pending"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The entice moves the seat's enticement card allows (at any of its decisions), then the answers."""
        decision = decision_of(state, seat)
        if decision is None:
            return []
        kind = decision["kind"]
        if kind in ("open_auction", "bid"):
            answers = auction.legal_moves(state, seat, kind)
        elif kind == "action":
            answers = actions.legal_moves(state, seat)
        else:
            answers = choices.legal_moves(state, seat, kind)
        enticing = choices.entice_moves(state, seat)
        return enticing + answers if enticing else answers

    def fill(self, state: State, seat: int, move: Move) -> list[Fill]:
        """`engine.core.Fillable`: a publish lists one work per profession; these say which bonus cards
        may go with it instead, and what each adds to the work's value."""
        if move.get("type") not in self.fill_fields:
            return []
        decision = decision_of(state, seat)
        if decision is None or decision["kind"] != "action":
            return []
        return actions.publish_fills(state, seat, move["profession"])

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        check_shape(move)
        if state["phase"] == "over":
            raise IllegalMove("game_over", "the game is over")
        if not isinstance(seat, int) or not 0 <= seat < len(state["players"]):
            raise IllegalMove("bad_seat", f"there is no seat {seat!r}")
        kinds, handler = MOVES[move["type"]]
        decision = decision_of(state, seat)
        if kinds and (decision is None or decision["kind"] not in kinds):
            waiting = f"you are asked {pof_words.name(decision['kind'])}" if decision else "nothing is waiting for you"
            raise IllegalMove("not_your_decision", f"'{view.describe(move)}' is not an answer now: {waiting}")
        state = fork(state)
        events: list[Event] = []
        handler(state, seat, move, events)
        advance(state, events)
        return state, events

    def default_move(self, state: State, seat: int) -> Move:
        """decisions.md: predictable defaults, applied when a deadline passes."""
        decision = decision_of(state, seat)
        if decision is None:
            raise IllegalMove("not_your_decision", "nothing is waiting for this seat")
        kind = decision["kind"]
        if kind == "keep_professions":
            return {"type": "keep_professions", "professions": decision["private"]["dealt"][:-1]}
        if kind == "open_auction":
            if state["options"]["auction_pass"]:
                return {"type": "pass_auction"}
            return {"type": "open_auction", "item": auction.takeable(state, seat)[0]}
        if kind == "bid":
            return {"type": "step_out"}
        if kind == "place_landscape":
            placements = yard.legal_placements(state["players"][seat], decision["landscape"])
            return {"type": "place_landscape", "squares": placements[0]} if placements else {"type": "discard_landscape"}
        if kind == "choose_card":
            first, *rest = decision["private"]["cards"]
            return {"type": "choose_card", "card": first, "return_order": rest}
        if kind == "split_payout":
            return {"type": "split_payout", "prestige": 0}
        if kind == "use_enticement":
            return {"type": "keep_enticement"}
        return {"type": "end_turn"}

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return view.view(state, viewer)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["result"]

    def standings(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        """`engine.core.Ranked`: each seat's rank and prestige points, from `result`."""
        return [{"seat": s["seat"], "rank": s["rank"], "score": s["prestige"]} for s in result["scores"]]

    def describe(self, move: Move) -> str:
        return view.describe(move)

    def describe_options(self, options: dict[str, Any]) -> list[str]:
        """`engine.core.option_words`: the bidding, passing and seating options in words."""
        step = ECONOMY["auction_step"]
        lines = [f"bids rise by {step}" if options["bidding"] == "step" else f"open bidding, any multiple of {step}"]
        if options["auction_pass"]:
            lines.append("a chooser may pass and buy nothing")
        if options["shuffle_seats"]:
            lines.append("the seating order is drawn")
        return lines


def advance(state: State, events: list[Event]) -> None:
    """Run the game on until a decision is pending or the game is over; phases change only here
    (and at the end of a round, which starts the next auction)."""
    while not state["pending"] and state["phase"] != "over":
        if state["phase"] == "professions":
            auction.start(state, events)
        elif state["phase"] == "auction" and auction.over(state):
            actions.start(state, events)
        elif state["phase"] == "auction":
            auction.step(state, events)
        else:
            actions.step(state, events)

