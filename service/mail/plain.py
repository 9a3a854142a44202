"""The mails of a game that brings no mails of its own (`engine.presentation`: no `mails`): the
decision mail (who must decide what and by when, in the game's words, the game's own lines if it has
some, the default a deadline plays, its one-click answers and the seat's link), and the end of
the game (the answer to a reply is `render.answer`'s, for every game). Written from the seat's own view."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.core import Game, Move
from engine.presentation import presentation_of, said, sentence, title_of
from service import deadlines, phrases
from service.mail import render
from service.mail.message import Mail


def decision(game: Game, view: dict[str, Any], pending: dict[str, Any], table: render.Table, to: render.Recipient,
             links: render.MailLinks, now: datetime, default_move: Move | None = None,
             reply: render.Reply | None = None) -> Mail:
    """The mail for the seat's new decision; with `reply`, replies go to the seat's reply address."""
    if "secret" in view:
        raise ValueError("a mail is rendered from a seat's view, never from the raw state")
    if pending["seat"] != to.seat:
        raise ValueError(f"seat {pending['seat']}'s decision mailed to seat {to.seat}")
    due = deadlines.parse(pending["deadline_at"]) if pending.get("deadline_at") else None
    asked = said(game, pending["kind"])
    facts = {**render.frame(table, to, links), "game_title": title_of(game), "asked": asked,
             "lines": presentation_of(game).decision_lines(view, to.seat, pending, table.names),
             "deadline": phrases.clock(due, to.time_zone) if due else None,
             "relative": phrases.relative(due, now) if due else None,
             "default": game.describe(default_move) if default_move else None, "reply": reply}
    return render.game_mail("plain_decision", f"Your move: {asked}", facts, table, to, links, reply=reply,
                            decision=(pending["seat"], pending["since"]) if reply and "since" in pending else None)


def game_over(game: Game, view: dict[str, Any], table: render.Table, to: render.Recipient,
              links: render.MailLinks) -> Mail:
    """The end of the game, told as its log tells its `game_over` event (the result, in the game's words)."""
    if "secret" in view or view.get("result") is None:
        raise ValueError("a game-over mail is rendered from a seat's view of a finished game")
    told = sentence(game, {"type": "game_over", "result": view["result"]}, table.names, to.seat)
    facts = {**render.frame(table, to, links), "game_title": title_of(game), "told": told}
    return render.game_mail("game_over", "Game over", facts, table, to, links, template="plain_game_over")
