"""The app the API benchmark serves: Palazzo as deployed, plus two bare endpoints beside it.

- `POST /bench/incr` is a plain Flask view that does one Redis INCR and answers a small JSON
  document: one durable write per request with nothing else, the fair ceiling for a move.
- `POST /bench/games/<id>/moves` plays a move without Flask: a bare WSGI function calling what the
  real view calls (`callers.identify` with the rate-limit read, `games.load`, and the view's own
  `resources.moves.take`, with the count in the commit). It answers only the happy path, so it is no
  endpoint for anyone: it measures what a move would cost if the web framework were free, to tell
  the framework's share of the gap from the move's own work.

Both are mounted next to the real app in the same gunicorn process, so all see the same server,
worker settings, Redis and clients. They live here, not in `service/`, so no deployment serves them.
"""
from __future__ import annotations

import os

import orjson
import redis
from flask import Flask, jsonify
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.wrappers import Request

from service import callers, games, ratelimit
from service.app import create_app
from service.resources.common import viewer
from service.resources.moves import take

bare = Flask("bench")
_redis = redis.Redis.from_url(os.environ["REDIS_URL"])
palazzo = create_app()


@bare.post("/incr")
def incr():
    return jsonify({"count": _redis.incr("bench:incr")})


def move_without_flask(environ: dict, start_response) -> list[bytes]:
    """POST <id>/moves (under /bench/games) as the real view plays it, minus Flask and smorest."""
    store, limit = palazzo.extensions["palazzo.store"], palazzo.extensions["palazzo.limit"]
    request = Request(environ)
    game_id = request.path.strip("/").split("/")[0]
    window = ratelimit.Window.at(limit, "request", callers.claimed_identity(request))
    caller, head, refusal, counters = callers.identify(store, request, game_id, games.LOAD_FIELDS, window.read)
    assert refusal is None and window.retry_after(counters) is None
    body = orjson.loads(request.get_data())
    table = games.load(store, game_id, head)
    seat = viewer(table, caller)[1]
    answered, _ = take(store, table, seat, body["move"], body["version"], None, window.count)
    data = orjson.dumps(answered)
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                              ("ETag", f'"{answered["version"]}"'), ("Cache-Control", "no-store")])
    return [data]


app = DispatcherMiddleware(palazzo, {"/bench": bare, "/bench/games": move_without_flask})
