"""Unsubscribing from a mail's link: GET asks, POST stops the mail (RFC 8058 one-click POSTs too).

The link is signed for its address and purpose, so it stops only that address's mail. A link from a
mail of table talk names its games too: its one-click POST stops their talk mail only, and its page
also offers the daily digest (or one mail per message again) for them, or no mail at all.
"""
from __future__ import annotations

from typing import Any

from flask import Response, request

from service import messages, preferences, web
from service.links import Links
from service.problems import Problem
from service.web.pages import blueprint, render

bp = blueprint("unsubscribe_page", __name__, session=False)  # mail providers post here with no cookie
PURPOSE = "unsubscribe"
MAX_AGE = 365 * 24 * 3600
TALK_WORDS = {"each": "one mail per message", "digest": "one mail a day with the day's messages",
              "none": "no mail for messages"}


def link(links: Links, email_hash: str, games: list[str] | None = None) -> str:
    """The address's unsubscribe link: from all mail, or (`games`) from those games' table talk."""
    payload: dict[str, Any] = {"e": email_hash, **({"g": list(games)} if games else {})}
    return links.url("/unsubscribe", t=links.sign(PURPOSE, payload))


def _opened(signed: str) -> dict[str, Any]:
    payload = web.links().open(PURPOSE, signed, MAX_AGE)
    games = payload.get("g", []) if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(payload.get("e"), str) or not isinstance(games, list) \
            or not all(isinstance(game_id, str) for game_id in games):
        raise Problem("bad_link", "this is not an unsubscribe link")
    return payload


def _page(status: int = 200, **context: Any) -> Response:
    return render("unsubscribe.html", status, **{"token": "", "done": None, "error": None, "games": [],
                                                 "choices": TALK_WORDS, **context})


@bp.route("/unsubscribe", methods=["GET"])
def confirm() -> Response:
    signed = request.args.get("t", "")[:1000]
    try:
        games = _opened(signed).get("g", [])
    except Problem:
        games = []  # the POST says what is wrong with it
    return _page(token=signed, games=games)


@bp.route("/unsubscribe", methods=["POST"])
def unsubscribe() -> Response:
    signed = (request.args.get("t") or request.form.get("t") or "")[:1000]
    try:
        payload = _opened(signed)
    except Problem as problem:
        return _page(problem.status, error=problem.detail)
    games = payload.get("g", [])
    if not games or request.form.get("all") == "yes":
        preferences.write(web.store(), payload["e"], {"mail": "none"})
        return _page(done="all")
    choice = request.form.get("talk", "none")
    choice = choice if choice in preferences.TALK_CHOICES else "none"
    for game_id in games:
        messages.choose_mail(web.store(), payload["e"], game_id, choice)
    return _page(done=TALK_WORDS[choice], games=games)
