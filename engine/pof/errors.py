"""Every code with which the rules of Princes of Florence refuse a move, option or setup.

Clients see these as the `code` of a 422 answer; a test holds every IllegalMove raised in the engine
to this list, so a client author can rely on it.
"""
from __future__ import annotations

ERROR_CODES: dict[str, str] = {
    "bad_options": "an option is unknown or has a bad value",
    "bad_setup": "the explicit setup is not a seat permutation and whole decks",
    "bad_move": "the move's fields are missing, extra or of the wrong JSON type",
    "unknown_move": "no such move type",
    "bad_seat": "no such seat",
    "not_your_decision": "the move answers no decision pending for this seat",
    "game_over": "the game is over",
    "bad_amount": "the bid or limit is not allowed (too low, not a multiple of 100, negative)",
    "cannot_afford": "the seat cannot pay this, even selling prestige",
    "not_enough_cash": "the seat has too little cash",
    "bad_points": "the number of prestige points is out of range",
    "bad_choice": "the card chosen is not among those shown",
    "bad_order": "the cards to return are not exactly the others shown",
    "unknown_item": "no such auction item",
    "item_unavailable": "that item cannot be taken now",
    "pass_not_allowed": "passing needs the auction_pass option",
    "no_more_auctions": "the last auction is over",
    "unknown_freedom": "no such freedom",
    "freedom_unavailable": "that freedom is sold out or already held",
    "unknown_building": "no such building",
    "building_unavailable": "no copy of that building is left",
    "bad_squares": "the squares are not pairs of row and column on the yard, or repeat",
    "wrong_shape": "the squares do not form that piece in any turn or mirror image",
    "square_taken": "a square is already covered",
    "touches_building": "a building may not share an edge with another one without 2 architects",
    "once_a_turn": "that action was taken this turn already",
    "deck_empty": "the deck has no card left",
    "not_in_hand": "that profession is not an unplayed card in hand",
    "unknown_bonus_card": "that bonus card is not in hand",
    "bad_bonus_cards": "those bonus cards cannot go with this work",
    "work_too_weak": "the work's value is below the round's minimum",
    "bad_target": "that profession cannot be enticed",
}
