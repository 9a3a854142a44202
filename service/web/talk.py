"""The table talk in the browser: a panel on the seat page (the seat's share: the table's messages
and its own private ones, a form to write), on the spectator page (the table's messages only) and
on the host page (the table's and his own, a form to write, a button to hide); a page of them all.

Every form is a plain same-origin POST with the session's CSRF token (the page blueprint checks it)
and posts through `service.messages.post`, as the API and replies do, with the form's key, so a
double submit posts once. Messages are shown as text: Jinja escapes them, and nothing makes a link
of them. A refused message redraws the page with why and the text kept in its box.
"""
from __future__ import annotations

from typing import Any, Callable

from flask import Response, current_app, redirect, request, url_for

from engine.typed import whole_number
from service import deadlines, games, messages, preferences
from service import phrases
from service.problems import Problem
from service.resources.common import load_game
from service.web import access, session, tableau
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("talk_page", __name__)
SHOWN = 30  # messages on a game's page; the talk page has them all
KEY_CHARS = 64
CHOICES = {"each": "one mail per message", "digest": "one mail a day", "none": "no mail"}


def panel(table: games.Table, reader: messages.Reader, form: str | None = None, draft: str = "",
          draft_to: int | None = None, most: int | None = SHOWN) -> dict[str, Any]:
    """What a talk panel shows `reader`: his share of the messages (the last `most`), and where his
    form posts (None: no form), with the draft of a message just refused."""
    store = web_store()
    found, total = messages.recent(store, table.id, reader, most) if most else \
        (messages.page(store, table.id, reader, 0, max(messages.count(store, table.id), 1))[0], None)
    names = tableau.names_of(table)
    zone = tableau.time_zone(store, table, reader.seat)
    seats = table.meta["seats"]
    mail = None
    if reader.seat is not None and seats[reader.seat].get("email_hash") and form:
        mail = {"choice": preferences.talk_choice(store, seats[reader.seat]["email_hash"], table.id),
                "choices": CHOICES, "url": url_for("talk_page.choose", game_id=table.id)}
    return {
        "messages": [{"seq": m["seq"], "sender": m["name"], "private": m["to"] is not None,
                      "to": ("you" if m["to"] == reader.seat else names[m["to"]]) if m["to"] is not None else None,
                      "when": phrases.clock(deadlines.parse(m["at"]), zone), "iso": m["at"], "text": m["text"],
                      "hidden": m["hidden"],
                      "hide": url_for("talk_page.hide", game_id=table.id, seq=m["seq"])
                      if reader.host and form and not m["hidden"] else None} for m in found],
        "earlier": total is not None and total > 0 and len(found) == most,
        "all_url": url_for("talk_page.everything", game_id=table.id),
        "form": form, "draft": draft, "draft_to": draft_to, "max": messages.MAX_CHARS,
        "recipients": [{"seat": seat, "name": entry["name"]} for seat, entry in enumerate(seats)
                       if messages.held_by_player(entry) and seat != reader.seat],
        "mail": mail, "host": reader.host, "total": total,
    }


def _posted(table: games.Table, writer: messages.Reader, back: str,
            redraw: Callable[[int, str, str, int | None], Response]) -> Response:
    """Post the form's message as `writer`; 303 to `back` when done, else the page redrawn with why."""
    text = request.form.get("text", "")
    to_field = request.form.get("to", "")
    to = whole_number(to_field) if to_field else None
    if to_field and to is None:
        return redraw(422, "That recipient could not be read; nothing was posted.", text, None)
    key = request.form.get("key", "")[:KEY_CHARS] or None
    try:
        messages.post(web_store(), table, writer, to, text, current_app.extensions["palazzo.talk_limit"],
                      f"web:{key}" if key else None)
    except Problem as problem:
        return redraw(problem.status, f"Your message was refused: {problem.detail}; nothing was posted.", text, to)
    session.flash("Your message was posted.")
    return redirect(back + "#talk", 303)


@bp.route("/games/<game_id>/talk", methods=["POST"])
def write(game_id: str) -> Response:
    """A seat's message, from the form on its page."""
    from service.web import seat_page
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)

    def redraw(status: int, problem: str, text: str, to: int | None) -> Response:
        return seat_page.draw(load_game(game_id), seat, status, problem, talk_draft=(text, to))
    return _posted(table, messages.Reader(seat), url_for("seat_page.show", game_id=game_id), redraw)


@bp.route("/games/<game_id>/host/talk", methods=["POST"])
def host_write(game_id: str) -> Response:
    """The host's message, from the form on the host page."""
    from service.web import host_page
    table = load_game(game_id)
    access.host_only(session.current(), table)

    def redraw(status: int, problem: str, text: str, to: int | None) -> Response:
        return host_page._draw(load_game(game_id), status, problem, talk_draft=(text, to))
    return _posted(table, messages.HOST, url_for("host_page.host", game_id=game_id), redraw)


@bp.route("/games/<game_id>/host/talk/<int:seq>/hide", methods=["POST"])
def hide(game_id: str, seq: int) -> Response:
    table = load_game(game_id)
    access.host_only(session.current(), table)
    messages.hide(web_store(), table, seq)
    session.flash(f"Message {seq} is hidden: only its writer still reads it.")
    return redirect(url_for("host_page.host", game_id=game_id) + "#talk", 303)


@bp.route("/games/<game_id>/talk/mail", methods=["POST"])
def choose(game_id: str) -> Response:
    """How this game's talk reaches the seat's player by mail."""
    table = load_game(game_id)
    seat = access.seat_only(session.current(), table)
    email_hash = table.meta["seats"][seat].get("email_hash")
    choice = request.form.get("choice", "")
    if not email_hash or choice not in CHOICES:
        raise Problem("bad_request", "choose one mail per message, one a day, or none, for a seat with an address")
    messages.choose_mail(web_store(), email_hash, game_id, choice)
    session.flash(f"This game's messages now come by mail as {CHOICES[choice]}.")
    return redirect(url_for("seat_page.show", game_id=game_id) + "#talk", 303)


@bp.route("/games/<game_id>/talk", methods=["GET"])
def everything(game_id: str) -> Response:
    """Every message the visitor may read: his seat's share, the host's, else the table's."""
    table = load_game(game_id)
    visitor = session.current()
    seat = access.seat_of(visitor, table)
    reader = messages.Reader(seat) if seat is not None else \
        messages.HOST if access.is_host(visitor, table) else messages.SPECTATOR
    return render("talk.html", game_id=table.id, talk=panel(table, reader, most=None), seat=seat)
