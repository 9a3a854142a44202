"""The signed links a mail carries (the seat's way in, one-click answers, unsubscribe), minted without
Flask: the mails (service/mail) and the pages that open them (service/web) both use them, so neither
imports the other."""
from __future__ import annotations

import hashlib
import hmac
from typing import Any

from engine.core import Move
from engine.presentation import presentation_of
from service import deadlines, games
from service.links import Links
from service.store import dumps

ACT = "act"  # the link's purpose: the signature's salt, so no other link opens it
ACT_PAGE = "/act"
SEAT_PURPOSE, SEAT_PAGE = "seat", "/seat"
UNSUBSCRIBE_PURPOSE = "unsubscribe"


def seat_key(entry: dict[str, Any]) -> str | None:
    """What a seat link and a seat grant are bound to: the seat's address, else its token. Replacing
    the player changes it, so every link and session of the old one stops at once."""
    return entry.get("email_hash") or entry.get("token")


def seat_url(links: Links, table: games.Table, seat: int) -> str:
    """The seat's way in, for its mail (or for the host to pass on when the seat has no address)."""
    key = seat_key(table.meta["seats"][seat])
    payload = {"g": table.id, "s": seat, "h": table.holder(seat), "k": key}
    return links.url(SEAT_PAGE, t=links.sign(SEAT_PURPOSE, payload))


def answer_links(links: Links, table: games.Table, seat: int) -> dict[str, Any]:
    """The seat page and the signed one-click answers to the seat's pending decision, for a mail."""
    return {"seat": seat_url(links, table, seat), "one_click": one_click(links, table, seat)}


def one_click(links: Links, table: games.Table, seat: int) -> list[dict[str, Any]]:
    """The signed one-click answers to the seat's pending decision (none without one), for its holder."""
    decision = table.decision_of(seat)
    key = seat_key(table.meta["seats"][seat])
    return [{"label": label, "move": move,
             "url": act_url(links, table.id, seat, table.holder(seat), decision, move, key)}
            for label, move in common_answers(table, seat)]


def common_answers(table: games.Table, seat: int) -> list[tuple[str, Move]]:
    """(label, move) for the answers most players want: the game's own (`engine.presentation`'s
    `answers`: in an auction, say, step out or raise by the step; by default each legal move, when they
    are few, as a hand of cards is) and always the default a deadline would play. None unless the game
    runs and the seat is to decide."""
    decision = table.decision_of(seat)
    if table.status != games.RUNNING or decision is None:
        return []
    game = table.game
    answers = [(label or game.describe(move), move)
               for label, move in presentation_of(game).answers(decision, game.legal_moves(table.state, seat))]
    default = game.default_move(table.state, seat)
    labelled = [(f"{label} (the default)" if move == default else label, move) for label, move in answers]
    if default not in [move for _, move in answers]:
        labelled.append((f"Take the default: {game.describe(default)}", default))
    return labelled


def act_url(links: Links, game_id: str, seat: int, holder: int, decision: dict[str, Any], move: Move,
            key: str | None = None) -> str:
    """A link that plays `move` for the seat's decision `decision` (pending since `since`) until its
    deadline, while the seat is still held by generation `holder` and (`key`, `seat_key`) from the
    same address: a player who moves to another address leaves the old mailbox's links powerless.

    The link names the move only by a keyed digest (`choice`): a signed token is readable, and the
    move may hold the seat's secrets (the professions he keeps), which must not sit in a URL.
    """
    expires = int(deadlines.parse(decision["deadline_at"]).timestamp())
    signed = links.sign(ACT, {"g": game_id, "s": seat, "h": holder, "d": decision["since"],
                              "m": choice(links, move), "x": expires, **({"k": key} if key else {})})
    return links.url(ACT_PAGE, t=signed)


def choice(links: Links, move: Move) -> str:
    """A digest of the move keyed with the server's secret, so nobody can guess it from a link."""
    return hmac.new(links.secret.encode(), dumps(move).encode(), hashlib.sha256).hexdigest()[:32]


def unsubscribe_link(links: Links, email_hash: str, games: list[str] | None = None, game: str | None = None) -> str:
    """The address's unsubscribe link: from all mail, from one `game`'s mail, or (`games`) from those
    games' table talk."""
    payload: dict[str, Any] = {"e": email_hash, **({"g": list(games)} if games else {}),
                               **({"d": game} if game else {})}
    return links.url("/unsubscribe", t=links.sign(UNSUBSCRIBE_PURPOSE, payload))
