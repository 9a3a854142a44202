"""What a reader must not see: each seat's private facts, as its own view shows them, found in any text.

A seat's secrets are read off its own view's private part (`secrets_of`): every card it holds hidden
or is offered, its cash, and its standing orders' limits. `exposed` finds them in a text by name and
by id ("map maker", "map_maker"), a bonus or prestige card also by the text of its rule, cash as
"N florins" or `"cash": N`. A limit counts only when it is no multiple of the auction step, since any
sum of money may equal one that is: tests set such limits (1730) so that a leak cannot hide.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from engine.core import get_game
from engine.pof.data import (AUCTION_ITEMS, BONUS_CARDS, BUILDINGS, ECONOMY, FREEDOMS, LANDSCAPES, PRESTIGE_CARDS,
                             PROFESSIONS)
from engine.pof.presentation import words

PUBLIC_WORDS = {words.name(w) for w in (*AUCTION_ITEMS, *BUILDINGS, *LANDSCAPES, *FREEDOMS)}
CARDS = {*PROFESSIONS, *BONUS_CARDS, *PRESTIGE_CARDS}
POF = "princes-of-florence"
Secret = tuple[str, Any]  # ("card", id), ("florins", amount) or ("limit", amount)


def text_of(html: str) -> str:
    """What a page says, tags and attributes included (a leak in an attribute is a leak too)."""
    return (html.replace("&#39;", "'").replace("&#x27;", "'").replace("&amp;", "&").replace("&#34;", '"')
            .replace("&quot;", '"'))


def _strings(doc: Any) -> Iterator[str]:
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for value in doc.values():
            yield from _strings(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _strings(value)


def private_parts(view: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The parts of the seat's own view that only it sees: its player's and its decisions'."""
    player = view["players"][seat]
    return [part for part in [player.get("private")] + [d.get("private") for d in view.get("pending", [])
                                                        if d.get("seat") == seat] if part]


def _facts(part: dict[str, Any], over: bool) -> set[Secret]:
    """The secrets a private part holds."""
    found: set[Secret] = {("card", text) for text in _strings(part) if text in CARDS}
    if isinstance(part.get("cash"), int) and not over:  # the final scores show everyone's cash
        found.add(("florins", part["cash"]))
    limits = (part.get("orders") or {}).get("limits") or {}
    return found | {("limit", amount) for amount in limits.values() if amount % ECONOMY["auction_step"]}


def secrets_of(view: dict[str, Any], seat: int) -> set[Secret]:
    """The seat's private facts, from its own view: what no other reader may find anywhere."""
    over = bool(view.get("result"))
    return {fact for part in private_parts(view, seat) for fact in _facts(part, over)}


def known_to(view: dict[str, Any], reader: int | None) -> set[Secret]:
    """What the reader may see anyway: his own secrets, what the game has revealed to everyone (a
    game's end may show every seat's part), the cards everyone sees, public sums of money."""
    own = secrets_of(view, reader) if reader is not None else set()
    revealed = {fact for player in view["players"] for fact in _facts(player.get("revealed") or {}, False)}
    payouts = {("florins", d["payout"]) for d in view.get("pending", []) if "payout" in d}
    return own | revealed | payouts | {("card", card) for card in public(view)}


def shows(text: str, card: str) -> bool:
    """Whether the text names the card, as read or by its id ("map maker", "map_maker"), or states its
    rule (names that are also public words, like the architect, say nothing)."""
    said = words.name(card)
    if said in PUBLIC_WORDS:
        return False
    texts = [words.bonus_text(card)] if card in BONUS_CARDS else []
    texts += [words.prestige_text(card)] if card in PRESTIGE_CARDS else []
    return any(re.search(rf"\b{re.escape(name)}\b", text) for name in {said, card}) or any(t in text for t in texts)


def found(text: str, secret: Secret) -> bool:
    kind, value = secret
    if kind == "card":
        return shows(text, value)
    if kind == "florins":
        return bool(re.search(rf"(?<![\d,]){value:,} florins|\"cash\": ?{value}(?!\d)", text))
    # A number a person reads stands apart from letters too: "1730" inside a signed token or a hex id
    # of a link or header is no limit shown (one such token failed a run of test_redaction).
    return bool(re.search(rf"(?<![\w,.])({value}|{value:,})(?![\w,])", text))


def told_sums(feed: list[dict[str, Any]]) -> set[Secret]:
    """The sums of florins the whole table was told in the public feed: what each payout's split gave
    (the story says "took 4 PP and 700 florins"), which may equal a seat's cash when he had none."""
    return {("florins", entry["event"]["florins"]) for entry in feed
            if (entry.get("event") or {}).get("type") == "payout_split"}


def exposed(text: str, view: dict[str, Any], reader: int | None,
            told: set[Secret] = frozenset()) -> list[tuple[int, Secret]]:
    """(seat, secret) of every other seat's private fact that the text shows its reader (None: the host,
    a spectator or anyone who holds no seat); `told` is what the public feed said to everyone
    (`told_sums`), no secret even where it equals one."""
    known = known_to(view, reader) | told
    return [(seat, secret) for seat in range(len(view["players"])) if seat != reader
            for secret in sorted(secrets_of(view, seat) - known, key=str) if found(text, secret)]


def full_view(game_name: str, state: dict[str, Any]) -> dict[str, Any]:
    """Every seat's own view in one: the state with each player's private part and each decision's
    (deck orders, which nobody sees, left out)."""
    game = get_game(game_name)
    views = [game.view(state, seat) for seat in range(len(state["players"]))]

    def own(decision: dict[str, Any]) -> dict[str, Any]:
        return next(d for d in views[decision["seat"]]["pending"] if (d["seat"], d["kind"]) == (decision["seat"],
                                                                                                  decision["kind"]))
    return {**views[0], "players": [views[seat]["players"][seat] for seat in range(len(views))],
            "pending": [own(decision) for decision in views[0].get("pending", [])]}


def hidden(state: dict[str, Any], seat: int) -> set[str]:
    """Every card the seat holds hidden, or is choosing from."""
    return {value for kind, value in secrets_of(full_view(POF, state), seat) if kind == "card"}


def public(view: dict[str, Any]) -> set[str]:
    """Card names anyone may read: played professions and works, their bonus cards, and at the end
    the prestige cards the scores show."""
    seen = {card["card"] for score in (view.get("result") or {}).get("scores", []) for card in score["prestige_cards"]}
    for player in view["players"]:
        seen |= set(player.get("played", []))
        for work in player.get("works", []):
            seen |= {work["profession"], *work.get("bonus_cards", [])}
    return seen


def leaked(state: dict[str, Any], text: str, reader: int | None) -> list[tuple[int, str]]:
    """(seat, card) of every hidden card of another seat that the reader's page shows."""
    return [(seat, value) for seat, (kind, value) in exposed(text, full_view(POF, state), reader) if kind == "card"]
