"""`/new`: create a game from a form, as POST /api/v1/games does: seats with names and addresses,
bots or open seats, the options, deadlines per kind of decision and the bot that stands in for a
player who keeps missing them, public or not, and when it starts. One person and bots in every
other seat, started at once, is a practice game: the bots answer his every move.

The form is read into the API's own body and checked by its schema (`GameIn`), then created as the
API creates it (`invitations.create`: every address mailed counts against the creator's limit);
seats with an address get their sign-in link by mail. This browser becomes the game's host (the
session keeps the grant; no token is shown) and lands on the host page. A signed-in creator hosts
it from his address too; one who is not may give his address, which is mailed a host link. A game
with open seats starts when full or by hand, never at once: its host page shows the join link.
"""
from __future__ import annotations

from typing import Any

from flask import Response, current_app, redirect, request, url_for
from marshmallow import ValidationError

from engine.bots import BOTS
from engine.core import Game
from engine.presentation import deadlines as deadlines_of
from engine.presentation import option_fields, options_from_form, title_of
from engine.typed import decimal_number
from service import games, invitations, titles
from service.problems import Problem
from service.schemas import GameIn
from service.web import config as web_config
from service.web import form_errors, forms
from service.web import links as web_links
from service.web import session
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("create_page", __name__)
ROWS = 5
PLAYERS = ("human", *BOTS, "open")
OPEN = "open"


@bp.route("/new", methods=["GET"])
def form() -> Response:
    return _form(request.args, None)


@bp.route("/new", methods=["POST"])
def create() -> Response:
    values = request.form
    visitor = session.current()
    try:
        spec = GameIn().load(body_from(values))
        if values.get("start") == "true" and any(seat["open"] for seat in spec["seats"]):
            return _form(values, ["A game with open seats cannot start at once: let it start when every seat is "
                                  "taken, or start it yourself."], 422)
        table, _ = invitations.create(web_store(), web_links(), spec, min_deadline=web_config().min_deadline,
                                      limit=current_app.extensions["palazzo.invite_limit"],
                                      client=request.remote_addr or "", creator=visitor.email)
    except ValidationError as error:
        return _form(values, form_errors.lines(error), 422)
    except Problem as problem:
        return _form(values, [problem.detail], 429 if problem.code == "rate_limited" else 422)
    session.sign_in(host=[table.id, table.meta["host"]])
    title = games.title_of(table)
    if values.get("start") == "true":
        games.start(web_store(), table)
        session.flash(f"“{title}” is created and started.")
    elif games.open_seats(table):
        session.flash(f"“{title}” is created. Pass its join link on: whoever opens it signs in and takes an open "
                      "seat" + ("; it starts when every seat is taken." if spec["start_when_full"] else "."))
    elif table.status == games.RUNNING:
        session.flash(f"“{title}” is created and started: every seat is taken.")
    else:
        session.flash(f"“{title}” is created; start it when everyone is seated.")
    return redirect(url_for("host_page.host", game_id=table.id), 303)


def body_from(values: Any) -> dict[str, Any]:
    """The API's POST /games body the form describes: rows without a name are left out, unless open
    (an open row's name or address, if typed, is for the schema to refuse)."""
    seats = []
    for row in range(ROWS):
        name = values.get(f"name{row}", "").strip()
        player = values.get(f"player{row}", "human")
        email = values.get(f"email{row}", "").strip()
        if player == OPEN:
            seats.append({"open": True, **({"name": name} if name else {}), **({"email": email} if email else {})})
        elif name:
            seats.append({"name": name, "email": email or None, "bot": None if player == "human" else player})
    deadlines = {}
    game = _chosen(values)
    for key, _ in deadlines_of(game):
        hours = values.get(f"deadline_{key}", "").strip()
        if hours:
            deadlines[key] = _seconds(hours)
    body: dict[str, Any] = {
        "game": game.name, "seats": seats, "deadlines": deadlines, "options": options_from_form(game, values, ""),
        "public": values.get("public") == "true", "start_when_full": values.get("start") == "full",
    }
    for text in ("title", "host_email", "stand_in"):
        typed = values.get(text, "").strip()
        if typed:
            body[text] = typed
    for number in ("missed_turns", "remove_after", "grace_hours", "vacation_days", "seed"):
        text = values.get(number, "").strip()
        if text:
            body[number] = forms.number(text)
    return body


def _chosen(values: Any) -> Game:
    """The served game the form is for (its `game` field), by default the first of PALAZZO_GAMES."""
    served = current_app.extensions["palazzo.games"]
    return next((game for game in served if game.name == values.get("game")), served[0])


def _seconds(hours: str) -> Any:
    """Hours typed (2, or 0.5) as the API's seconds; anything else as typed, for the schema to refuse."""
    number = decimal_number(hours)
    return round(number * 3600) if number is not None else hours


def _form(values: Any, errors: list[str] | None, status: int = 200) -> Response:
    """The form, again with what was typed and why it was refused when it was."""
    game = _chosen(values)
    return render("create.html", status, values=values, errors=errors, rows=ROWS, players=PLAYERS, bots=BOTS,
                  stand_in=games.STAND_IN,
                  deadlines=deadlines_of(game), game=game, games=current_app.extensions["palazzo.games"],
                  options=option_fields(game), game_title=title_of(game),
                  other_titles={other.name: title_of(other) for other in current_app.extensions["palazzo.games"]},
                  title_length=titles.LONGEST)
