"""The benchmarks' own claims: the Flask-free move route they measure is the real move, minus Flask."""
from __future__ import annotations

import importlib
import json

import pytest

from tests.conftest import SECRET

pytest.importorskip("engine.pof")


def _same(document: dict) -> dict:
    """An answer without its deadlines, which differ by the instant each twin's move was made."""
    return {**document, "pending": [{k: v for k, v in d.items() if k != "deadline_at"} for d in document["pending"]]}


def test_the_flask_free_route_plays_and_answers_as_the_real_one(redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("PALAZZO_SECRET", SECRET)
    monkeypatch.setenv("PALAZZO_RATE_LIMIT", "1000000 per minute")
    wsgi = importlib.reload(importlib.import_module("benchmarks.wsgi"))
    from benchmarks.api import MOVES
    from benchmarks.move_cpu import call, new_games

    (real_id, real_tokens, planned), (bare_id, bare_tokens, _) = new_games(wsgi.app, 1) + new_games(wsgi.app, 1)
    store = wsgi.palazzo.extensions["palazzo.store"]
    for version, (seat, move) in enumerate(planned[:80], start=2):
        body = {"move": move, "version": version}
        real = call(wsgi.app, "POST", MOVES["moves"].format(real_id), body, real_tokens[seat])
        bare = call(wsgi.app, "POST", MOVES["bare moves"].format(bare_id), body, bare_tokens[seat])
        assert real[0].startswith("200") and bare[0].startswith("200"), (real, bare)
        assert _same(json.loads(bare[1])) == _same(json.loads(real[1]))
    assert store.head(bare_id, "state")["state"] == store.head(real_id, "state")["state"]
    assert len(store.log(bare_id)) == len(store.log(real_id)) == 80
