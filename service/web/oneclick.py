"""One-click answers from a mail.

A link names one move for one seat's one decision (its `since`), for the player who held the seat
when it was mailed (the seat's holder generation), and dies at that decision's deadline or when the
seat is handed to someone else.
Opening it (GET) only shows a confirm page, because mail scanners open links; the confirm (POST) plays
the move through `playing.submit` against that decision, so a stale or used link acts on nothing, and
an idempotency key taken from the link makes a double click or a replay apply at most once.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flask import Response, request, url_for

from engine.core import Move
from engine.presentation import asking, presentation_of
from service import deadlines, games, playing, web
from service.links import Links
from service.mailed_links import ACT, ACT_PAGE, choice, common_answers, one_click, seat_key
from service.problems import Problem
from service.web import tableau
from service.web.pages import blueprint, render

MAX_AGE = 60 * 24 * 3600  # a backstop: longer than any deadline (30 days) plus a pause or two
TOKEN_CHARS = 4000

bp = blueprint("oneclick", __name__, session=False)  # opened from a mail program, which keeps no cookie


@dataclass(frozen=True)
class Answer:
    """What an act link says: seat `seat` of game `game_id`, held by generation `holder`, answers the
    decision pending since `since` with `move`, until `expires` (epoch seconds)."""

    game_id: str
    seat: int
    holder: int
    since: int
    choice: str
    expires: int
    key: str | None = None  # the seat's address (or token) it was mailed for; links made before it name none

    @property
    def expired(self) -> bool:
        return deadlines.now().timestamp() >= self.expires

    @property
    def idempotency(self) -> str:
        """The same for every link to this answer, so however often it is followed it plays once."""
        return f"one-click:{self.since}:{self.choice}"

    def move(self, links: Links, table: games.Table) -> Move | None:
        """The answer this link names among the seat's answers now, or None if it is no longer one."""
        return next((move for _, move in common_answers(table, self.seat) if choice(links, move) == self.choice), None)


def open_answer(links: Links, signed: str) -> Answer:
    """The answer an act link names; 403 when forged, altered, made for another purpose or too old."""
    payload = links.open(ACT, signed[:TOKEN_CHARS], MAX_AGE)
    if not isinstance(payload, dict) or set(payload) - {"k"} != {"g", "s", "h", "d", "m", "x"}:
        raise Problem("bad_link", "this is not a one-click link")
    return Answer(payload["g"], payload["s"], payload["h"], payload["d"], str(payload["m"]), payload["x"],
                  payload.get("k"))


def _holder_only(answer: Answer, table: games.Table) -> None:
    """Refuse (403) a link mailed to a player who no longer holds its seat: it shows and plays nothing."""
    if not table.held_by(answer.seat, answer.holder):
        raise Problem("bad_link", "this seat has been handed to someone else, so its old links no longer work")
    if answer.key is not None and seat_key(table.meta["seats"][answer.seat]) != answer.key:
        raise Problem("bad_link", "this seat's player plays from another address now, so its old links no longer work")


@bp.route(ACT_PAGE, methods=["GET"])
def confirm() -> Response:
    """Show what the link would play and ask; never acts."""
    signed = request.args.get("t", "")
    answer = open_answer(web.links(), signed)
    table = games.load(web.store(), answer.game_id)
    _holder_only(answer, table)
    refusal = _refusal(answer, table)
    if refusal is not None:
        return refusal
    move = answer.move(web.links(), table)
    if move is None:
        return _moved_on(table, answer.seat)
    return _page(200, "Confirm your answer", confirm={"label": table.game.describe(move), "token": signed,
                                                      "action": url_for("oneclick.act")},
                 situation=_situation(table, answer.seat, answers=False))


@bp.route(ACT_PAGE, methods=["POST"])
def act() -> Response:
    """Play the link's move, once, while its decision is still the seat's pending one."""
    answer = open_answer(web.links(), request.form.get("t", ""))
    store = web.store()
    table = games.load(store, answer.game_id)
    _holder_only(answer, table)
    if answer.expired:
        return _expired(table, answer.seat)
    done = store.redis.get(playing.idempotency_key_for(answer.game_id, answer.seat, answer.idempotency))
    if done is not None:  # followed again: the same result page, nothing played
        label = json.loads(done)["body"]["label"]
        return _page(200, f"Done: {label}", situation=_situation(table, answer.seat))
    move = answer.move(web.links(), table)
    if move is None:
        return _moved_on(table, answer.seat)
    label = table.game.describe(move)
    try:
        playing.submit(store, table, answer.seat, move, answer.since,
                       lambda after, events: {"label": label, "version": after.version}, answer.idempotency)
    except Problem as problem:
        if problem.code == "game_not_found":
            raise
        return _moved_on(games.load(store, answer.game_id), answer.seat, problem)
    return _page(200, f"Done: {label}", situation=_situation(games.load(store, answer.game_id), answer.seat))


@bp.errorhandler(Problem)
def _refused(problem: Problem) -> Response:
    """A forged, foreign or worn-out link, or a game that is gone: say so, in a page."""
    return _page(problem.status, "This link does not work", message=problem.detail)


def _refusal(answer: Answer, table: games.Table) -> Response | None:
    """The page for a link that may no longer act (past its deadline, or its decision gone), else None."""
    if answer.expired:
        return _expired(table, answer.seat)
    decision = table.decision_of(answer.seat)
    if table.status != games.RUNNING or decision is None or decision["since"] != answer.since:
        return _moved_on(table, answer.seat)
    return None


def _expired(table: games.Table, seat: int) -> Response:
    """The game as it is now, without fresh links: an expired link must not lead to live ones."""
    return _page(410, "This link has expired", message="Its decision's deadline has passed; nothing was played.",
                 situation=_situation(table, seat, answers=False))


def _moved_on(table: games.Table, seat: int, problem: Problem | None = None) -> Response:
    detail = None if problem is None or problem.code == "stale_version" else problem.detail
    return _page(409, "This decision has moved on", message=detail or "Nothing was played with this link.",
                 situation=_situation(table, seat))


def _situation(table: games.Table, seat: int, answers: bool = True) -> dict[str, Any]:
    """What the seat may see now, from its own view only: its decision in words, what the game shows at
    a glance (`engine.presentation`'s `glance`: the round, its cash, everyone's prestige), and (with
    `answers`) fresh one-click answers, bound to the same holder.

    Never a seat link: a one-click link travels in mail that is forwarded and scanned, and must not
    become a way into the whole seat; the page links to the seat page itself, which asks who you are.
    """
    view = table.game.view(table.state, seat)
    names = tableau.names_of(table)
    fresh = one_click(web.links(), table, seat) if answers else []
    decision = table.decision_of(seat) if table.status == games.RUNNING else None
    shown = presentation_of(table.game)
    return {
        "game_id": table.id, "title": games.title_of(table), "game": games.game_words(table.meta["game"]),
        "seat": seat, "name": names[seat], "status": _status(table),
        "decision": {"words": asking(table.game, view, decision),
                     "due": tableau.due(decision["deadline_at"], tableau.time_zone(web.store(), table, seat))}
        if decision else None,
        "one_click": fresh, "seat_page": url_for("seat_page.show", game_id=table.id),
        "glance": {"where": None, "means": [], "standings": [],
                   "lines": shown.decision_lines(view, seat, decision, names) if decision else [],
                   **shown.glance(view, seat, decision, names)},
    }


def _status(table: games.Table) -> str:
    if table.status == games.PAUSED:
        return f"paused until {table.meta['paused_until']}"
    return tableau.STATUS.get(table.status, table.status)


def _page(status: int, heading: str, **context: Any) -> Response:
    context = {"message": None, "confirm": None, "situation": None, **context}
    return render("oneclick.html", status, heading=heading, **context)
