"""`/`: a signed-in player's games, what each waits for and its deadline, most urgent first; the way
in for everyone else. And signing out."""
from __future__ import annotations

from typing import Any

from flask import Response, current_app, redirect, url_for

from engine.presentation import listing, title_of
from service import player_games, preferences
from service.web import access, session, tableau
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("home_page", __name__)


@bp.route("/", methods=["GET"])
def home() -> Response:
    visitor = session.current()
    if not visitor.signed_in:
        played = listing([title_of(game) for game in current_app.extensions["palazzo.games"]])
        return render("home.html", games=[], flash=[], zone="UTC", played=played)
    zone = preferences.read(web_store(), visitor.email)["time_zone"] if visitor.email else "UTC"
    return render("home.html", games=games_of(visitor, zone), flash=session.take_flash(), zone=zone)


def games_of(visitor: session.Visitor, zone: str) -> list[dict[str, Any]]:
    """Every game this browser holds a seat at or hosts (by the browser's grants or the address it
    signed in with), with its title, whose turn it is and, once over, his result: two round trips
    (`player_games.heads_of`). A seat counts only while the game still gives it to him
    (access.seat_of), as on the seat page, and hosting likewise (access.is_host)."""
    granted = {game_id for game_id, _, _ in visitor.seats} | {game_id for game_id, _ in visitor.hosts}
    found, _, _ = player_games.heads_of(web_store(), visitor.email, sorted(granted))
    listed = []
    for head in found.values():
        seat = access.seat_of(visitor, head)
        host = access.is_host(visitor, head)
        if seat is None and not host:
            continue
        item = player_games.entry(head, seat, host)
        for waiting in item["waiting"]:
            waiting.update(what=tableau.waiting_for(head.meta, waiting["kind"]),
                           due=tableau.due(waiting["deadline_at"], zone))
        listed.append({**item, "status_words": tableau.STATUS.get(head.status, head.status),
                       "outcome": _outcome(item)})
    return player_games.ordered(listed)


def _outcome(item: dict[str, Any]) -> str | None:
    """A finished game's end in a sentence for him: "You came 2nd of 4 with 48 points; Ann won"."""
    result = item["result"]
    if result is None:
        return None
    winners = listing(result["winners"]) if result["winners"] else None
    won = f"{winners} {'won' if len(result['winners']) == 1 else 'shared the win'}" if winners else None
    if result["rank"] is None:
        return f"{won}." if won else None
    points = f" with {result['score']} points" if result["score"] is not None else ""
    if result["rank"] == 1:
        alone = len(result["winners"]) == 1
        return f"You won{points}." if alone else f"You shared the win{points} ({winners})."
    return f"You came {_ordinal(result['rank'])} of {len(item['players'])}{points}; {won}."


def _ordinal(rank: int) -> str:
    return f"{rank}{'th' if 10 <= rank % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th')}"


@bp.route("/sign-out", methods=["POST"])
def sign_out() -> Response:
    session.sign_out()
    return redirect(url_for("home_page.home"), 303)
