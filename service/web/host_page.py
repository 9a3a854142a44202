"""The host's page: start, pause, resume or cancel the game, rename it, hand a seat to someone else,
open a seat before the start, remove a player (with a reason the table reads), and see what went
wrong: mail that was not delivered, decisions missed, who a bot stands in for, which seats are open
and why.

Each button posts to a route that calls the same host action as the API (`service.games`), for the
host only: the browser that created the game (its session holds the host grant) or one signed in
with the address the host proved. A host who proved none can have a host link mailed to him here,
so signing out never loses him his game. Seats without an address get a seat link here for the host
to pass on, as the API hands him their tokens. The game's join link is here too, to pass on, renew
or turn off, and before the start a player who joined can be removed (his seat opens again).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from flask import Response, current_app, redirect, request, url_for
from marshmallow import ValidationError

from engine.bots import BOTS
from service import games, invitations, leaving, messages, seats, titles
from service import phrases
from service.mail import undelivered as undelivered_mail
from service.problems import Problem
from service.resources.common import as_host, game_out, load_game
from service.schemas import HostLinkIn, PauseIn, SeatIn, TitleIn
from service.web import access, form_errors, forms, session, tableau, talk, told_notices
from service.web import links as web_links
from service.web import store as web_store
from service.web.pages import blueprint, render
from service.web.seat_link import seat_url

bp = blueprint("host_page", __name__)
ACTIONS = ("start", "pause", "resume", "cancel")


@bp.route("/games/<game_id>/host", methods=["GET"])
def host(game_id: str) -> Response:
    table = load_game(game_id)
    access.host_only(session.current(), table)
    return _draw(table)


def _draw(table: games.Table, status: int = 200, problem: str | None = None,
          talk_draft: tuple[str, int | None] = ("", None)) -> Response:
    out = game_out(table, as_host(table))
    zone = "UTC"
    shown = []
    for seat in out["seats"]:
        entry = table.meta["seats"][seat["seat"]]
        link = seat_url(web_links(), table, seat["seat"]) \
            if not entry.get("bot") and not entry.get("email") and not games.seat_is_open(entry) else None
        shown.append({**seat, "name": games.seat_name(entry, seat["seat"]), "link": link,
                      "away_until": tableau.away(entry, zone)})
    names = [s["name"] for s in shown]
    pending = [{"name": names[d["seat"]], "what": tableau.waiting_for(table.meta, d["kind"]),
                "due": tableau.due(d.get("deadline_at"), zone)} for d in table.pending] \
        if table.status in (games.RUNNING, games.PAUSED) else []
    undelivered = [{**m, "kind": undelivered_mail.kind_words(m["kind"]),
                    "when": phrases.clock(datetime.fromtimestamp(m["at"], timezone.utc), zone) if m["at"] else None,
                    "name": names[m["seat"]] if m["seat"] is not None else None} for m in out["undelivered"]]
    visitor = session.current()
    proved = games.host_address_of(table)
    return render("host.html", status, game=out, seats=shown, pending=pending, problem=problem, undelivered=undelivered,
                  join=seats.link_of(web_links(), table, table.status),
                  host_address=("yours" if proved and proved == visitor.email else "other" if proved else None),
                  flash=session.take_flash(), status_words=tableau.STATUS.get(table.status, table.status),
                  paused_until=tableau.due(out["paused_until"], zone), bots=BOTS,
                  max_pauses=games.MAX_PAUSES, title_length=titles.LONGEST,
                  told=told_notices.for_host(table, zone),
                  talk=talk.panel(table, messages.HOST, url_for("talk_page.host_write", game_id=table.id),
                                  *talk_draft))


@bp.route("/games/<game_id>/host/<action>", methods=["POST"])
def act(game_id: str, action: str) -> Response:
    table = load_game(game_id)
    access.host_only(session.current(), table)
    if action not in ACTIONS:
        raise Problem("not_found", f"a host cannot {action!r}")
    store = web_store()
    if action == "cancel" and request.form.get("confirm") != "yes":
        return _draw(table, 422, "Tick the box to confirm that the game should end; nothing was changed.")
    try:
        if action == "pause":
            hours = PauseIn().load({"hours": forms.number(request.form.get("hours"))})["hours"]
            games.pause(store, table, hours)
        else:
            getattr(games, action)(store, table)
    except ValidationError:
        return _draw(table, 422, "A pause lasts 1 to 168 hours; nothing was changed.")
    except Problem as problem:
        return _draw(load_game(game_id), problem.status, f"{problem.detail}; nothing was changed.")
    session.flash({"start": "The game has started.", "pause": "The game is paused.", "resume": "The game goes on.",
                   "cancel": "The game is cancelled."}[action])
    return redirect(url_for("host_page.host", game_id=game_id), 303)


@bp.route("/games/<game_id>/host/title", methods=["POST"])
def rename(game_id: str) -> Response:
    """Give the game another title, as PUT /games/{id}/title does."""
    table = load_game(game_id)
    access.host_only(session.current(), table)
    try:
        title = TitleIn().load({"title": request.form.get("title", "")[:1000]})["title"]
        games.rename(web_store(), table, title)
    except ValidationError as error:
        return _draw(table, 422, f"The game was not renamed ({'; '.join(form_errors.lines(error))}).")
    except Problem as problem:
        return _draw(load_game(game_id), problem.status, f"{problem.detail}; nothing was changed.")
    session.flash(f"The game is now called “{title}”.")
    return redirect(url_for("host_page.host", game_id=game_id), 303)


@bp.route("/games/<game_id>/host/seats/<int:seat>", methods=["POST"])
def replace(game_id: str, seat: int) -> Response:
    """Hand a seat to another player or a bot, as PUT /games/{id}/seats/{seat} does."""
    table = load_game(game_id)
    access.host_only(session.current(), table)
    form = request.form
    player = form.get("player", "human")
    body: dict[str, Any] = {"name": form.get("name", "").strip(), "email": form.get("email", "").strip() or None,
                            "bot": None if player == "human" else player}
    try:
        spec = SeatIn().load(body)
        invitations.replace_seat(web_store(), web_links(), table, seat, spec, **_asker())
    except ValidationError as error:
        return _draw(table, 422, f"The seat was not handed over ({'; '.join(form_errors.lines(error))}).")
    except Problem as problem:
        return _draw(load_game(game_id), problem.status, f"{problem.detail}; nothing was changed.")
    session.flash(f"Seat {seat + 1} is now {spec['name']}'s.")
    return redirect(url_for("host_page.host", game_id=game_id), 303)


@bp.route("/games/<game_id>/host/seats/<int:seat>/open", methods=["POST"])
def open_seat(game_id: str, seat: int) -> Response:
    """Remove a player before the start: his seat opens again, for the join link or the host to fill."""
    return _changed(game_id, lambda table: seats.hand_over(web_store(), table, seat, {"open": True}),
                    f"Seat {seat + 1} is open again.")


@bp.route("/games/<game_id>/host/join-link/<change>", methods=["POST"])
def join_link(game_id: str, change: str) -> Response:
    """A new join link (the old one stops working), or none, as POST and DELETE /games/{id}/join-link do."""
    if change not in ("new", "off"):
        raise Problem("not_found", f"a join link cannot be {change!r}")
    if change == "new":
        return _changed(game_id, lambda table: seats.renew(web_store(), table),
                        "A new join link: the old one no longer works.")
    return _changed(game_id, lambda table: seats.revoke(web_store(), table),
                    "The join link is off: nobody can join until you make a new one.")


def _changed(game_id: str, change: Callable[[games.Table], Any], done: str) -> Response:
    """A host's change of the game, then his page saying `done`; refused, his page says why."""
    table = load_game(game_id)
    access.host_only(session.current(), table)
    try:
        change(table)
    except Problem as problem:
        return _draw(load_game(game_id), problem.status, f"{problem.detail}; nothing was changed.")
    session.flash(done)
    return redirect(url_for("host_page.host", game_id=game_id), 303)


@bp.route("/games/<game_id>/host/seats/<int:seat>/remove", methods=["POST"])
def remove(game_id: str, seat: int) -> Response:
    """Remove the seat's player at once with a reason, as POST /games/{id}/seats/{seat}/remove does."""
    table = load_game(game_id)
    access.host_only(session.current(), table)
    reason = request.form.get("reason", "")[:leaving.REASON_CHARS * 2]
    try:
        name = games.seat_name(table.meta["seats"][seat], seat) if 0 <= seat < len(table.meta["seats"]) else None
        leaving.vacate(web_store(), web_links(), table, seat, games.REMOVED, reason)
    except Problem as problem:
        return _draw(load_game(game_id), problem.status, f"{problem.detail}; nothing was changed.")
    session.flash(f"{name} no longer plays seat {seat + 1}; a stand-in plays it until someone takes it over.")
    return redirect(url_for("host_page.host", game_id=game_id), 303)


@bp.route("/games/<game_id>/host/link", methods=["POST"])
def mail_link(game_id: str) -> Response:
    """Mail the host a link that proves his address, as POST /games/{id}/host-link does."""
    table = load_game(game_id)
    access.host_only(session.current(), table)
    try:
        email = HostLinkIn().load({"email": request.form.get("email", "").strip()[:300]})["email"]
        invitations.host_link(web_store(), web_links(), table, email, **_asker())
    except ValidationError:
        return _draw(table, 422, "That is not an address we can mail; nothing was sent.")
    except Problem as problem:
        return _draw(table, problem.status, f"{problem.detail}; nothing was sent.")
    session.flash("A host link is on its way: open it within an hour to host this game from that address.")
    return redirect(url_for("host_page.host", game_id=game_id), 303)


def _asker() -> dict[str, Any]:
    """Whom a mail sent at the host's request counts against (`invitations.allow`)."""
    return {"limit": current_app.extensions["palazzo.invite_limit"], "client": request.remote_addr or "",
            "creator": session.current().email}
