"""A game's record: everything needed to replay it once it is over, for whoever may watch it."""
from __future__ import annotations

from service import messages, records
from service.resources.common import blueprint, caller, documented, load_game, store, viewer
from service.schemas import RecordOut

blp = blueprint("records", "A game's portable record, to keep it or replay it with `palazzo replay`.")


@blp.route("/games/<game_id>/record", methods=["GET"])
@blp.response(200, RecordOut)
@documented(blp, "game_not_found", "wrong_game")
def get_record(game_id):
    """The game's record (format `palazzo-record-1`): game, rules version, options, title, the seats'
    names, setup, moves, the table talk the caller may read, status and result.

    Anyone who may watch the game may fetch it. `setup` and `moves` hold what the players may not
    know yet (deck orders, hidden cards, standing orders, sealed bids), so both are null until the game
    is finished (and stay null for a cancelled one). A finished game's record is a file
    `palazzo replay` plays to the same result.
    """
    table = load_game(game_id)
    return records.record(store(), table, messages.reader_of(*viewer(table, caller())))
