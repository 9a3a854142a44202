"""Unsubscribing from a mail's link: GET asks, POST stops the mail (RFC 8058 one-click POSTs too).

The link is signed for its address and purpose, so it stops only that address's mail. A link from a
game's own mail (a decision, a reminder, a round's result) names the game: its one-click POST stops
that game's mail only (the game's own `mail: none`), and its page offers all mail too. A link from a
mail of table talk names its games too: its one-click POST stops their talk mail only, and its page
also offers the daily digest (or one mail per message again) for them, or no mail at all. A link
naming no game stops all mail. Each page says what it stops and links to the settings page, where
all of it can be undone.
"""
from __future__ import annotations

from typing import Any

from flask import Response, request

from service import games, messages, preferences, web
from service.mailed_links import UNSUBSCRIBE_PURPOSE as PURPOSE
from service.mailed_links import unsubscribe_link as link  # noqa: F401  (the pages' name for it)
from service.problems import Problem
from service.web.pages import blueprint, render

bp = blueprint("unsubscribe_page", __name__, session=False)  # mail providers post here with no cookie
MAX_AGE = 365 * 24 * 3600
TALK_WORDS = {"each": "one mail per message", "digest": "one mail a day with the day's messages",
              "none": "no mail for messages"}


def _opened(signed: str) -> dict[str, Any]:
    payload = web.links().open(PURPOSE, signed, MAX_AGE)
    games = payload.get("g", []) if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(payload.get("e"), str) or not isinstance(games, list) \
            or not all(isinstance(game_id, str) for game_id in games) or not isinstance(payload.get("d", ""), str):
        raise Problem("bad_link", "this is not an unsubscribe link")
    return payload


def _title(game_id: str | None) -> str | None:
    head = games.heads(web.store(), [game_id]).get(game_id) if game_id else None
    return games.title_of(head) if head is not None else game_id


def _page(status: int = 200, **context: Any) -> Response:
    return render("unsubscribe.html", status, **{"token": "", "done": None, "error": None, "games": [],
                                                 "game": None, "title": None, "choices": TALK_WORDS, **context})


@bp.route("/unsubscribe", methods=["GET"])
def confirm() -> Response:
    signed = request.args.get("t", "")[:1000]
    try:
        payload = _opened(signed)
    except Problem:
        payload = {}  # the POST says what is wrong with it
    return _page(token=signed, games=payload.get("g", []), game=payload.get("d"), title=_title(payload.get("d")))


@bp.route("/unsubscribe", methods=["POST"])
def unsubscribe() -> Response:
    signed = (request.args.get("t") or request.form.get("t") or "")[:1000]
    try:
        payload = _opened(signed)
    except Problem as problem:
        return _page(problem.status, error=problem.detail)
    talk, game = payload.get("g", []), payload.get("d")
    if request.form.get("all") == "yes" or not (talk or game):
        preferences.write(web.store(), payload["e"], {"mail": "none"})
        return _page(done="all")
    if game:
        preferences.set_game(web.store(), payload["e"], game, mail="none")
        return _page(done="game", game=game, title=_title(game))
    choice = request.form.get("talk", "none")
    choice = choice if choice in preferences.TALK_CHOICES else "none"
    for game_id in talk:
        messages.choose_mail(web.store(), payload["e"], game_id, choice)
    return _page(done=TALK_WORDS[choice], games=talk)
