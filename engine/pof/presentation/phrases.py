"""What a pending decision of Princes of Florence asks, in a sentence or two, and the names of its
phases and sums: said one way on the pages, the one-click page and every mail."""
from __future__ import annotations

from typing import Any

from engine.pof.data import ECONOMY
from engine.pof.words import listing, name, names, shown

NUMBERS = ("no", "one", "two", "three", "four", "five")
PHASES = {"professions": "choosing professions", "auction": "Phase A, the auction", "actions": "Phase B, actions",
          "over": "the game is over"}


def florins(amount: int) -> str:
    return f"{amount:,} florins"


def pending(decision: dict[str, Any], view: dict[str, Any]) -> str:
    """What a decision asks of its seat, in one or two sentences; `decision` carries the view's details."""
    kind = decision["kind"]
    private = decision.get("private", {})
    if kind == "action":
        left = ECONOMY["actions_per_turn"] - view["turn"]["actions"]
        return (f"It is your action turn: {NUMBERS[left]} of {NUMBERS[ECONOMY['actions_per_turn']]} actions left "
                "(build, buy a freedom, a profession or a bonus card, publish a work), or end your turn.")
    if kind == "open_auction":
        passing = ", or pass and buy nothing this round" if view["options"]["auction_pass"] else ""
        return (f"You choose what goes under the hammer next, at an opening bid of "
                f"{ECONOMY['auction_opening_bid']}{passing}.")
    if kind == "bid":
        return "Raise the bid or step out of the auction."
    if kind == "keep_professions":
        return (f"Keep {NUMBERS[ECONOMY['start_professions_kept']]} of the professions dealt to you: "
                f"{names(private['dealt'])}. The other goes under the deck.")
    if kind == "choose_card":
        deck = decision["deck"]
        return (f"Keep one card from the {name(deck)}: "
                f"{listing([shown(c) for c in private['cards']])}. The others go back under the deck.")
    if kind == "place_landscape":
        return f"Place your new {name(decision['landscape'])} in your yard, or throw it away."
    if kind == "use_enticement":
        return "You may use your enticement card now to entice a profession away, or keep it for later."
    if kind == "split_payout":
        return (f"Split your payout of {florins(decision['payout'])}: each prestige point you take instead "
                f"costs {ECONOMY['florins_per_prestige_when_publishing']} of them.")
    return f"You have a decision to make ({name(kind)})."
