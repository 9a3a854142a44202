"""The event feed of a game, redacted for the caller, resumable with ?after=<seq>."""
from __future__ import annotations

from service import games
from service.resources.common import blueprint, caller, documented, load_game, store, viewer
from service.schemas import EventPageOut, EventsQuery

blp = blueprint("events", "What happened in a game, in order, redacted for the caller.")


@blp.route("/games/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuery(), location="query")
@blp.response(200, EventPageOut)
@documented(blp, 404)
def read_events(query, game_id):
    """Events with seq greater than `after`, oldest first; pass `next_after` back to resume."""
    table = load_game(game_id)
    _, seat = viewer(table, caller())
    events, last, total = games.events_for(store(), game_id, seat, query["after"], query["limit"])
    return {"events": events, "next_after": last, "more": last < total}
