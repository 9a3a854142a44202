"""A finished game's archive page: its final standings and a replay viewer, one move a step.

`?step=N` shows the game after its first N moves (0: as it began; none: at its end), with links to
the first, previous, next and last step and a form to go to any, so it needs no script. Each step
shows its move in the game's words (`describe`), its sentences of the log (`story`, for no seat)
and the board then, drawn by the game's presentation (`archive_board`, else its `board`, else the
view as data) from `game.view(state, None)`.

Only a finished game has one, for the rule `service.records` keeps: the setup and the moves (a
standing order, a sealed bid) hide what the players may not know until the end. Since the end they
are in the game's record for anyone who may watch it, so the page shows each move whole; of the
board it shows what a spectator sees. A game not finished answers 404 `game_not_over`.
"""
from __future__ import annotations

from typing import Any

from flask import Response, request, url_for

from engine.core import redact, standings
from engine.presentation import presentation_of
from engine.typed import whole_number
from service import games, story
from service.games import FINISHED, Table
from service.problems import Problem
from service.resources.common import load_game
from service.web import access, session, tableau
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("archive_page", __name__)


@bp.route("/games/<game_id>/archive", methods=["GET"])
def archive(game_id: str) -> Response:
    table = load_game(game_id)
    if table.status != FINISHED:
        raise Problem("game_not_over", f"game {game_id} is {table.status}: its archive page exists once it is "
                                       "finished, when all its moves may be shown")
    log = web_store().log(table.id)
    step = _step(request.args.get("step"), len(log))
    state, shown = games.first_state(table), None
    for number, (entry, state, events) in enumerate(games.replayed(table, log[:step]), 1):
        if number == step:
            shown = (entry, events)
    names = tableau.names_of(table)
    return render("archive.html", game_id=table.id, title=games.title_of(table), step=step, last=len(log),
                  steps={"first": 0, "prev": max(step - 1, 0), "next": min(step + 1, len(log)), "last": len(log)},
                  href=lambda n: url_for("archive_page.archive", game_id=table.id, step=n),
                  move=_move(table, names, *shown) if shown else None,
                  standings=_standings(table, names), result=table.game.result(table.state),
                  board=_board(table, state, names, step == len(log)),
                  seat=access.seat_of(session.current(), table))


def _step(asked: str | None, last: int) -> int:
    """The step the query asks for: the end when it names none; refused (400) when it cannot be read."""
    if asked is None:
        return last
    step = whole_number(asked)
    if step is None or step > last:
        raise Problem("bad_request", f"there is no step {asked!r}: this game's steps go from 0 (its start) to {last}")
    return step


def _move(table: Table, names: list[str], entry: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """The step's move: who made it, how (a deadline's default, a bot), when, and what the log says of it."""
    return {"name": names[entry["seat"]], "label": table.game.describe(entry["move"]), "at": entry.get("at"),
            "timeout": bool(entry.get("timeout")), "bot": entry.get("bot"),
            "lines": [story.sentence(table.game, event, names, None) for event in redact(events, None)]}


def _standings(table: Table, names: list[str]) -> list[dict[str, Any]] | None:
    ranked = standings(table.game, table.game.result(table.state))
    if ranked is None:
        return None
    return [{"rank": s["rank"], "name": names[s["seat"]], "score": s["score"]}
            for s in sorted(ranked, key=lambda s: (s["rank"], s["seat"]))]


def _board(table: Table, state: dict[str, Any], names: list[str], over: bool) -> dict[str, Any]:
    """What the page draws of the board at the step: the game's archive partial and its facts, its
    board partial, or (neither) the view itself."""
    view = table.game.view(state, None)
    shown = presentation_of(table.game)
    if shown.archive_board:
        status = FINISHED if over else games.RUNNING
        facts = {"game_id": table.id, "title": games.title_of(table), "status": status,
                 "status_words": tableau.STATUS.get(status), "zone": "UTC", "away": [], "paused_until": None,
                 "waiting": [{"name": names[d["seat"]], "me": False, "what": tableau.waiting_for(table.meta, d["kind"]),
                              "kind": d["kind"], "due": None, "away": None} for d in table.game.pending(state)],
                 **shown.board_facts(view, None, names)}
        return {"template": f"games/{table.game.name}/{shown.archive_board}", "table": facts}
    if shown.board:
        return {"template": f"games/{table.game.name}/{shown.board}", "facts": shown.board_facts(view, None, names)}
    return {"view": view}
