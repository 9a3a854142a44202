"""The Flask app factory: configuration, the Redis store, the caller check, limits, the blueprints."""
from __future__ import annotations

import logging
import time
from typing import Any

import orjson
import redis
from flask import Flask, Response, current_app, g, request
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SessionInterface
from flask_compress import Compress
from flask_cors import CORS
from jinja2 import ChoiceLoader

from service import callers, clock, counters, latency, logs, metrics, ratelimit
from service.api import ProblemApi
from service.bodies import MAX_BYTES
from service.config import Config, ConfigError, make_store
from service.games import LOAD_FIELDS
from service.inbound import endpoint as inbound
from service.links import MIN_SECRET_LENGTH, Links
from service.problems import Problem, render
from service.resources import (events, games, health, host, identity, leaving, messages, moves, orders, players, records,
                               vacation, webhooks)
from service.resources import seats as open_seats
from service.served import games_loader, served_games
from service.spec import describe_games
from service.web import (address_page, archive, create_page, dev_mailbox, home, host_page, join_page, leave_link, mail_events,
                         oneclick, pages, seat_link, seat_page, settings_page, signin_page, talk, unsubscribe,
                         vacation_form, watch)

log = logging.getLogger(__name__)
BLUEPRINTS = [games.blp, moves.blp, events.blp, messages.blp, orders.blp, host.blp, open_seats.blp, leaving.blp,
              vacation.blp, players.blp, identity.blp, webhooks.blp, records.blp, health.blp]
PAGES = [home, signin_page, seat_link, seat_page, vacation_form, watch, talk, create_page, host_page, join_page,
         oneclick, leave_link, unsubscribe, settings_page, dev_mailbox,
         mail_events, address_page, archive]  # the browser's side (service/web): read the session cookie, never a bearer token
OPEN_ENDPOINTS = {"health.health", "api-docs.openapi_json", "static", "web_assets.static",
                  "inbound.sendgrid", "metrics.metrics"}  # the last two prove themselves with secrets of their own
TOKEN_ENDPOINTS = {"games.create_game", "players.redeem_sign_in"}  # answers that hand out a token
STORE_RETRY_AFTER = 5
COMPRESS_MIN_BYTES = 4096  # a move's answer stays plain; a listing of 900 placements (150 KB) goes as ~10 KB



class FastJSON(DefaultJSONProvider):
    """Flask's JSON through orjson: an answer is encoded several times faster; keys keep their order."""

    sort_keys = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # asked for indenting or sorting (the OpenAPI file): the standard encoder obliges
            return super().dumps(obj, **kwargs)
        return orjson.dumps(obj, default=self.default, option=orjson.OPT_NON_STR_KEYS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


class Palazzo(Flask):
    json_provider_class = FastJSON

    def ensure_sync(self, func: Any) -> Any:
        """Nothing here is async: skip Flask's inspection of every hook and view, about 20 a request."""
        return func


class NoSessions(SessionInterface):
    """Callers prove who they are with bearer tokens; Flask's signed-cookie session is never used.

    Flask would otherwise build a signing serializer to open a session on every request. With this,
    each request gets Flask's NullSession, which refuses writes, and no Set-Cookie is ever sent.
    """

    def open_session(self, app, request):
        return None

    def save_session(self, app, session, response):
        return None


def create_app(config: Config | None = None, **flask: Any) -> Flask:
    """The app for `config` (read from the environment unless given, as `flask --app` and gunicorn
    do), kept in `app.extensions["palazzo.config"]`; `flask` adds Flask's own settings (TESTING).
    Refuses to start without a real secret (links signed with a known one are forgeable)."""
    config = Config.from_env() if config is None else config
    logs.configure(config.log_format)
    app = Palazzo("palazzo")
    app.config.update(
        API_TITLE="Palazzo", API_VERSION="v1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1", OPENAPI_JSON_PATH="openapi.json", MAX_CONTENT_LENGTH=MAX_BYTES,
        SECRET_KEY=config.secret_key, **flask,
    )
    secret = config.secret_key or ""
    if len(secret) < MIN_SECRET_LENGTH:
        raise RuntimeError(f"set PALAZZO_SECRET to a random string of at least {MIN_SECRET_LENGTH} characters "
                           "(`palazzo serve` makes and keeps one under ./var for local runs)")
    app.extensions["palazzo.config"] = config
    app.session_interface = NoSessions()
    app.config.update(COMPRESS_REGISTER=False, COMPRESS_MIMETYPES=["application/json"],
                      COMPRESS_MIN_SIZE=COMPRESS_MIN_BYTES)
    app.extensions["palazzo.compress"] = Compress(app)
    clock.follow(config.clock_file)
    store = make_store(config)
    app.extensions["palazzo.store"] = store
    app.extensions["palazzo.latency"] = latency.Tally()
    app.extensions["palazzo.links"] = Links(secret, config.base_url)
    served = served_games(list(config.games))
    app.extensions["palazzo.games"] = served
    # a game's partials and pages, as games/<name>/<file>, beside the pages' own
    app.jinja_env.loader = ChoiceLoader([app.jinja_env.loader, games_loader()])
    api = ProblemApi(app, spec_kwargs={"servers": [{"url": config.base_url}]})
    api.spec.components.security_scheme("token", {"type": "http", "scheme": "bearer",
                                                  "description": "A seat, host or player token."})
    describe_games(api, served)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    for page in (*PAGES, inbound, metrics):
        app.register_blueprint(page.bp)
    app.register_blueprint(pages.assets())
    for extension, name, text in (("palazzo.limit", "RATE_LIMIT", config.rate_limit),
                                  ("palazzo.invite_limit", "INVITE_LIMIT", config.invite_limit),
                                  ("palazzo.talk_limit", "TALK_LIMIT", config.talk_limit)):
        try:
            app.extensions[extension] = ratelimit.Limit.parse(text)
        except ValueError as error:
            raise ConfigError(f"PALAZZO_{name}: {error}") from None
    app.before_request(_mark_request)
    app.before_request(_identify)
    app.before_request(_refuse_bad_token)
    app.after_request(_time_request)  # registered first, so it runs last (Flask runs them in reverse)
    app.after_request(_count_request)
    app.after_request(_count_refusal)
    app.after_request(_cache_headers)
    app.after_request(_compress)
    app.after_request(_echo_request_id)
    app.teardown_request(_unmark_request)
    app.register_error_handler(redis.ConnectionError, _store_unavailable)
    app.register_error_handler(redis.TimeoutError, _store_unavailable)
    app.register_error_handler(redis.exceptions.ClusterError, _store_unavailable)  # a cluster lost a master
    app.register_error_handler(redis.exceptions.RedisClusterException, _store_unavailable)
    if config.cors_origins:
        CORS(app, origins=list(config.cors_origins), resources={r"/api/v1/*": {}},
             allow_headers=["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key",
                            logs.REQUEST_ID_HEADER],
             expose_headers=["ETag", "Retry-After", "Idempotent-Replayed", logs.REQUEST_ID_HEADER], max_age=600)
    return app


def _mark_request() -> None:
    """Name the request (the caller's X-Request-Id if well formed, else a new id) and the game its
    URL names, for every line logged while it runs (`service.logs`)."""
    g.started = time.perf_counter()
    g.request_id = logs.request_id_from(request.headers.get(logs.REQUEST_ID_HEADER))
    logs.request_id.set(g.request_id)
    logs.game_id.set((request.view_args or {}).get("game_id"))


def _echo_request_id(response: Response) -> Response:
    """The answer carries the request's id, so a caller can quote it and the host find its lines.
    With JSON logs each request also gets a line of its own, by endpoint: a path may hold a secret."""
    if "request_id" in g:
        response.headers[logs.REQUEST_ID_HEADER] = g.request_id
        if current_app.extensions["palazzo.config"].log_format == "json":
            log.info("%s %s %d", request.method, request.endpoint, response.status_code)
    return response


def _unmark_request(error: BaseException | None = None) -> None:
    """A thread's next request, or a line logged between requests, must not carry this one's ids."""
    logs.request_id.set(None)
    logs.game_id.set(None)


def _identify() -> None:
    """Resolve the caller and weigh his rate limit before any view runs, in one Redis round trip
    that only reads.

    A path naming a game has that game read in the same round trip; the view takes it with
    `resources.common.load_game`, so a move costs this read and the commit. The limit is read for
    the identity the request claims; a token that turns out bad is counted against the sender's
    address instead, so forged tokens neither get limits of their own nor make keys.
    """
    for name in ("prefetched_game", "uncounted"):  # never left over from an earlier request
        g.pop(name, None)
    g.refusal = None
    if request.endpoint in OPEN_ENDPOINTS or request.endpoint is None:
        g.caller = callers.Caller("anonymous", f"a:{request.remote_addr}")
        return
    store, limit = current_app.extensions["palazzo.store"], current_app.extensions["palazzo.limit"]
    window = ratelimit.Window.at(limit, "request", callers.claimed_identity(request))
    game_id = (request.view_args or {}).get("game_id")
    g.caller, head, g.refusal, counters = callers.identify(store, request, game_id, LOAD_FIELDS, window.read,
                                                                 current_app.extensions["palazzo.config"].token_idle)
    if g.refusal is not None:  # a bad token: checked and counted against the address, at once
        wait = ratelimit.hit(store.redis, limit, "request", g.caller.identity)
    else:
        wait = window.retry_after(counters)
        g.uncounted = window
    if wait is not None:
        g.pop("uncounted", None)
        g.refusal = Problem("rate_limited", f"too many requests; try again in {wait} s",
                            headers={"Retry-After": str(wait)}, retry_after=wait)
    elif head is not None:
        g.prefetched_game = (game_id, head)


def _refuse_bad_token() -> Response | None:
    """A bad token, or none where one is needed, is refused after it has counted against the sender's
    address and before any body is read, so an anonymous caller learns nothing from validation."""
    if g.get("refusal"):
        return render(g.refusal)
    view = current_app.view_functions.get(request.endpoint)
    if g.caller.kind == "anonymous" and getattr(view, "token_required", False):
        return render(Problem("token_required", "send a token as 'Authorization: Bearer <token>'"))
    return None


def _count_request(response: Response) -> Response:
    """Count the request against its caller's limit, unless a commit has counted it already."""
    window = g.pop("uncounted", None)
    if window is not None:
        with current_app.extensions["palazzo.store"].redis.pipeline(transaction=False) as pipe:
            window.count(pipe)
            pipe.execute()
    return response


def _time_request(response: Response) -> Response:
    """Tally the request's time by its route for the metrics (`service.latency`), and flush the tallies
    when a second has passed."""
    if "started" in g:
        tally: latency.Tally = current_app.extensions["palazzo.latency"]
        tally.observe(request.method, request.url_rule.rule if request.url_rule else None,
                      time.perf_counter() - g.started)
        tally.flush(current_app.extensions["palazzo.store"].redis)
    return response


def _count_refusal(response: Response) -> Response:
    """Count a problem answer by its code, for the host's metrics (`service.metrics`). A count that
    cannot be written is lost, never the answer (a store that is down answers its own 503)."""
    code = getattr(response, "problem_code", None)
    if code is not None and code != "store_unavailable":
        try:
            counters.count(current_app.extensions["palazzo.store"].redis, counters.REFUSALS, code)
        except redis.RedisError:
            pass
    return response


def _cache_headers(response: Response) -> Response:
    """Answers to a token are private: never stored by any cache. Public ones are revalidated."""
    if request.path.startswith("/api/v1/") and "Cache-Control" not in response.headers:
        private = "Authorization" in request.headers or request.endpoint in TOKEN_ENDPOINTS
        response.headers["Cache-Control"] = "no-store" if private else "no-cache"
        response.vary.add("Authorization")
    return response


def _compress(response: Response) -> Response:
    """Large API answers go compressed to a client that accepts it (RFC 9110 content coding).

    Only the API's: its callers prove themselves with a bearer token no other site can make a browser
    send, so compression cannot leak a secret (BREACH). The pages, which carry CSRF tokens and rest on a
    cookie, go uncompressed.
    """
    if request.path.startswith("/api/v1/"):
        return current_app.extensions["palazzo.compress"].after_request(response)
    return response


def _store_unavailable(error: Exception) -> Response:
    current_app.logger.warning("redis unreachable: %s", error)
    return render(Problem("store_unavailable", "the game store is unreachable; try again shortly",
                          headers={"Retry-After": str(STORE_RETRY_AFTER)}, retry_after=STORE_RETRY_AFTER))
