"""A finished game's archive page (/games/{id}/archive), with Flask's test client: linked from the game's
pages once it ends, its final standings, and a replay viewer whose next links walk every move of a
whole bot game of each served game, each step showing its move and the board then; a running game
has none (404 game_not_over) and its pages link to none."""
from __future__ import annotations

import html
import re

import pytest

from tests.conftest import new_game

LINK = re.compile(r'<a href="([^"]+)" rel="(first|prev|next|last)"')


def finished(client, game: str) -> tuple[str, dict]:
    created = new_game(client, game=game, seats=3, bots={0: "greedy", 1: "greedy", 2: "random"}, seed=11)
    game_id = created["game"]["id"]
    record = client.get(f"/api/v1/games/{game_id}/record").get_json()
    assert record["status"] == "finished"
    return game_id, record


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.data[:500]
    return response.get_data(as_text=True)


def links(text: str) -> dict[str, str]:
    return {rel: html.unescape(href) for href, rel in LINK.findall(text)}


def text_of(fragment: str) -> str:
    """What a reader reads of the HTML, pictures left out."""
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<svg.*?</svg>", "", fragment, flags=re.S))).split())
    return re.sub(r" ([:.,;)])", r"\1", words)


def walk(client, game_id: str, record: dict) -> list[str]:
    """Every step's page, from the first by the next links, checked against the record's moves."""
    names = [seat["name"] for seat in record["seats"]]
    end = page(client, f"/games/{game_id}/archive")
    assert f"step {len(record['moves'])} of {len(record['moves'])}" in end and "next" not in links(end)
    url, pages = links(end)["first"], []
    while True:
        text = page(client, url)
        step = len(pages)
        assert f'data-step="{step}"' in text
        move = text_of(re.search(r"<(div|p) [^>]*data-move.*?</\1>", text, re.S)[0])
        if step == 0:
            assert move == "The game as it began, before any move."
        else:
            entry = record["moves"][step - 1]
            assert move.startswith(f"Move {step}: {names[entry['seat']]}: "), move
        pages.append(text)
        found = links(text)
        assert ("prev" in found) == (step > 0) and ("first" in found) == (step > 0)
        if "next" not in found:
            break
        url = found["next"]
    assert len(pages) == len(record["moves"]) + 1
    return pages


def standings(text: str) -> list[tuple[str, str, str]]:
    table = re.search(r"<table class=\"stack\" data-standings>.*?</table>", text, re.S)[0]
    return re.findall(r"<td data-label=\"Place\">(\d+)</td><th scope=\"row\">([^<]+)</th><td data-label=\"Score\">(-?\d+)</td>",
                      table)


def test_a_finished_goofspiel_game_steps_through_every_round(client):
    game_id, record = finished(client, "goofspiel")
    assert f'href="/games/{game_id}/archive"' in page(client, f"/games/{game_id}/watch")
    pages = walk(client, game_id, record)
    ranked = sorted(record["result"]["scores"], key=lambda s: (s["rank"], s["seat"]))
    assert standings(pages[0]) == [(str(s["rank"]), f"P{s['seat']}", str(s["points"])) for s in ranked]
    last = len(pages) - 1
    for step, text in enumerate(pages):  # three seats bid once a round: a round ends every third step,
        rounds = re.search(r"<ol reversed data-rounds>(.*?)</ol>", text, re.S)  # and the last plays itself
        assert (len(re.findall("<li>", rounds[1])) if rounds else 0) == (step // 3 if step < last else 13), step
        assert ("data-result" in text) == (step == last)
        if step:
            entry = record["moves"][step - 1]
            assert f"Bid {entry['move']['card']}" in text_of(text)


def test_a_finished_princes_of_florence_game_shows_each_principality_at_each_step(client):
    game_id, record = finished(client, "princes-of-florence")
    pages = walk(client, game_id, record)
    ranked = standings(pages[-1])
    assert [name for _, name, _ in ranked] and {name for _, name, _ in ranked} == {"P0", "P1", "P2"}
    for step, text in enumerate(pages):
        principalities = re.findall(r'<article class="seat" data-seat="(\d)"', text)
        assert principalities == ["0", "1", "2"], step
        assert text.count("<svg") >= 3
        assert ("The game is over." in text) == (step == len(pages) - 1), step
    assert text_of(pages[0]).count("Works none yet") == 3 and text_of(pages[0]).count("Prestige 0 PP") == 3
    final = text_of(pages[-1])
    for _, name, score in ranked:
        assert re.search(rf"{name} Prestige {score} PP", final), (name, score)
    bids = [step for step, entry in enumerate(record["moves"], 1) if entry["move"]["type"] == "bid"]
    assert bids and "bid" in text_of(re.search(r"<ul data-lines>.*?</ul>", pages[bids[0]], re.S)[0])


@pytest.mark.parametrize("game", ["princes-of-florence", "goofspiel"])
def test_a_running_game_has_no_archive_page(client, game):
    created = new_game(client, game=game, seats=3, bots={0: "greedy"})
    game_id = created["game"]["id"]
    response = client.get(f"/games/{game_id}/archive")
    assert response.status_code == 404 and 'data-error="game_not_over"' in response.get_data(as_text=True)
    for step in ("0", "1"):
        assert client.get(f"/games/{game_id}/archive?step={step}").status_code == 404
    assert "/archive" not in page(client, f"/games/{game_id}/watch")


def test_a_step_that_is_not_one_is_refused(client):
    game_id, record = finished(client, "goofspiel")
    for step in ("-1", "x", "1.5", str(len(record["moves"]) + 1), "9" * 40):
        response = client.get(f"/games/{game_id}/archive?step={step}")
        assert response.status_code == 400 and 'data-error="bad_request"' in response.get_data(as_text=True), step
    assert client.get("/games/nosuchgame/archive").status_code == 404
