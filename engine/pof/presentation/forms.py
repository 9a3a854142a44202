"""The seat's legal moves, laid out as the forms of its decision.

Every form posts one move `legal_moves` listed (or, for a publish, one its `fill` annotation allows;
for a bid with open bidding, an amount in the listed range), so the page offers exactly what the
rules accept now. Moves that need a second look (a placement, a publish) come with a preview step
made of plain links and GET forms, so all of it works without a script.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from engine.core import Game, Move, filled, fills
from engine.pof import scoring
from engine.pof.data import AUCTION_ITEMS, BUILDINGS, ECONOMY, ROUNDS
from engine.pof.presentation import phrases, words
from engine.pof.presentation.placing import piece_picture, placement
from engine.presentation import asked as with_details

SIMPLE = ("open_auction", "pass_auction", "step_out", "keep_enticement", "buy_freedom", "buy_profession",
          "buy_bonus_card", "discard_landscape", "keep_professions", "end_turn")
Href = Callable[..., str]
Args = Mapping[str, list[str]]  # a page's query: each name with its values


def seat_forms(game: Game, state: dict[str, Any], view: dict[str, Any], seat: int, pending: dict[str, Any] | None,
               running: bool, args: Args, href: Href) -> dict[str, Any]:
    """What the seat page posts: its decision's forms (None when nothing waits) and its standing orders
    (None unless the game runs)."""
    return {"decision": decision(game, state, view, seat, pending, args, href) if running and pending else None,
            "orders": orders_form(view, seat) if running else None}


def _arg(args: Args, name: str) -> str | None:
    values = args.get(name) or []
    return values[0] if values else None


def decision(game: Game, state: dict[str, Any], view: dict[str, Any], seat: int, pending: dict[str, Any],
             args: Args, href: Href) -> dict[str, Any]:
    """The seat's decision and its forms."""
    legal = game.legal_moves(state, seat)
    asked = with_details(view, pending)
    me = view["players"][seat]
    out: dict[str, Any] = {
        "kind": pending["kind"], "words": phrases.pending(asked, view),
        "simple": [{"label": _label(game, move, asked), "move": move} for move in legal if move["type"] in SIMPLE],
        "entice": [{"label": game.describe(move), "move": move} for move in legal if move["type"] == "entice"],
        "bid": None, "choose": [], "split": None, "builds": [], "placing": None, "publish": [],
        "sell": me["prestige"] if me["prestige"] > 0 else 0,
        "sell_price": ECONOMY["florins_per_prestige_when_selling"],
        "dealt": [{"name": words.name(p), **{k: words.name(v) for k, v in words.preferences(p).items()}}
                  for p in asked["private"]["dealt"]] if pending["kind"] == "keep_professions" else [],
    }
    if pending["kind"] == "bid":
        out["bid"] = _bid(view, legal)
    elif pending["kind"] == "choose_card":
        out["choose"] = _choose(asked)
    elif pending["kind"] == "split_payout":
        out["split"] = _split(asked)
    elif pending["kind"] == "place_landscape":
        kind = asked["landscape"]
        out["placing"] = placement(kind, [m for m in legal if m["type"] == "place_landscape"], me, href,
                                   _arg(args, "turn"), _arg(args, "at"), f"Where your {words.name(kind)} may go")
    elif pending["kind"] == "action":
        out["builds"] = _builds(me, legal, href)
        chosen = _arg(args, "piece")
        if chosen in BUILDINGS:
            moves = [m for m in legal if m["type"] == "build" and m["building"] == chosen]
            if moves:
                out["placing"] = placement(chosen, moves, me, lambda **step: href(piece=chosen, **step),
                                           _arg(args, "turn"), _arg(args, "at"),
                                           f"Where the {words.name(chosen)} may go")
        out["publish"] = _publish(game, state, seat, me, legal, args, view["min_work_value"])
        out["actions_left"] = ECONOMY["actions_per_turn"] - view["turn"]["actions"]
        out["actions_per_turn"] = ECONOMY["actions_per_turn"]
    return out


def _label(game: Any, move: Move, asked: dict[str, Any]) -> str:
    if move["type"] == "keep_professions":
        back = [words.name(p) for p in asked["private"]["dealt"] if p not in move["professions"]]
        return f"{game.describe(move)} (give back {words.listing(back)})"
    return game.describe(move)


def _bid(view: dict[str, Any], legal: list[Move]) -> dict[str, Any]:
    amounts = [move["amount"] for move in legal if move["type"] == "bid"]
    lot = view["auction"]["lot"]
    return {"open": view["options"]["bidding"] == "open", "amounts": amounts,
            "least": min(amounts) if amounts else None, "most": max(amounts) if amounts else None,
            "step": ECONOMY["auction_step"], "item": words.name(lot["item"]), "current": lot["bid"]}


def _choose(asked: dict[str, Any]) -> list[dict[str, Any]]:
    """One form per card shown: keep it, and put the others back in an order the seat may change."""
    deck, shown = asked["deck"], asked["private"]["cards"]
    out = []
    for card in shown:
        rest = [other for other in shown if other != card]
        out.append({"card": card, "name": words.name(card), "text": _card_text(deck, card), "rest": rest,
                    "names": {other: words.name(other) for other in shown}})
    return out


def _card_text(deck: str, card: str) -> str | None:
    if deck == "bonus_cards":
        return words.bonus_more(card)
    if deck == "prestige_cards":
        return words.prestige_text(card)
    prefs = {key: words.name(value) for key, value in words.preferences(card).items()}
    return f"prefers the {prefs['building']}, {prefs['landscape']} and freedom of {prefs['freedom']}"


def _split(asked: dict[str, Any]) -> dict[str, Any]:
    rate = ECONOMY["florins_per_prestige_when_publishing"]
    payout = asked["payout"]
    return {"payout": payout, "options": [{"prestige": points, "florins": payout - points * rate}
                                          for points in range(payout // rate + 1)]}


def _builds(me: dict[str, Any], legal: list[Move], href: Href) -> list[dict[str, Any]]:
    places: dict[str, int] = {}
    for move in legal:
        if move["type"] == "build":
            places[move["building"]] = places.get(move["building"], 0) + 1
    hand = me.get("private", {}).get("hand", [])
    prices = ECONOMY["price_building_by_architects"]
    price = prices[min(me["architects"], len(prices) - 1)]
    return [{"kind": kind, "name": words.name(kind), "size": words.building_size(kind), "places": count,
             "price": price,
             "picture": piece_picture(kind), "href": href(piece=kind),
             "wanted_by": [words.name(p) for p in hand if words.preferences(p)["building"] == kind]}
            for kind, count in places.items()]


def _publish(game: Game, state: dict[str, Any], seat: int, me: dict[str, Any], legal: list[Move], args: Args,
             least: int) -> list[dict[str, Any]]:
    """One form per profession that can publish: its bonus cards to tick, what each adds, and (once
    previewed) the work's value and the move that publishes it."""
    out = []
    for listed in (move for move in legal if move["type"] == "publish"):
        profession = listed["profession"]
        annotation = next(iter(fills(game, state, seat, listed)), None)
        base = annotation["base"] if annotation else scoring.work_value(me, profession, [])
        adds = {c["value"]: c["adds"] for c in annotation["choices"]} if annotation else {}
        previewing = _arg(args, "publish") == profession
        ticked = list(args.get("bonus_cards") or []) if previewing else listed["bonus_cards"]
        entry = {
            "profession": profession, "name": words.name(profession), "base": base, "least": least,
            "payout": base * ECONOMY["florins_per_work_point"],
            "choices": [{"value": card, "name": words.name(card), "text": words.bonus_more(card), "adds": add,
                         "checked": card in ticked} for card, add in adds.items()],
            "listed": listed, "preview": None,
        }
        if previewing:
            move = filled(listed, annotation, ticked) if annotation else (listed if not ticked else None)
            value = base + sum(adds.get(card, 0) for card in ticked)
            entry["preview"] = {"value": value, "move": move, "cards": [words.name(c) for c in ticked],
                                "payout": value * ECONOMY["florins_per_work_point"]}
        out.append(entry)
    return out


def orders_form(view: dict[str, Any], seat: int) -> dict[str, Any] | None:
    """Standing orders to set from the page, filled with the current ones; None once no auction is left."""
    if view["round"] == ROUNDS and view["phase"] != "auction" or view["phase"] == "over":
        return None
    current = view["players"][seat]["private"].get("orders") or {}
    limits = current.get("limits", {})
    return {"items": [{"id": item, "name": words.name(item), "limit": limits.get(item)} for item in AUCTION_ITEMS],
            "step_out_otherwise": current.get("step_out_otherwise", False), "current": current or None,
            "for_round": current.get("round"), "step": ECONOMY["auction_step"]}
