"""GET /metrics: the host's figures, read from a real Redis at each scrape and parsed as Prometheus
parses them; only the configured bearer token gets them, and without one there is no endpoint."""
from __future__ import annotations

from datetime import timedelta

import pytest
from prometheus_client.parser import text_string_to_metric_families
from rq import Queue

from service import clock, timers
from service.followups import QUEUE, REPLY_QUEUE
from service.mail import outbox
from service.store import shard_of, wake_key
from tests.conftest import bearer, make_app, new_game, seat_tokens

TOKEN = "metrics-" + "m" * 32


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by its name and labels."""
    response = client.get("/metrics", headers=bearer(TOKEN))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.content_type.startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.get_data(as_text=True))
            for sample in family.samples}


@pytest.fixture
def client(moving_clock, redis_url):
    return make_app(redis_url, METRICS_TOKEN=TOKEN).test_client()


def test_a_scrape_counts_games_moves_refusals_and_late_deadlines(client, moving_clock):
    store = client.application.extensions["palazzo.store"]
    created = new_game(client)
    new_game(client, start=False, emails=True)  # its seats' sign-in links are mailed at once (inline)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                         json={"move": {"type": "pick", "value": 1}, "version": created["game"]["version"] + 1})
    assert played.status_code == 200, played.get_json()
    refused = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                          json={"move": {"type": "pick", "value": 2}, "version": 1})
    refusal = refused.get_json()["code"]
    wake = store.redis.zscore(wake_key(shard_of(game_id)), game_id)
    assert wake is not None
    before = scrape(client)
    assert before[("palazzo_due", (("kind", "game"),))] == 0  # its deadlines are a day away
    moving_clock.advance(wake - clock.time() + 90)  # the deadline passed 90 s ago, and no worker played it
    timers.at(store, clock.now() - timedelta(seconds=30), "workers.digest.send", "x", job_id="late-timer")
    earliest = clock.time()
    figures = scrape(client)
    latest = clock.time()
    assert figures[("palazzo_moves_total", (("by", "player"),))] == 1
    assert figures[("palazzo_refusals_total", (("code", refusal),))] == 1
    assert figures[("palazzo_games", (("status", "running"),))] == 1
    assert figures[("palazzo_games", (("status", "open"),))] == 1
    assert figures[("palazzo_games", (("status", "finished"),))] == 0
    assert figures[("palazzo_due", (("kind", "game"),))] == 1
    assert figures[("palazzo_due", (("kind", "timer"),))] == 1
    lateness = figures[("palazzo_due_oldest_lateness_seconds", (("kind", "game"),))]
    assert earliest - wake <= lateness <= latest - wake
    assert 89 <= lateness
    assert figures[("palazzo_due_oldest_lateness_seconds", (("kind", "timer"),))] >= 29
    sent = [mail["kind"] for mail in outbox.messages(store.redis)]
    assert sent
    assert {labels[0][1]: value for (name, labels), value in figures.items()
            if name == "palazzo_mails_sent_total"} == {kind: sent.count(kind) for kind in sent}
    assert not any(name.startswith("palazzo_queue") for name, _ in figures)  # no queues without workers


def test_the_queues_are_counted_from_rq(redis_url, moving_clock):
    client = make_app(redis_url, METRICS_TOKEN=TOKEN, JOBS="rq").test_client()
    connection = client.application.extensions["palazzo.store"].followups.queue.connection
    Queue(REPLY_QUEUE, connection=connection).enqueue("workers.replies.play", "nothing")
    figures = scrape(client)
    for name in (QUEUE, REPLY_QUEUE):
        assert figures[("palazzo_queue_jobs", (("queue", name),))] == Queue(name, connection=connection).count
    assert figures[("palazzo_queue_jobs", (("queue", REPLY_QUEUE),))] == 1


def test_only_the_token_gets_the_metrics(client):
    assert client.get("/metrics").status_code == 401
    for header in (bearer("wrong"), bearer(TOKEN + "x"), {"Authorization": f"Basic {TOKEN}"}):
        refused = client.get("/metrics", headers=header)
        assert refused.status_code == 401
        assert refused.content_type == "application/problem+json"
        assert refused.get_json()["code"] == "metrics_token_required"
    assert client.get("/metrics", headers=bearer(TOKEN)).status_code == 200


def test_without_a_token_configured_there_are_no_metrics(redis_url):
    client = make_app(redis_url).test_client()
    for headers in ({}, bearer(TOKEN), bearer("")):
        answer = client.get("/metrics", headers=headers)
        assert answer.status_code == 404 and answer.get_json()["code"] == "not_found"


def test_bot_moves_are_counted_apart_from_players(client):
    created = new_game(client, bots={1: "random", 2: "random"})  # inline: the bots move inside the requests
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    store = client.application.extensions["palazzo.store"]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(token),
                         json={"move": {"type": "pick", "value": 1}, "version": created["game"]["version"] + 1})
    assert played.status_code == 200, played.get_json()
    bots = sum(1 for entry in store.log(game_id) if entry.get("bot"))
    assert bots > 0
    figures = scrape(client)
    assert figures[("palazzo_moves_total", (("by", "bot"),))] == bots
    assert figures[("palazzo_moves_total", (("by", "player"),))] == len(store.log(game_id)) - bots


def test_request_times_are_a_histogram_by_route_with_no_id_in_it(client):
    created = new_game(client)
    game_id = created["game"]["id"]
    for _ in range(3):
        assert client.get(f"/api/v1/games/{game_id}").status_code == 200
    assert client.get("/no/such/page").status_code == 404
    figures = scrape(client)
    route = (("method", "GET"), ("route", "/api/v1/games/<game_id>"))
    buckets = {dict(labels)["le"]: value for (name, labels), value in figures.items()
               if name == "palazzo_request_duration_seconds_bucket"
               and tuple(pair for pair in labels if pair[0] != "le") == route}
    assert buckets["+Inf"] == 3 == figures[("palazzo_request_duration_seconds_count", route)]
    assert list(buckets.values()) == sorted(buckets.values()), "buckets are cumulative"
    assert 0 < figures[("palazzo_request_duration_seconds_sum", route)] < 3 * 10
    assert figures[("palazzo_request_duration_seconds_count", (("method", "GET"), ("route", "unmatched")))] == 1
    assert figures[("palazzo_request_duration_seconds_count", (("method", "POST"), ("route", "/api/v1/games")))] >= 1
    assert not any(game_id in value for (_, labels) in figures for _, value in labels)


def test_a_tally_redis_did_not_take_is_kept_for_the_next_flush(redis_url):
    from redis import Redis

    from service import latency
    tally = latency.Tally()
    tally.observe("GET", "/x", 0.003)
    tally.observe("GET", "/x", 0.2)
    tally.flush(Redis.from_url("redis://127.0.0.1:1"), force=True)  # nothing listens there
    real = Redis.from_url(redis_url, decode_responses=True)
    tally.flush(real, force=True)
    buckets, total = latency.histograms(real.hgetall(latency.KEY))[("GET", "/x")]
    assert dict(buckets)["0.005"] == 1 and dict(buckets)["0.25"] == 2 and dict(buckets)["+Inf"] == 2
    assert abs(total - 0.203) < 1e-9
