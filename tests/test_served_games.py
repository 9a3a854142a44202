"""PALAZZO_GAMES in any order starts the app and writes the spec, whichever game comes first: a game
without standing orders (no `set_orders`) first once made the spec read a move type it does not have."""
from __future__ import annotations

from itertools import permutations

import pytest

from engine.core import register
from service.app import create_app
from service.config import Config
from service.served import PACKAGES, served_games
from tests.conftest import SECRET
from tests.toy_game import MOVE_TYPES, ToyCount


class ToyPlain(ToyCount):
    """The toy game without standing orders, as Goofspiel has none."""

    name = "toy-plain"
    move_types = {kind: doc for kind, doc in MOVE_TYPES.items() if kind != "set_orders"}


register(ToyPlain())
SERVED = [*PACKAGES, "toy-count", "toy-plain"]


@pytest.mark.parametrize("order", list(permutations(SERVED)), ids=",".join)
def test_the_app_starts_and_writes_its_spec_with_the_games_in_any_order(order, monkeypatch):
    monkeypatch.delenv("PALAZZO_BASE_URL", raising=False)
    app = create_app(Config.from_env().but(redis_url="redis://127.0.0.1:1/0", games=tuple(order), secret_key=SECRET))
    spec = app.test_client().get("/api/v1/openapi.json").get_json()
    schemas = spec["components"]["schemas"]
    assert schemas["GameIn"]["properties"]["game"]["enum"] == list(order)
    assert schemas["GameIn"]["properties"]["game"]["default"] == order[0]
    limits = schemas["OrdersIn"]["properties"]["limits"]
    assert limits.get("type") == "object" or "anyOf" in limits  # from the games that have standing orders
    assert [game.name for game in app.extensions["palazzo.games"]] == list(order)


def test_a_game_created_without_a_name_is_the_first_served(monkeypatch):
    from service.schemas import GameIn
    app = create_app(Config.from_env().but(redis_url="redis://127.0.0.1:1/0", games=("toy-plain", *PACKAGES),
                                           secret_key=SECRET))
    with app.app_context():
        body = GameIn().load({"seats": [{"name": n} for n in ("Ada", "Bea", "Cy")]})
    assert body["game"] == "toy-plain"


def test_an_unknown_or_missing_game_package_is_skipped():
    assert [game.name for game in served_games(["no-such-game", "toy-count"])] == ["toy-count"]
