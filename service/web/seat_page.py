"""The seat page: a player's whole game in one page, and every move he may make as a form.

GET draws the page for the seat this browser holds; its player may leave the game from it, through a
page that asks first (/games/<id>/leave). POST /games/<id>/play turns the form into the API's move object, checks it with the API's schema and submits it through `playing.submit`, the
path every channel takes, against the version the page was drawn at. A stale page gets the game as
it is now with a line saying nothing was played (409); an illegal move the same with the rules'
reason (422). Success redirects back to the page (303), so a reload never posts twice.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Response, redirect, request, url_for
from marshmallow import ValidationError

from engine.presentation import presentation_of
from engine.typed import whole_number
from service import games, leaving, messages, playing
from service.games import Table
from service.problems import Problem
from service.resources.common import load_game
from service.vocabulary import check_move
from service.web import access, form_errors, forms, session, tableau, talk, told_notices, vacation_panel
from service import story
from service.web import links as web_links
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("seat_page", __name__)
KEY_CHARS = 64


def seat_href(game_id: str, **step: Any) -> str:
    """The seat page with the steps of a placement or a publish preview in its query."""
    query = urlencode({k: v for k, v in step.items() if v is not None})
    return url_for("seat_page.show", game_id=game_id) + (f"?{query}" if query else "") + "#decision"


@bp.route("/games/<game_id>", methods=["GET"])
def show(game_id: str) -> Response:
    table = load_game(game_id)
    seat = access.seat_of(session.current(), table)
    if seat is None:
        return redirect(url_for("watch_page.watch", game_id=game_id), 303)
    unread = presentation_of(table.game).unreadable(request.args)
    if unread:
        return draw(table, seat, 400, f"This page's address holds a {' and a '.join(unread)} that could not be "
                                      "read, so the piece is shown from its first place; nothing was played.")
    return draw(table, seat)


def draw(table: Table, seat: int, status: int = 200, problem: str | None = None,
         talk_draft: tuple[str, int | None] = ("", None)) -> Response:
    """The seat page as the game stands; `problem` says why a move (or a message: its `talk_draft`,
    text and recipient, stays in the form) was refused, if one was.

    The query holds the steps of a preview (a placement, a publish). Every move form posts to
    /games/<id>/play, whose address has none, so a redraw after a refused move shows no preview."""
    visitor = session.current()
    view = table.game.view(table.state, seat)
    context: dict[str, Any] = {
        "seat": seat, "game": table.game, "problem": problem, "flash": session.take_flash(),
        "host": access.is_host(visitor, table), "play_url": url_for("seat_page.play", game_id=table.id),
        "talk": talk.panel(table, messages.Reader(seat), url_for("talk_page.write", game_id=table.id), *talk_draft),
        "told": told_notices.for_seat(web_store(), table, seat, tableau.time_zone(web_store(), table, seat)),
        "vacation": vacation_panel.panel(table, seat, tableau.time_zone(web_store(), table, seat)),
    }
    shown = presentation_of(table.game)
    if not shown.seat_page:
        moves = table.game.legal_moves(table.state, seat) if table.decision_of(seat) else []
        zone = tableau.time_zone(web_store(), table, seat)
        brief = {"game_id": table.id, "title": games.title_of(table), "version": table.version, "status": table.status,
                 "log_total": web_store().feed_length(table.id),
                 "away": [{"seat": number, "name": games.seat_name(entry, number), "me": number == seat, "until": until}
                          for number, entry in enumerate(table.meta["seats"]) if (until := tableau.away(entry, zone))]}
        return render("seat_generic.html", status, table=brief, view=view, board=board_of(table, view, seat),
                      moves=[(table.game.describe(m), m) for m in moves], **context)
    context["table"] = tableau.table_context(web_store(), table, seat, view)
    context.update(shown.seat_forms(table.state, view, seat, table.decision_of(seat), table.status == games.RUNNING,
                                    request.args.to_dict(flat=False), lambda **step: seat_href(table.id, **step)))
    return render(f"games/{table.game.name}/{shown.seat_page}", status, **context)


def board_of(table: Table, view: dict[str, Any], viewer: int | None) -> dict[str, Any] | None:
    """The game's own board partial (under games/<name>/) and what it draws, for a game that has one."""
    shown = presentation_of(table.game)
    if not shown.board:
        return None
    return {"template": f"games/{table.game.name}/{shown.board}", "moves": shown.board_moves,
            "facts": shown.board_facts(view, viewer, tableau.names_of(table))}


@bp.route("/games/<game_id>/play", methods=["POST"])
def play(game_id: str) -> Response:
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    seen = whole_number(request.form.get("version"))
    if seen is None:
        raise Problem("bad_request", "the form does not say which version of the game it was drawn at")
    try:
        move = check_move(table.game, forms.move_from(table.game, request.form))
    except ValidationError as error:
        first = form_errors.lines(error)[0]
        return draw(table, seat, 422, f"That move could not be read ({first}); nothing was played.")
    except Problem as problem:
        return draw(table, seat, problem.status, f"{problem.detail}; nothing was played.")
    key = request.form.get("key", "")[:KEY_CHARS] or None
    label = table.game.describe(move)
    try:
        playing.submit(web_store(), table, seat, move, seen,
                       lambda after, events: {"label": label, "version": after.version},
                       f"web:{key}" if key else None)
    except Problem as problem:
        fresh = load_game(game_id)
        if problem.code == "stale_version":
            return draw(fresh, seat, 409, "The game moved on since this page was drawn, so nothing was played. "
                                          "Here it is as it stands now.")
        if problem.status == 422:
            return draw(fresh, seat, 422, f"That move was refused: {problem.detail}. Nothing was played.")
        return draw(fresh, seat, problem.status, f"{problem.detail}. Nothing was played.")
    session.flash(f"Done: {label}.")
    return redirect(url_for("seat_page.show", game_id=game_id) + "#top", 303)


@bp.route("/games/<game_id>/leave", methods=["GET"])
def leave_confirm(game_id: str) -> Response:
    """What leaving means, and the one button that does it: a link to this page leaves nobody."""
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    return _leave_page(table, seat)


def _leave_page(table: Table, seat: int, status: int = 200, problem: str | None = None) -> Response:
    return render("leave.html", status, heading="Leave this game?", game_id=table.id, seat=seat,
                  name=table.meta["seats"][seat]["name"], link=None, problem=problem, done=False,
                  action=url_for("seat_page.leave", game_id=table.id))


@bp.route("/games/<game_id>/leave", methods=["POST"])
def leave(game_id: str) -> Response:
    """Leave, from the confirmation page's button (CSRF checked by the blueprint); without its
    `confirm` the page is shown again and nothing changes."""
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    if request.form.get("confirm") != "yes":
        return _leave_page(table, seat, 422, "Press the button below to leave; nothing was changed.")
    name = table.meta["seats"][seat]["name"]
    leaving.vacate(web_store(), web_links(), table, seat, games.LEFT, holder=table.holder(seat))
    session.flash(f"You have left game {table.id}, where you played as {name}; a stand-in plays the seat until "
                  "someone takes it over.")
    return redirect(url_for("home_page.home"), 303)


@bp.route("/games/<game_id>/log", methods=["GET"])
def log(game_id: str) -> Response:
    """The whole log, for a seat of this browser or, failing that, as a spectator sees it."""
    table = load_game(game_id)
    reader = access.seat_of(session.current(), table)
    total = web_store().feed_length(table.id)
    entries, _, _ = games.events_for(web_store(), table.id, reader, 0, max(total, 1))
    return render("log.html", game_id=table.id, title=games.title_of(table),
                  lines=story.lines(table.game, entries, tableau.names_of(table), reader),
                  reader=reader)
