"""The Flask app factory: configuration, the Redis store, the caller check, the blueprints."""
from __future__ import annotations

import importlib
import os
from typing import Any

from flask import Flask, current_app, g, request
from flask.sessions import SessionInterface

from engine.core import game_names, get_game
from service import callers
from service.games import LOAD_FIELDS
from service.api import ProblemApi
from service.problems import Problem, render
from service.resources import events, games, health, host, moves, orders, players
from service.store import Store, connect
from service.vocabulary import MoveField, component_name, schemas_for

BLUEPRINTS = [games.blp, moves.blp, events.blp, orders.blp, host.blp, players.blp, health.blp]
OPEN_ENDPOINTS = {"health.health", "api-docs.openapi_json", "static"}
GAME_MODULES = {"princes-of-florence": "engine.pof"}


def settings() -> dict[str, Any]:
    """Configuration from the environment: REDIS_URL, PALAZZO_SECRET, PALAZZO_RATE_LIMIT, PALAZZO_GAMES."""
    count, _, window = os.environ.get("PALAZZO_RATE_LIMIT", "600/60").partition("/")
    return {
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "SECRET_KEY": os.environ.get("PALAZZO_SECRET", "dev-only-secret-change-me"),
        "RATE_LIMIT": (int(count), int(window or 60)),
        "GAMES": os.environ.get("PALAZZO_GAMES", "princes-of-florence").split(","),
    }


def served_games(names: list[str]) -> list[Any]:
    """The engine objects to serve; a game whose module is missing is skipped."""
    found = []
    for name in names:
        if name in GAME_MODULES:
            try:
                importlib.import_module(GAME_MODULES[name])
            except ImportError:
                continue
        if name in game_names():
            found.append(get_game(name))
    return found


class NoSessions(SessionInterface):
    """Callers prove who they are with bearer tokens; Flask's signed-cookie session is never used.

    Flask would otherwise build a signing serializer to open a session on every request. With this,
    each request gets Flask's NullSession, which refuses writes, and no Set-Cookie is ever sent.
    """

    def open_session(self, app, request):
        return None

    def save_session(self, app, session, response):
        return None


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask("palazzo")
    app.config.update(
        API_TITLE="Palazzo", API_VERSION="v1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1", OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={"info": {"description": "Play Princes of Florence slowly over HTTP. Every error is "
                                                  "application/problem+json with a stable `code`."}},
        **settings(),
    )
    app.config.update(config or {})
    app.json.sort_keys = False
    app.session_interface = NoSessions()
    app.extensions["palazzo.store"] = Store(connect(app.config["REDIS_URL"]))
    api = ProblemApi(app)
    api.spec.components.security_scheme("token", {"type": "http", "scheme": "bearer",
                                                  "description": "A seat, host or player token."})
    _describe_moves(api, served_games(app.config["GAMES"]))
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.before_request(_identify)
    return app


def _identify() -> None:
    """Resolve the caller and count the request against his limit, before any API view runs.

    A path naming a game has that game read in the same Redis round trip; the view takes it with
    `resources.common.load_game`, so a move costs one read and the commit.
    """
    if request.endpoint in OPEN_ENDPOINTS or request.endpoint is None:
        return None
    limit, window = current_app.config["RATE_LIMIT"]
    g.pop("prefetched_game", None)  # never a copy from an earlier request sharing this app context
    game_id = (request.view_args or {}).get("game_id")
    try:
        g.caller, head = callers.identify(current_app.extensions["palazzo.store"], request, limit, window,
                                          game_id, LOAD_FIELDS)
    except Problem as problem:
        return render(problem)
    if head is not None:
        g.prefetched_game = (game_id, head)
    return None


def _describe_moves(api: ProblemApi, served: list[Any]) -> None:
    """Publish one schema per move type and make the `move` field a oneOf of them."""
    refs = []
    for game in served:
        for move_type, schema in schemas_for(game).items():
            name = component_name(game.name, move_type)
            api.spec.components.schema(name, schema=schema)
            refs.append({"$ref": f"#/components/schemas/{name}"})

    def move_property(converter, field, **kwargs):
        return {"oneOf": refs} if isinstance(field, MoveField) and refs else {}

    api.ma_plugin.converter.add_attribute_function(move_property)
