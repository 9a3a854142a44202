"""Standing orders for the auction: set, read, cancel; only their owner sees them.

They are the engine's private move `set_orders`; the owner's current orders live in his own view
under players[seat].private.orders, which the engine's redaction hides from everyone else. Setting
them changes no public version and adds nothing to the feed, so nobody else can tell.
"""
from __future__ import annotations

from marshmallow import ValidationError

from service import games, playing
from service.problems import Problem
from service.resources.common import blueprint, caller, documented, load_game, seat_of, store
from service.schemas import OrdersIn, OrdersOut
from service.store import Committed
from service.vocabulary import check_move

blp = blueprint("orders", "The caller's standing auction orders, private to him.")
ORDERS_CODES = ("token_required", "not_a_seat", "wrong_game", "game_not_found")


def _orders(table: games.Table, seat: int) -> dict | None:
    for player in table.game.view(table.state, seat).get("players", []):
        if isinstance(player, dict) and player.get("seat") == seat:
            return (player.get("private") or {}).get("orders")
    return None


def _set(game_id: str, orders: dict) -> dict:
    """Submit set_orders on whatever the game is now: orders do not depend on the board."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    try:
        move = check_move(table.game, {"type": "set_orders", **orders})
    except ValidationError as error:
        raise Problem("invalid_request", "these orders do not fit this game", errors=error.messages) from None
    def act(table: games.Table) -> tuple[Committed, dict | None]:
        played = playing.play(store(), table, seat, move)
        if played.outcome.outcome != "ok":
            return played.outcome, None
        return played.outcome, {"version": played.table.version, "orders": _orders(played.table, seat)}

    return games.until_committed(store(), table, lambda table: None, act)


@blp.route("/games/<game_id>/orders", methods=["GET"])
@blp.response(200, OrdersOut)
@documented(blp, *ORDERS_CODES)
def get_orders(game_id):
    """The caller's current standing orders."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    return {"version": table.version, "orders": _orders(table, seat)}


@blp.route("/games/<game_id>/orders", methods=["PUT"])
@blp.arguments(OrdersIn())
@blp.response(200, OrdersOut)
@documented(blp, *ORDERS_CODES, "busy", "game_open", "game_paused", "game_finished", "game_cancelled", "rules",
            body=True)
def set_orders(orders, game_id):
    """Replace the caller's standing orders; they answer his bids the moment he is to bid."""
    return _set(game_id, orders)


@blp.route("/games/<game_id>/orders", methods=["DELETE"])
@blp.response(200, OrdersOut)
@documented(blp, *ORDERS_CODES, "busy", "game_open", "game_paused", "game_finished", "game_cancelled", "rules")
def cancel_orders(game_id):
    """Cancel the caller's standing orders."""
    return _set(game_id, {"limits": {}, "step_out_otherwise": False})
