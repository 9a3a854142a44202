"""`/join?link=...`: the join link's page, and `/lobby`, the public games anyone may join.

The join page shows the game before anyone joins (its options, deadlines, who sits where). A
visitor who has not proved an address asks for the mailed sign-in link there (`POST /join/mail`):
it goes to any address, since the join link is the host's invitation, counted against the client
like one, and the link leads back to this page once opened (`signin.redeem_link`). A signed-in
visitor picks a name (and a seat, if he likes) and takes it with a same-origin POST carrying the
session's CSRF token, through `seats.join`, as the API's `POST /games/{id}/join` does.
"""
from __future__ import annotations

from typing import Any

from flask import Response, current_app, redirect, request, url_for
from marshmallow import ValidationError

from engine.core import get_game, option_words
from engine.presentation import deadlines as deadlines_of
from service import deadlines, games, invitations, seats, signin
from service import phrases
from service.problems import Problem
from service.schemas import JoinIn, LobbyQuery, SignInIn
from service.web import form_errors, forms, session
from service.web import links as web_links
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("join_page", __name__)
LINK_CHARS = 1000
LOBBY_PAGE = 20
LINK_CODES = ("bad_join_link", "join_link_expired", "join_link_revoked", "game_over", "game_not_found")


def join_url(game_id: str, join_id: str) -> str:
    """The join page (path only) a sign-in asked for from it leads back to: always this site's own page."""
    return url_for("join_page.show", link=seats.sign(web_links(), game_id, join_id))


@bp.route(seats.PAGE, methods=["GET"])
def show() -> Response:
    signed = request.args.get("link", "")[:LINK_CHARS]
    return _draw(seats.opened(web_store(), web_links(), signed), signed)


@bp.route(seats.PAGE, methods=["POST"])
def take() -> Response:
    """Take an open seat (the form's CSRF token is checked by the blueprint)."""
    signed = request.form.get("link", "")[:LINK_CHARS]
    table = seats.opened(web_store(), web_links(), signed)
    visitor = session.current()
    if not visitor.email:
        return _draw(table, signed, 403, "Sign in first: we mail you a link, and it brings you back here.")
    seat, was = request.form.get("seat", "").strip(), table.status
    try:
        body = JoinIn().load({"link": signed, "name": request.form.get("name", "")[:200],
                              "seat": forms.number(seat) if seat else None})
        table, taken = seats.join(web_store(), web_links(), signed, visitor.email, body["name"], body["seat"])
    except ValidationError as error:
        return _draw(table, signed, 422, f"You did not join ({'; '.join(form_errors.lines(error))}).")
    except Problem as problem:
        if problem.code in LINK_CODES:
            raise
        return _draw(games.load(web_store(), table.id), signed, problem.status, f"{problem.detail}; you did not join.")
    started = was == games.OPEN and table.status == games.RUNNING
    session.flash(f"You have taken seat {taken + 1}." + (" It was the last open seat: the game has started."
                                                          if started else ""))
    return redirect(url_for("seat_page.show", game_id=table.id), 303)


@bp.route(f"{seats.PAGE}/mail", methods=["POST"])
def mail_link() -> Response:
    """Mail a sign-in link that leads back here, to any address: the same page whether or not it went."""
    signed = request.form.get("link", "")[:LINK_CHARS]
    store = web_store()
    table = seats.opened(store, web_links(), signed)
    try:
        email = SignInIn().load({"email": request.form.get("email", "")[:300]})["email"]
        join = seats.for_sign_in(store, web_links(), signed)
        invitations.allow(store, current_app.extensions["palazzo.invite_limit"], request.remote_addr or "", None, 1)
    except ValidationError:
        return _draw(table, signed, 422, "That is not an address we can mail; nothing was sent.")
    except Problem as problem:
        if problem.code in LINK_CODES:
            raise
        return _draw(table, signed, problem.status, f"{problem.detail}; nothing was sent.")
    signin.send_link(store, web_links(), email, join)
    return _draw(table, signed, mailed=True)


def _draw(table: games.Table, signed: str, status: int = 200, problem: str | None = None,
          mailed: bool = False) -> Response:
    visitor = session.current()
    seat = table.seat_of_email(visitor.email) if visitor.email else None
    return render("join.html", status, game=_shown(seats.listed(web_links(), table)), link=signed, seat=seat,
                  problem=problem, mailed=mailed, free=games.open_seats(table), flash=session.take_flash())


@bp.route("/lobby", methods=["GET"])
def lobby() -> Response:
    try:
        query = LobbyQuery().load({"after": request.args.get("after") or None, "limit": LOBBY_PAGE})
        listed, after = seats.lobby_page(web_store(), web_links(), query["after"], query["limit"])
    except (ValidationError, Problem):
        return render("lobby.html", 422, games=[], after=None, problem="That page of the lobby does not exist.")
    return render("lobby.html", games=[_shown(game) for game in listed], after=after, problem=None)


def _shown(game: dict[str, Any]) -> dict[str, Any]:
    """A listed game (`seats.listed`) with what people read: its terms in words, when it was made."""
    return {**game, "terms": terms(game), "created": phrases.clock(deadlines.parse(game["created_at"]), "UTC"),
            "played": games.game_words(game["game"])}


def terms(meta: dict[str, Any]) -> list[str]:
    """A game's options and deadlines in words, as a joiner wants to read them before he joins (from
    its meta, or its lobby entry, which names them alike)."""
    options = meta["options"]
    lines = [f"{options['seats']} seats"]
    lines += option_words(get_game(meta["game"]), options)
    words = dict(deadlines_of(get_game(meta["game"])))
    set_ = meta["deadlines"]
    lines += [f"{_span(seconds)} for {words.get(key, key.replace('_', ' '))}" for key, seconds in set_.items()]
    if not set_:
        lines.append("24 hours for each decision, 12 for a bid")
    lines.append(f"the {games.stand_in_of(meta)} bot stands in after {meta['missed_turns']} missed decisions in a row")
    if meta.get("grace_hours"):
        lines.append(f"a first missed deadline gives {_span(meta['grace_hours'] * 3600)} more, once")
    if meta.get("start_when_full"):
        lines.append("it starts when every seat is taken")
    return lines


def _span(seconds: int) -> str:
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return f"{hours} hour" if hours == 1 else f"{hours} hours"
    if seconds < 3600:
        minutes = round(seconds / 60)
        return f"{minutes} minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds / 3600:.1f} hours"
