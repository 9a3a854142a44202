"""Every code with which Goofspiel's rules refuse a move, option or setup (a test holds the rules to it)."""
from __future__ import annotations

ERROR_CODES: dict[str, str] = {
    "bad_options": "an option is unknown or has a bad value",
    "bad_setup": "the explicit setup is not an order of the whole prize deck",
    "bad_move": "the move's fields are missing, extra or of the wrong JSON type",
    "unknown_move": "no such move type",
    "bad_seat": "no such seat",
    "game_over": "the game is over",
    "already_bid": "the seat has bid this round already: the others' bids are awaited",
    "not_in_hand": "that card is not in the seat's hand (played in an earlier round, or never dealt)",
}
