"""The event feed of a game, redacted for the caller, resumable with ?after=<seq>, long-polled with ?wait=."""
from __future__ import annotations

from service import games
from service.resources.common import IF_NONE_MATCH, blueprint, caller, conditional, documented, load_game, store, viewer
from service.schemas import EventPageOut, EventsQuery

blp = blueprint("events", "What happened in a game, in order, redacted for the caller.")


@blp.route("/games/<game_id>/events", methods=["GET"])
@blp.arguments(EventsQuery(), location="query")
@blp.response(200, EventPageOut)
@blp.alt_response(304, description="Not Modified: the feed has not grown since the ETag sent")
@documented(blp, "game_not_found", "wrong_game", "invalid_request", parameters=[IF_NONE_MATCH])
def list_events(query, game_id):
    """Events with seq greater than `after`, oldest first; pass `next_after` back to resume.

    With `wait=N` (up to 30 s) and nothing after `after` yet, the answer comes as soon as the feed
    grows, or after N seconds with no events: no client needs to poll at full rate.
    """
    table = load_game(game_id)
    _, seat = viewer(table, caller())
    if query["wait"]:
        games.wait_for_events(store(), game_id, query["after"], query["wait"])
    events, last, total = games.events_for(store(), game_id, seat, query["after"], query["limit"])
    return conditional({"events": events, "next_after": last, "more": last < total}, total)
