"""Liveness for load balancers and supervisors: is the game store reachable?"""
from __future__ import annotations

from redis.cluster import RedisCluster

from service.resources.common import blueprint, documented, store
from service.schemas import HealthOut

blp = blueprint("health", "Liveness.")


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthOut)
@documented(blp, secured=False)
def health():
    """200 when Redis (every master of a cluster) answers a PING; 503 `store_unavailable` (with
    Retry-After) when it does not."""
    client = store().redis
    if isinstance(client, RedisCluster):
        client.ping(target_nodes=RedisCluster.PRIMARIES)
    else:
        client.ping()
    return {"status": "ok", "redis": "up"}
