"""Large API answers go compressed to clients that accept it; validators and small answers keep working."""
from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest

from tests.conftest import bearer, new_game, seat_tokens
from tests.web_client import enter_seat

pytest.importorskip("engine.pof")
GZIP = {"Accept-Encoding": "gzip"}


def _large_listing(client) -> tuple[str, dict, bytes]:
    """Play a 3-seat game at random until the seat to move has a listing over 20 KB (build placements):
    (game id, that seat's headers, the listing as sent uncompressed)."""
    created = new_game(client, game="princes-of-florence", seats=3, options={"bidding": "step", "auction_pass": True})
    game_id, tokens = created["game"]["id"], seat_tokens(created)
    rng = random.Random(3)
    for _ in range(300):
        seat = client.get(f"/api/v1/games/{game_id}").get_json()["pending"][0]["seat"]
        headers = bearer(tokens[seat])
        listing = client.get(f"/api/v1/games/{game_id}/moves", headers=headers)
        if len(listing.data) > 20_000:
            assert "Content-Encoding" not in listing.headers  # not asked for: sent plain
            return game_id, headers, listing.data
        move = rng.choice(listing.get_json()["moves"])["move"]
        assert client.post(f"/api/v1/games/{game_id}/moves", headers=headers,
                           json={"move": move, "version": listing.get_json()["version"]}).status_code == 200
    raise AssertionError("no listing over 20 KB in 300 moves")


def test_a_large_listing_is_sent_compressed_and_reads_the_same(client):
    game_id, headers, plain = _large_listing(client)
    packed = client.get(f"/api/v1/games/{game_id}/moves", headers={**headers, **GZIP})
    assert packed.status_code == 200 and packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"] and "Authorization" in packed.headers["Vary"]
    assert json.loads(gzip.decompress(packed.data)) == json.loads(plain)
    assert len(packed.data) * 5 < len(plain)


def test_the_compressed_answers_etag_still_validates(client):
    game_id, headers, plain = _large_listing(client)
    packed = client.get(f"/api/v1/games/{game_id}/moves", headers={**headers, **GZIP})
    tag = packed.headers["ETag"]
    assert tag.endswith(':gzip"') and tag.removesuffix(':gzip"') + '"' == client.get(
        f"/api/v1/games/{game_id}/moves", headers=headers).headers["ETag"]
    for extra in ({}, GZIP):  # held as the compressed tag, asked again with or without compression
        again = client.get(f"/api/v1/games/{game_id}/moves", headers={**headers, **extra, "If-None-Match": tag})
        assert again.status_code == 304, again.status_code
    spec = json.loads((Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text())
    submit = spec["paths"]["/api/v1/games/{game_id}/moves"]["post"]
    pattern = next(p for p in submit["parameters"] if p["name"] == "If-Match")["schema"]["pattern"]
    assert re.search(pattern, tag), "the spec takes the tag the server made and takes back"
    move = json.loads(plain)["moves"][0]["move"]
    played = client.post(f"/api/v1/games/{game_id}/moves", headers={**headers, "If-Match": tag}, json={"move": move})
    assert played.status_code == 200, played.get_json()


def test_small_answers_and_problems_go_plain(client):
    created = new_game(client)
    game_id, token = created["game"]["id"], seat_tokens(created)[0]
    moved = client.post(f"/api/v1/games/{game_id}/moves", headers={**bearer(token), **GZIP},
                        json={"move": {"type": "pick", "value": 1}, "version": 2})
    refused = client.post(f"/api/v1/games/{game_id}/moves", headers={**bearer(token), **GZIP},
                          json={"move": {"type": "pick", "value": 1}, "version": 1})
    assert moved.status_code == 200 and refused.status_code == 409
    for answer in (moved, refused):
        assert "Content-Encoding" not in answer.headers


def test_pages_go_plain_however_large(app, client):
    """A page carries a CSRF token and answers to a cookie: compressed, it would leak the token (BREACH)."""
    created = new_game(client, game="princes-of-florence", seats=3, emails=True)
    enter_seat(app, client, created["game"]["id"], 0)
    page = client.get(f"/games/{created['game']['id']}", headers=GZIP)
    assert page.status_code == 200 and len(page.data) > 4096 and 'name="csrf"' in page.get_data(as_text=True)
    assert "Content-Encoding" not in page.headers
