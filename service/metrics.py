"""`GET /metrics`: the host's Prometheus metrics, read from Redis at each scrape.

Every figure is computed from the game store and the queue Redis when Prometheus asks, by a
`Collector` made for that one scrape, never kept in a process's memory: gunicorn runs several web
workers and `palazzo worker` several RQ processes, and an in-process counter would be one process's
share (prometheus_client's multiprocess mode fixes that with files in a shared directory, which
neither spans machines nor survives a restart). So a counter here is a field of a Redis hash, bumped
where the thing happens (`service.counters`): moves committed by the commit itself, per shard (in
the game's slot of a cluster), problem answers by code in
the app's answer hook, mails sent in `service.mail.sending`, request times in a histogram by route that
each web process adds to once a second (`service.latency`); and a gauge is read from what the
service stores anyway: games by status (a SCAN of the game hashes, as `palazzo upgrade` does: its
cost follows the number of stored games, which compaction keeps down), the RQ queues, and the game
wakes (deadlines, ends of pauses and vacations, compactions) and timers (reminders, digests) that are
past due, which workers that keep up leave at zero.

The endpoint exists only with PALAZZO_METRICS_TOKEN set (else 404), and answers only to
`Authorization: Bearer <that token>` (else 401 `metrics_token_required`), compared in constant time.
It is the host's, not the API's, so it stays out of the OpenAPI spec.
"""
from __future__ import annotations

import hmac
from collections import Counter
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from service import clock, latency, timers
from service.counters import MAILS_FAILED, MAILS_SENT, REFUSALS
from service.mail.sending import DROPPED
from service.problems import Problem, render
from service.status import Status
from service.store import MOVES_KEYS, PREFIX, WAKE_KEYS, Store

GAME_KEYS = f"{PREFIX}:{{*}}:*:game"  # the glob of every game hash (as service.upgrade scans them)

bp = Blueprint("metrics", __name__)


class Figures(Collector):
    """The metrics of one scrape, read from the store and the queues when `collect` runs."""

    def __init__(self, store: Store):
        self.store = store

    def collect(self) -> Iterator[Metric]:
        yield from self._counters()
        yield self._latency()
        yield self._games()
        yield from self._late()
        yield from self._queues()

    def _counters(self) -> Iterator[Metric]:
        with self.store.redis.pipeline(transaction=False) as pipe:
            for key in (REFUSALS, MAILS_SENT, MAILS_FAILED, DROPPED, *MOVES_KEYS):
                pipe.hgetall(key)
            refusals, sent, failed, dropped, *shards = pipe.execute()
        moves = sum((Counter({by: int(number) for by, number in shard.items()}) for shard in shards), Counter())
        for name, text, label, values in (
                ("palazzo_moves", "moves committed, by who moved (player, bot, timeout)", "by", moves),
                ("palazzo_refusals", "problem answers (refusals and errors), by their code", "code", refusals),
                ("palazzo_mails_sent", "mails the provider accepted, by kind", "kind", sent),
                ("palazzo_mails_failed", "mails refused for good, or still failing after the last retry, by kind",
                 "kind", failed),
                ("palazzo_mails_dropped", "mails not sent because they were no longer due, by kind", "kind",
                 dropped)):
            family = CounterMetricFamily(name, text, labels=[label])
            for value, number in sorted(values.items()):
                family.add_metric([value], int(number))
            yield family

    def _latency(self) -> Metric:
        family = HistogramMetricFamily("palazzo_request_duration_seconds",
                                       "time from a request's arrival to its answer, by method and route "
                                       "(Flask's rule: no ids)", labels=["method", "route"])
        for (method, route), (buckets, total) in sorted(latency.histograms(self.store.redis.hgetall(latency.KEY)).items()):
            family.add_metric([method, route], buckets, total)
        return family

    def _games(self) -> Metric:
        redis = self.store.redis
        keys = list(redis.scan_iter(match=GAME_KEYS, count=1000))
        with redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.hget(key, "status")
            statuses = Counter(status for status in pipe.execute() if status)
        family = GaugeMetricFamily("palazzo_games", "stored games, by status", labels=["status"])
        for status in Status:
            family.add_metric([status.value], statuses.get(status, 0))
        return family

    def _late(self) -> Iterator[Metric]:
        """Wakes and timers whose time has come on the service's clock, and how late the oldest is."""
        now = clock.time()
        redis = self.store.redis
        with redis.pipeline(transaction=False) as pipe:
            for key in (*WAKE_KEYS, timers.KEY):
                pipe.zcount(key, "-inf", now)
                pipe.zrange(key, 0, 0, withscores=True)
            answers = pipe.execute()
        due = {"game": 0, "timer": 0}
        oldest: dict[str, float] = {}
        for index, key in enumerate((*WAKE_KEYS, timers.KEY)):
            kind = "timer" if key == timers.KEY else "game"
            number, first = answers[2 * index], answers[2 * index + 1]
            due[kind] += number
            if number and first:
                oldest[kind] = min(oldest.get(kind, now), first[0][1])
        count_family = GaugeMetricFamily("palazzo_due", "game wakes (deadlines, ends of pauses, compactions) and "
                                         "timers (reminders, digests) already past due", labels=["kind"])
        late_family = GaugeMetricFamily("palazzo_due_oldest_lateness_seconds",
                                        "how long ago the oldest one past due fell due (0 for none)", labels=["kind"])
        for kind, number in due.items():
            count_family.add_metric([kind], number)
            late_family.add_metric([kind], max(0.0, now - oldest[kind]) if kind in oldest else 0.0)
        yield count_family
        yield late_family

    def _queues(self) -> Iterator[Metric]:
        """RQ's queues: jobs waiting, waiting for a later time (retries, bots' delays), and failed for good
        (mail sends among them). None without workers (PALAZZO_JOBS=inline)."""
        queues = [q for q in (getattr(self.store.followups, name, None) for name in ("queue", "replies", "bots"))
                  if q is not None]
        families = [GaugeMetricFamily("palazzo_queue_jobs", "RQ jobs waiting in the queue", labels=["queue"]),
                    GaugeMetricFamily("palazzo_queue_scheduled_jobs", "RQ jobs held for a later time",
                                      labels=["queue"]),
                    GaugeMetricFamily("palazzo_queue_failed_jobs", "RQ jobs that failed for good",
                                      labels=["queue"])]
        for queue in queues:
            for family, number in zip(families, (queue.count, queue.scheduled_job_registry.count,
                                                 queue.failed_job_registry.count)):
                family.add_metric([queue.name], number)
        yield from families


def scrape(store: Store) -> bytes:
    """The text exposition of one scrape, through a registry of its own (nothing lingers between them)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Figures(store))
    return generate_latest(registry)


@bp.route("/metrics", methods=["GET"])
def metrics() -> Response:
    token = (current_app.extensions["palazzo.config"].metrics_token or "").encode()
    if not token:
        return render(Problem("not_found", "no such resource"))
    auth = request.headers.get("Authorization", "")
    scheme, _, given = auth.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token):
        return render(Problem("metrics_token_required", "send the metrics token as 'Authorization: Bearer <token>'",
                              headers={"WWW-Authenticate": 'Bearer realm="palazzo-metrics"'}))
    store = current_app.extensions["palazzo.store"]
    current_app.extensions["palazzo.latency"].flush(store.redis, force=True)  # this process's last second too
    return Response(scrape(store), content_type=CONTENT_TYPE_LATEST)
