"""Princes of Florence's documents as JSON Schemas, for the API's OpenAPI 3.0 document and typed clients.

`SCHEMAS` describes what a client sends or receives besides moves (moves.py has those): "options"
(what `normalize_options` accepts), "setup" (what `make_setup` returns and `new_state` accepts),
"view" (what `view` returns to a seat or a spectator) and "result" (what `result` returns once the
game is over). The dialect is OpenAPI 3.0's: ``nullable`` rather than type arrays, one-name enums
rather than ``const``, no ``$ref``; an object whose keys are fixed refuses others. Names come from
data.json, so a correction there reaches the schemas too.
"""
from __future__ import annotations

from typing import Iterable

from engine.fragments import RULES, Schema, closed, described, list_of, names, nullable, options
from engine.pof.data import BUILDINGS, ECONOMY, FREEDOMS, LANDSCAPES, PRESTIGE_CARDS, ROUNDS, SUPPLY
from engine.pof.moves import BONUS_CARD, CARD, ITEM, LIMITS, PROFESSION, SQUARES
from engine.pof.setup import BIDDING, DECKS, DEFAULT_OPTIONS, MAX_SEATS, MIN_SEATS
from engine.pof.table import DEADLINE_CLASS, DECISION_KINDS

PHASES = ("professions", "auction", "actions", "over")
COUNT: Schema = {"type": "integer", "minimum": 0}
SEAT: Schema = {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1}


def counts(keys: Iterable[str], description: str | None = None) -> Schema:
    """An object with a count for each of these names."""
    return closed(description, {key: COUNT for key in keys})


SEATS = list_of(SEAT)
PRESTIGE_CARD = names(PRESTIGE_CARDS)

_OPTIONS: dict[str, Schema] = {
    "seats": {"type": "integer", "minimum": MIN_SEATS, "maximum": MAX_SEATS, "description": "Number of players."},
    "bidding": {**names(BIDDING), "description": "step: each bid raises by exactly 100; open: by any multiple of 100."},
    "auction_pass": {"type": "boolean", "description": "Whether a chooser may pass (buy nothing that round)."},
    "shuffle_seats": {"type": "boolean", "description": "Whether the seed draws the seat order."},
}

OPTIONS = options(_OPTIONS, DEFAULT_OPTIONS)

SETUP = closed("All the chance of a game, drawn once from a seed: setup and moves determine the game.", {
    "seat_order": {**list_of(SEAT), "minItems": MIN_SEATS, "maxItems": MAX_SEATS, "uniqueItems": True,
                   "description": "A permutation of the seats 0..seats-1 (the identity unless shuffle_seats)."},
    "decks": closed("Each deck's order, top card first: a permutation of all its cards.", {
        deck: {**list_of(names(cards)), "minItems": len(cards), "maxItems": len(cards), "uniqueItems": True}
        for deck, cards in DECKS.items()
    }),
})

RESULT = closed("The final score, once the game is over.", {
    "scores": described(list_of(closed(None, {
        "seat": SEAT,
        "prestige": described(COUNT, "Final prestige points, prestige cards included."),
        "prestige_cards": described(list_of(closed(None, {"card": PRESTIGE_CARD, "points": COUNT})),
                                    "The seat's prestige cards and what each scored."),
        "cash": COUNT,
        "rank": described({"type": "integer", "minimum": 1}, "1 is best; a tie in prestige and cash shares a rank."),
    })), "One entry per seat, in seat order."),
    "winners": described(SEATS, "The seats ranked 1."),
})

_PLACED = {"squares": described(SQUARES, "[row, col] on the 7x7 yard, row 0 at the top.")}

PLAYER = closed("One seat; `private` is present only in that seat's own view.", {
    "seat": SEAT,
    "prestige": described(COUNT, "Prestige points (PP); once the game is over, the final score."),
    "jugglers": COUNT,
    "architects": {"type": "integer", "minimum": 0, "maximum": SUPPLY["architect_max_per_player"]},
    "freedoms": {**list_of(names(FREEDOMS)), "uniqueItems": True},
    "landscapes": list_of(closed(None, {"kind": names(LANDSCAPES), **_PLACED})),
    "buildings": list_of(closed(None, {"kind": names(BUILDINGS), **_PLACED})),
    "played": described(list_of(PROFESSION), "Professions that published a work and are still on this table."),
    "works": list_of(closed(None, {
        "profession": PROFESSION,
        "value": COUNT,
        "round": {"type": "integer", "minimum": 1, "maximum": ROUNDS},
        "bonus_cards": described(list_of(BONUS_CARD), "Added to the work, and gone from the game."),
    })),
    "enticements_received": described(COUNT, "Used enticement cards received for professions enticed away."),
    "private": closed("Seen by this seat alone.", {
        "cash": described(COUNT, "Florins."),
        "hand": described(list_of(PROFESSION), "Professions in hand, not yet published."),
        "bonus_cards": list_of(BONUS_CARD),
        "prestige_cards": list_of(PRESTIGE_CARD),
        "enticements": described(COUNT, "Unused enticement cards."),
        "orders": nullable(closed("Standing orders for one round's auction (set_orders).", {
            "round": {"type": "integer", "minimum": 1, "maximum": ROUNDS},
            "limits": described(LIMITS, "The highest bid per item; beyond it, step out."),
            "step_out_otherwise": {"type": "boolean"},
        })),
    }),
    "counts": counts(("hand", "bonus_cards", "prestige_cards", "enticements", "person_cards"),
                     "Public counts of the seat's hidden cards; person_cards is what a work counts."),
}, optional=["private"])

DECISION = closed("A decision waiting for a seat; the other keys depend on its kind.", {
    "seat": SEAT,
    "kind": names(DECISION_KINDS),
    "deadline": described(names(dict.fromkeys(DEADLINE_CLASS.values())), "The deadline class of the kind."),
    "landscape": described(names(LANDSCAPES), "place_landscape: the landscape to place."),
    "deck": described(names(DECKS), "choose_card: the deck the cards shown come from."),
    "payout": described(COUNT, "split_payout: the florins to split, 200 for each prestige point taken."),
    "private": closed("Seen by the deciding seat alone.", {
        "dealt": described(list_of(PROFESSION), "keep_professions: the professions dealt."),
        "cards": described(list_of(CARD), "choose_card: the cards shown, in the order drawn."),
    }, optional=["dealt", "cards"]),
}, optional=["landscape", "deck", "payout", "private"])

LOT = closed("The item under the hammer; null while a chooser is to open the next auction.", {
    "item": ITEM,
    "chooser": described(SEAT, "The seat that opened the auction."),
    "bid": described(COUNT, "The highest bid so far."),
    "leader": described(SEAT, "The seat with the highest bid."),
    "in": described(SEATS, "Seats still bidding, in table order from the chooser."),
    "to_bid": SEAT,
})

VIEW = closed(
    "The game as one viewer sees it; parts private to a seat appear in that seat's view alone.",
    {
        "game": names(["princes-of-florence"]),
        "options": closed("The game's options, defaults filled in.", _OPTIONS),
        "round": {"type": "integer", "minimum": 1, "maximum": ROUNDS},
        "phase": described(names(PHASES), "professions (the opening choice), auction (A), actions (B), over."),
        "start_player": SEAT,
        "players": described(list_of(PLAYER), "One entry per seat, in seat order."),
        "supply": closed("What is left to buy.", {
            **{kind: COUNT for kind in LANDSCAPES},
            "juggler": COUNT,
            "architect": COUNT,
            "enticement": COUNT,
            "buildings": counts(BUILDINGS),
            "freedoms": counts(FREEDOMS),
        }),
        "auction": nullable(closed("Phase A of this round; null outside Phase A.", {
            "done": described(SEATS, "Seats that bought or sat out this round."),
            "sold": described(list_of(ITEM), "Items sold this round (each is sold once a round)."),
            "lot": nullable(LOT),
        })),
        "turn": nullable(closed("The action turn; null outside Phase B.", {
            "seat": SEAT,
            "actions": {"type": "integer", "minimum": 0, "maximum": ECONOMY["actions_per_turn"]},
            "freedom": described({"type": "boolean"}, "A freedom was bought this turn."),
            "profession": described({"type": "boolean"}, "A profession was bought this turn."),
            "ended": {"type": "boolean"},
        })),
        "pending": described(list_of(DECISION), "Who must act now (several seats at the opening choice)."),
        "result": nullable(RESULT),
        "decks": counts(DECKS, "Cards left in each deck."),
        "min_work_value": described(COUNT, "The least value a work published this round must have."),
        "rules": RULES,
    },
    optional=["rules"],
)

SCHEMAS: dict[str, Schema] = {"options": OPTIONS, "setup": SETUP, "view": VIEW, "result": RESULT}
