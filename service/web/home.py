"""`/`: a signed-in player's games, what each waits for and its deadline, most urgent first; the way
in for everyone else. And signing out."""
from __future__ import annotations

from typing import Any

from flask import Response, redirect, url_for

from service import preferences
from service.store import email_key, game_key, loads
from service.web import session, tableau
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("home_page", __name__)
FIELDS = ["version", "status", "pending", "meta"]


@bp.route("/", methods=["GET"])
def home() -> Response:
    visitor = session.current()
    if not visitor.signed_in:
        return render("home.html", games=[], flash=[], zone="UTC")
    zone = preferences.read(web_store(), visitor.email)["time_zone"] if visitor.email else "UTC"
    return render("home.html", games=games_of(visitor, zone), flash=session.take_flash(), zone=zone)


def games_of(visitor: session.Visitor, zone: str) -> list[dict[str, Any]]:
    """Every game this browser holds a seat at or hosts, with what it waits for (the /me/turns data)."""
    redis = web_store().redis
    held: dict[str, dict[str, Any]] = {}
    if visitor.email:
        for member in redis.smembers(email_key(visitor.email, "seats")):
            game_id, seat = member.rsplit(":", 1)
            held.setdefault(game_id, {"seat": None, "host": False})["seat"] = int(seat)
    for game_id, seat, _ in visitor.seats:
        held.setdefault(game_id, {"seat": None, "host": False})["seat"] = seat
    for game_id, _ in visitor.hosts:
        held.setdefault(game_id, {"seat": None, "host": False})["host"] = True
    ids = sorted(held)
    with redis.pipeline(transaction=False) as pipe:
        for game_id in ids:
            pipe.hmget(game_key(game_id, "game"), FIELDS)
        heads = pipe.execute()
    listed = []
    for game_id, (version, status, pending, meta) in zip(ids, heads):
        if version is None:
            continue
        meta = loads(meta)
        names = [entry["name"] for entry in meta["seats"]]
        seat = held[game_id]["seat"]
        waiting = [{"name": names[d["seat"]], "me": d["seat"] == seat, "what": tableau.WAITING.get(d["kind"], d["kind"]),
                    "due": tableau.due(d.get("deadline_at"), zone), "at": d.get("deadline_at") or "9999"}
                   for d in loads(pending)] if status == "running" else []
        mine = [w for w in waiting if w["me"]]
        listed.append({"id": game_id, "seat": seat, "name": names[seat] if seat is not None else None,
                       "host": held[game_id]["host"], "status": tableau.STATUS.get(status, status),
                       "players": names, "waiting": waiting, "yours": bool(mine),
                       "urgent": min((w["at"] for w in mine), default="9999")})
    listed.sort(key=lambda game: (not game["yours"], game["urgent"], game["id"]))
    return listed


@bp.route("/sign-out", methods=["POST"])
def sign_out() -> Response:
    session.sign_out()
    return redirect(url_for("home_page.home"), 303)
