"""The spectator page: the table as anyone may see it, the view of nobody's seat.

It is drawn from `game.view(state, None)`, the feed redacted for no seat and the table talk as a
spectator reads it (messages to the table only), so it shows no hand, no cash, no card and no
private message of any seat; the address of the page is all a spectator needs.
"""
from __future__ import annotations

from flask import Response

from engine.presentation import presentation_of

from service import games
from service.resources.common import load_game
from service import messages
from service.web import access, seat_page, session, tableau, talk
from service.web import store as web_store
from service.web.pages import blueprint, render

bp = blueprint("watch_page", __name__)


@bp.route("/games/<game_id>/watch", methods=["GET"])
def watch(game_id: str) -> Response:
    table = load_game(game_id)
    seat = access.seat_of(session.current(), table)
    view = table.game.view(table.state, None)
    spoken = talk.panel(table, messages.SPECTATOR)  # the table's messages only, whoever looks
    shown = presentation_of(table.game)
    if not shown.watch_page:
        return render("watch_generic.html", game_id=table.id, title=games.title_of(table), view=view, seat=seat,
                      game_status=table.status,
                      talk=spoken, board=seat_page.board_of(table, view, None))
    return render(f"games/{table.game.name}/{shown.watch_page}",
                  table=tableau.table_context(web_store(), table, None, view), seat=seat,
                  host=access.is_host(session.current(), table), talk=spoken)
