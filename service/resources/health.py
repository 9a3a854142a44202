"""A trivial endpoint for load balancers, and the yardstick of benchmarks/api.py."""
from __future__ import annotations

from service.resources.common import blueprint
from service.schemas import HealthOut

blp = blueprint("health", "Liveness.")


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthOut)
def health():
    """Always ok; touches neither Redis nor the engine."""
    return {"status": "ok"}
