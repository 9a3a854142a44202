"""Goofspiel's documents as JSON Schemas (OpenAPI 3.0's dialect, `engine.fragments`): the options a
client may send, the setup, the view any viewer gets and the result, for the API and typed clients."""
from __future__ import annotations

from engine.fragments import RULES, Schema, closed, described, list_of, names, nullable, options
from engine.goofspiel.data import (DECISION_KINDS, DEADLINE_CLASS, DEFAULT_OPTIONS, GAME, MAX_CARDS, MAX_SEATS,
                                   MIN_CARDS, MIN_SEATS, PHASES, TIES)
from engine.goofspiel.moves import CARD

COUNT: Schema = {"type": "integer", "minimum": 0}
SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1}
CARDS: Schema = {**list_of(CARD), "maxItems": MAX_CARDS, "uniqueItems": True}


_OPTIONS: dict[str, Schema] = {
    "seats": {"type": "integer", "minimum": MIN_SEATS, "maximum": MAX_SEATS, "description": "Number of players."},
    "cards": {"type": "integer", "minimum": MIN_CARDS, "maximum": MAX_CARDS,
              "description": "Cards in each hand and in the prize deck: the values 1 to cards."},
    "ties": {**names(TIES), "description": "A prize whose highest bid is tied: discard (it is lost) or carry "
                                           "(it adds to the next round's prize; lost if the last round ties)."},
}

OPTIONS = options(_OPTIONS, DEFAULT_OPTIONS)

SETUP = closed("All the chance of a game, drawn once from a seed.", {
    "prizes": described({**CARDS, "minItems": MIN_CARDS},
                        "The prize deck's order, first prize first: an order of the cards 1 to cards."),
})

BID = closed(None, {"seat": SEAT, "card": CARD})

ROUND = closed("A round played: every bid, shown together once all were in.", {
    "round": {"type": "integer", "minimum": 1, "maximum": MAX_CARDS},
    "prize": CARD,
    "carried": described(CARDS, "Prizes carried to this round from tied ones before (ties: carry)."),
    "stake": described(COUNT, "The points at stake: the prize and the prizes carried."),
    "bids": described(list_of(BID), "One bid per seat, in seat order."),
    "winner": described(nullable(SEAT), "The one highest bidder; null when the highest bid was tied."),
    "outcome": described(names(("taken", "carried", "lost")),
                         "taken by the winner; after a tie, carried to the next round or lost."),
})

PLAYER = closed("One seat; `private` is present only in that seat's own view.", {
    "seat": SEAT,
    "hand": described(CARDS, "Cards not yet played (public: every played card is shown). A bid made this "
                             "round stays in the hand until the round is revealed."),
    "points": described(COUNT, "The sum of the prizes taken."),
    "won": described(CARDS, "The prize cards taken."),
    "has_bid": described({"type": "boolean"}, "Whether the seat has bid this round (its card is hidden)."),
    "private": closed("Seen by this seat alone.", {
        "bid": described(nullable(CARD), "The seat's own bid this round, until the round is revealed."),
    }),
}, optional=["private"])

DECISION = closed("A decision waiting for a seat: every seat still to bid this round.", {
    "seat": SEAT,
    "kind": names(DECISION_KINDS),
    "deadline": described(names(tuple(dict.fromkeys(DEADLINE_CLASS.values()))), "The deadline class of the kind."),
})

RESULT = closed("The final score, once the game is over.", {
    "scores": described(list_of(closed(None, {
        "seat": SEAT,
        "points": COUNT,
        "prizes": described(CARDS, "The prize cards the seat took."),
        "rank": described({"type": "integer", "minimum": 1}, "1 is best; equal points share a rank."),
    })), "One entry per seat, in seat order."),
    "winners": described(list_of(SEAT), "The seats ranked 1."),
})

VIEW = closed("The game as one viewer sees it; a seat's bid is in its own view alone until all are in.", {
    "game": names([GAME]),
    "options": closed("The game's options, defaults filled in.", _OPTIONS),
    "round": {"type": "integer", "minimum": 1, "maximum": MAX_CARDS},
    "phase": described(names(PHASES), "bidding, or over after the last prize."),
    "prize": described(nullable(CARD), "The prize card showing; null once the game is over."),
    "carried": described(CARDS, "Prizes carried to this round by tied ones (ties: carry)."),
    "stake": described(COUNT, "The points the highest bid takes this round: the prize and the prizes carried."),
    "prizes_left": closed("The prize cards still face down: which values (public), not their order.", {
        "count": COUNT,
        "values": described(CARDS, "Smallest first."),
    }),
    "players": described(list_of(PLAYER), "One entry per seat, in seat order."),
    "history": described(list_of(ROUND), "The rounds played, first first."),
    "pending": described(list_of(DECISION), "The seats still to bid this round."),
    "result": nullable(RESULT),
    "rules": RULES,
}, optional=["rules"])

SCHEMAS: dict[str, Schema] = {"options": OPTIONS, "setup": SETUP, "view": VIEW, "result": RESULT}
