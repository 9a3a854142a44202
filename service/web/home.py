"""`/`: a signed-in player's games, what each waits for and its deadline, most urgent first; the way
in for everyone else. And signing out."""
from __future__ import annotations

from typing import Any

from flask import Response, redirect, url_for

from service import games, preferences
from service.web import access, session, tableau
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("home_page", __name__)


@bp.route("/", methods=["GET"])
def home() -> Response:
    visitor = session.current()
    if not visitor.signed_in:
        return render("home.html", games=[], flash=[], zone="UTC")
    zone = preferences.read(web_store(), visitor.email)["time_zone"] if visitor.email else "UTC"
    return render("home.html", games=games_of(visitor, zone), flash=session.take_flash(), zone=zone)


def games_of(visitor: session.Visitor, zone: str) -> list[dict[str, Any]]:
    """Every game this browser holds a seat at or hosts (by the browser's grants or the address it
    signed in with), with what it waits for (the /me/turns data). A seat counts only while the game
    still gives it to him (access.seat_of), as on the seat page, and hosting likewise (access.is_host)."""
    store = web_store()
    found = {game_id: head for game_id, (_, head) in games.seats_held(store, visitor.email).items()} \
        if visitor.email else {}
    if visitor.email:
        found.update(games.hosted_by(store, visitor.email))
    granted = {game_id for game_id, _, _ in visitor.seats} | {game_id for game_id, _ in visitor.hosts}
    found.update(games.heads(store, sorted(granted - set(found))))
    listed = []
    for game_id, head in found.items():
        seat = access.seat_of(visitor, head)
        host = access.is_host(visitor, head)
        if seat is None and not host:
            continue
        names = [games.seat_name(entry) for entry in head.meta["seats"]]
        waiting = [{"name": names[d["seat"]], "me": d["seat"] == seat,
                    "what": tableau.waiting_for(head.meta, d["kind"]),
                    "due": tableau.due(d.get("deadline_at"), zone), "at": d.get("deadline_at") or "9999"}
                   for d in head.pending] if head.status == games.RUNNING else []
        mine = [w for w in waiting if w["me"]]
        listed.append({"id": game_id, "seat": seat, "name": names[seat] if seat is not None else None,
                       "host": host, "status": tableau.STATUS.get(head.status, head.status),
                       "players": names, "waiting": waiting, "yours": bool(mine),
                       "urgent": min((w["at"] for w in mine), default="9999")})
    listed.sort(key=lambda game: (not game["yours"], game["urgent"], game["id"]))
    return listed


@bp.route("/sign-out", methods=["POST"])
def sign_out() -> Response:
    session.sign_out()
    return redirect(url_for("home_page.home"), 303)
