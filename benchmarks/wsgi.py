"""The app the API benchmark serves: Palazzo as deployed, plus one bare endpoint beside it.

`POST /bench/incr` is a plain Flask view that does one Redis INCR and answers a small JSON
document: one durable write per request with nothing else, the fair ceiling for a move. It is
mounted next to the real app in the same gunicorn process, so both see the same server, worker
settings, Redis and clients. It lives here, not in `service/`, so no deployment ever serves it.
"""
from __future__ import annotations

import os

import redis
from flask import Flask, jsonify
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from service.app import create_app

bare = Flask("bench")
_redis = redis.Redis.from_url(os.environ["REDIS_URL"])


@bare.post("/incr")
def incr():
    return jsonify({"count": _redis.incr("bench:incr")})


app = DispatcherMiddleware(create_app(), {"/bench": bare})
