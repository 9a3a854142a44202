"""How to reach Redis: a plain server or a Redis Cluster, named by URL.

``redis+cluster://[user:password@]host:port[,host:port...]`` (the form the `limits` library takes
too) names a cluster and gets redis-py's cluster client; every other URL a plain client. Every client
of the game store answers text (decode_responses).
"""
from __future__ import annotations

from urllib.parse import unquote, urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster

CLUSTER_SCHEME = "redis+cluster"


class ClusterURLError(RuntimeError):
    """A Redis URL that names a cluster wrongly, or a plain URL that leads to a cluster node."""


def is_cluster_url(url: str | None) -> bool:
    """True for ``redis+cluster://host:port[,host:port...]``: the one way to name a Redis Cluster."""
    return bool(url) and urlsplit(url).scheme.lower() == CLUSTER_SCHEME


def cluster_nodes(url: str) -> list[tuple[str, int]]:
    """The startup nodes of a cluster URL, each with its port (6379 when left out)."""
    parts = urlsplit(url)
    nodes = []
    for location in parts.netloc.rpartition("@")[2].split(","):
        location = location.strip()
        if not location:
            continue
        try:
            where = urlsplit(f"//{location}")
            host, port = where.hostname, where.port or 6379
        except ValueError as error:
            raise ClusterURLError(f"bad node {location!r} in {CLUSTER_SCHEME} URL") from error
        if not host:
            raise ClusterURLError(f"bad node {location!r} in {CLUSTER_SCHEME} URL")
        nodes.append((host, port))
    if not nodes:
        raise ClusterURLError(f"a {CLUSTER_SCHEME}:// URL names at least one node: {CLUSTER_SCHEME}://host:port,host:port")
    if parts.path.strip("/") not in ("", "0"):
        raise ClusterURLError("a Redis Cluster has only database 0")
    return nodes


def connect(url: str, decode: bool = True) -> redis.Redis:
    """The game store's client (answers decoded to str; bytes when not `decode`, as DUMP's are).

    ``redis+cluster://[user:password@]host:port[,host:port...]`` (the form the `limits` library
    takes too) gives redis-py's cluster client, `redis.cluster.RedisCluster`, which reads the slot
    map from any of the nodes named and follows it; every other URL gives a plain client. The
    cluster client needs the cluster to answer when it is built; a plain client connects lazily.
    """
    if not is_cluster_url(url):
        return redis.Redis.from_url(url, decode_responses=decode)
    parts = urlsplit(url)
    auth = {"username": unquote(parts.username) if parts.username else None,
            "password": unquote(parts.password) if parts.password else None}
    return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in cluster_nodes(url)],
                        decode_responses=decode, **{k: v for k, v in auth.items() if v})


def refuse_cluster_node(url: str, what: str = "REDIS_URL") -> None:
    """Refuse a plain URL that leads to a Redis Cluster node (`INFO cluster` says cluster_enabled:1):
    a plain client there fails on every key of another node's slots, and RQ cannot use a cluster at
    all. One round trip when a process starts; a server that does not answer within 2 s is let be
    (the service answers 503 until it is back)."""
    probe = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2, decode_responses=True)
    try:
        enabled = str(probe.info("cluster").get("cluster_enabled", 0)) == "1"
    except redis.RedisError:
        return
    finally:
        probe.close()
    if enabled:
        where = urlsplit(url)
        node = f"{where.hostname}:{where.port or 6379}"
        fix = (f"write it as {CLUSTER_SCHEME}://{node}[,host:port...]" if what == "REDIS_URL"
               else "RQ's queues need a plain Redis")
        raise ClusterURLError(f"{what} ({node}) is a Redis Cluster node: {fix}")
