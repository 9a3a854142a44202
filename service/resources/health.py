"""Liveness for load balancers and supervisors: is the game store reachable?"""
from __future__ import annotations

from service.resources.common import blueprint, documented, store
from service.schemas import HealthOut

blp = blueprint("health", "Liveness.")


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthOut)
@documented(blp, secured=False)
def health():
    """200 when Redis answers a PING; 503 `store_unavailable` (with Retry-After) when it does not."""
    store().redis.ping()
    return {"status": "ok", "redis": "up"}
