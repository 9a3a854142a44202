"""Standing orders for the auction: set, read, cancel; only their owner sees them.

They are the engine's free move `set_orders`; the owner's current orders live in his own view
under players[seat].private.orders, which the engine's redaction hides from everyone else.
"""
from __future__ import annotations

from flask import request

from service import games
from service.problems import Problem
from service.store import Committed
from service.resources.common import (IF_MATCH, blueprint, caller, documented, expected_version, load_game,
                                      seat_of, store)
from service.schemas import OrdersIn, OrdersOut

blp = blueprint("orders", "The caller's standing auction orders, private to him.")
ATTEMPTS = 5


def _orders(table: games.Table, seat: int) -> dict | None:
    for player in table.game.view(table.state, seat).get("players", []):
        if isinstance(player, dict) and player.get("seat") == seat:
            return (player.get("private") or {}).get("orders")
    return None


def _set(game_id: str, move: dict) -> dict:
    """Submit set_orders at the named version, or, without one, at whatever version is current."""
    named = request.headers.get("If-Match") is not None
    for _ in range(ATTEMPTS):
        table = load_game(game_id)
        seat = seat_of(table, caller())
        if named and expected_version(None) != table.version:
            raise games.refused(Committed("stale", table.version))
        outcome, after, _ = games.play(store(), table, seat, move)
        if outcome.outcome == "ok":
            after = games.run_bots(store(), after)
            return {"version": after.version, "orders": _orders(after, seat)}
        if named or outcome.outcome != "stale":
            raise games.refused(outcome)
    raise Problem(409, "busy", "the game kept changing; try again")


@blp.route("/games/<game_id>/orders", methods=["GET"])
@blp.response(200, OrdersOut)
@documented(blp, 401, 403, 404)
def read_orders(game_id):
    """The caller's current standing orders."""
    table = load_game(game_id)
    seat = seat_of(table, caller())
    return {"version": table.version, "orders": _orders(table, seat)}


@blp.route("/games/<game_id>/orders", methods=["PUT"])
@blp.arguments(OrdersIn())
@blp.response(200, OrdersOut)
@documented(blp, 401, 403, 404, 409, 422, parameters=[IF_MATCH])
def set_orders(orders, game_id):
    """Replace the caller's standing orders (If-Match optional: orders do not depend on the board)."""
    return _set(game_id, {"type": "set_orders", **orders})


@blp.route("/games/<game_id>/orders", methods=["DELETE"])
@blp.response(200, OrdersOut)
@documented(blp, 401, 403, 404, 409, 422, parameters=[IF_MATCH])
def cancel_orders(game_id):
    """Cancel the caller's standing orders."""
    return _set(game_id, {"type": "set_orders", "limits": {}, "step_out_otherwise": False})
