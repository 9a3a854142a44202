"""Goofspiel as an `engine.core.Game`: the one entry point to its rules.

Each round a prize card is turned up and every seat bids one card of its hand at once, in secret;
the one highest bid takes the prize (a tie: see `ties`). A seat's bid is its `private` part until
all are in (`engine.goofspiel.rounds`), so the one `engine.core.redact` hides it on every channel.
"""
from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalMove, Move, State, Viewer, copy_state, redact, started_under
from engine.goofspiel import bot, rounds, setup, words
from engine.goofspiel.data import DEADLINE_CLASS, DECISION_KINDS, GAME, MAX_SEATS, MIN_SEATS, RULES_VERSION
from engine.goofspiel.errors import ERROR_CODES
from engine.options import whole
from engine.goofspiel.grammar import GRAMMAR
from engine.goofspiel.moves import MOVE_TYPES, check_shape
from engine.goofspiel.schemas import SCHEMAS


class Goofspiel:
    name = GAME
    min_seats, max_seats = MIN_SEATS, MAX_SEATS
    move_types = MOVE_TYPES
    schemas = SCHEMAS
    error_codes = ERROR_CODES
    rules_version = RULES_VERSION
    decision_kinds = list(DECISION_KINDS)
    deadline_keys = list(dict.fromkeys([*DECISION_KINDS, *DEADLINE_CLASS.values()]))
    grammar = GRAMMAR  # `engine.core.Grammar`: "bid 7" by mail
    words = staticmethod(words.name)  # `engine.core.Worded`
    bots = {"greedy": bot.choose}  # its own bots, beside the generic ones (`engine.bots`)

    def normalize_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        return setup.normalize_options(options)

    def make_setup(self, options: dict[str, Any], seed: int) -> dict[str, Any]:
        return setup.make_setup(setup.normalize_options(options), seed)

    def new_state(self, options: dict[str, Any], game_setup: dict[str, Any], rules: int | None = None) -> State:
        return started_under(self, setup.new_state(options, game_setup), rules)

    def pending(self, state: State) -> list[dict[str, Any]]:
        """Every seat still to bid this round, at once."""
        if state["phase"] != "bidding":
            return []
        return [{"seat": each["seat"], "kind": "bid", "deadline": DEADLINE_CLASS["bid"]}
                for each in state["players"] if not each["has_bid"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """A bid of each card in hand, smallest first, while the seat has not bid this round."""
        players = state["players"]
        if state["phase"] != "bidding" or not 0 <= seat < len(players) or players[seat]["has_bid"]:
            return []
        return [{"type": "bid", "card": card} for card in players[seat]["hand"]]

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        check_shape(move)
        if state["phase"] == "over":
            raise IllegalMove("game_over", "the game is over")
        if not whole(seat) or not 0 <= seat < len(state["players"]):
            raise IllegalMove("bad_seat", f"there is no seat {seat!r}")
        player = state["players"][seat]
        if player["has_bid"]:
            raise IllegalMove("already_bid", "you have bid this round already: the others' bids are awaited")
        if move["card"] not in player["hand"]:
            raise IllegalMove("not_in_hand", f"{move['card']} is not in your hand: you hold "
                                             f"{', '.join(map(str, player['hand']))}")
        state = copy_state(state)
        events: list[Event] = []
        rounds.place_bid(state, seat, move["card"], events)
        return state, events

    def default_move(self, state: State, seat: int) -> Move:
        """At a deadline: the seat's lowest card, which risks least (README: Goofspiel)."""
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMove("already_bid", "nothing is waiting for this seat")
        return moves[0]

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The state as the viewer may see it: public counts added, others' bids and the deck's order removed."""
        left = state["prizes_left"]
        seen = {**state, "stake": rounds.stake_of(state), "prizes_left": {"count": len(left), "values": left},
                "pending": self.pending(state)}
        return redact(seen, viewer)

    def result(self, state: State) -> dict[str, Any] | None:
        return state["result"]

    def standings(self, result: dict[str, Any]) -> list[dict[str, Any]]:
        """`engine.core.Ranked`: each seat's rank and points."""
        return [{"seat": s["seat"], "rank": s["rank"], "score": s["points"]} for s in result["scores"]]

    def describe(self, move: Move) -> str:
        return words.describe(move)

    def describe_options(self, options: dict[str, Any]) -> list[str]:
        return words.describe_options(options)
