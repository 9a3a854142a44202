"""The log's sentences: every event of whole games, as each reader's feed holds it, is told in words
(`story.told`, the game's through its presentation), none left to the fallback that only names its type."""
from __future__ import annotations

from datetime import timedelta

import pytest

from service import deadlines, games, playing, preferences, time_off, tokens
from engine import get_game
from engine.pof.presentation import story as game_story
from service import story
from tests.conftest import bearer, new_game, seat_tokens

pytest.importorskip("engine.pof")

POF = "princes-of-florence"
BOT_GAMES = [  # seats, bots, options: both biddings, with and without passing on an auction
    (3, ["random", "greedy", "random"], {"bidding": "step"}),
    (4, ["greedy", "random", "greedy", "random"], {"bidding": "open", "auction_pass": True}),
    (5, ["greedy", "random", "greedy", "random", "greedy"], {"bidding": "step", "auction_pass": True}),
]


def _hosted_games(app, client) -> list[str]:
    """What only a deadline, the host or a player's time off raises: a vacation and its end, a timeout (which,
    with `missed_turns` 1, puts the stand-in in, until the player's own move), a pause and its end, a player
    removed, his seat handed to a bot (who then plays the game out), and, in a second game, a seat opened
    before the start, a new title and a cancel; in a third, a grace and a deadline moved out of new quiet hours."""
    store = app.extensions["palazzo.store"]
    created = new_game(client, game=POF, seats=3, bots={1: "random", 2: "greedy"}, missed_turns=1)
    game_id, host = created["game"]["id"], bearer(created["tokens"]["host"])
    seat = bearer(seat_tokens(created)[0])
    assert client.post(f"/api/v1/games/{game_id}/vacation", headers=seat, json={"hours": 2}).status_code == 200
    assert client.delete(f"/api/v1/games/{game_id}/vacation", headers=seat).status_code == 200
    assert playing.default_on(store, games.load(store, game_id), 0, force=True)[1]
    table = games.load(store, game_id)
    assert table.decision_of(0) is not None, "the bots played on to P0's next decision"
    moved = client.post(f"/api/v1/games/{game_id}/moves", headers=bearer(seat_tokens(created)[0]),
                        json={"move": table.game.legal_moves(table.state, 0)[0], "version": table.version})
    assert moved.status_code == 200, moved.get_json()
    assert client.post(f"/api/v1/games/{game_id}/pause", headers=host, json={"hours": 2}).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/resume", headers=host).status_code == 200
    assert client.post(f"/api/v1/games/{game_id}/seats/0/remove", headers=host,
                       json={"reason": "Gone."}).status_code == 200
    handed = client.put(f"/api/v1/games/{game_id}/seats/0", headers=host, json={"name": "Dee", "bot": "greedy"})
    assert handed.status_code == 200 and games.load(store, game_id).status == games.FINISHED
    other = new_game(client, game=POF, seats=3, bots={1: "random", 2: "greedy"}, start=False)
    opened = client.put(f"/api/v1/games/{other['game']['id']}/seats/0", headers=bearer(other["tokens"]["host"]),
                        json={"open": True})
    assert opened.status_code == 200
    renamed = client.put(f"/api/v1/games/{other['game']['id']}/title", headers=bearer(other["tokens"]["host"]),
                         json={"title": "Friday's game"})
    assert renamed.status_code == 200 and renamed.get_json()["title"] == "Friday's game"
    cancelled = client.post(f"/api/v1/games/{other['game']['id']}/cancel", headers=bearer(other["tokens"]["host"]))
    assert cancelled.status_code == 200
    return [game_id, other["game"]["id"], _graced_and_quiet(app, client)]


def _graced_and_quiet(app, client) -> str:
    """A game with grace, whose first timeout gives it, and a player whose new quiet hours move his deadline."""
    store = app.extensions["palazzo.store"]
    created = new_game(client, game=POF, seats=3, bots={2: "greedy"}, emails=True, grace_hours=6)
    game_id = created["game"]["id"]
    assert not playing.default_on(store, games.load(store, game_id), 0, force=True)[1]
    due = deadlines.parse(games.load(store, game_id).decision_of(1)["deadline_at"])
    hours = {"from": f"{(due - timedelta(hours=1)):%H:%M}", "to": f"{(due + timedelta(hours=1)):%H:%M}"}
    preferences.write(store, tokens.email_hash("p1@example.org"), {"quiet": hours})
    assert time_off.apply_quiet(store, tokens.email_hash("p1@example.org")) == 1
    return game_id


def _feeds(app, game_id: str) -> list[tuple[int | None, dict]]:
    """(reader, event) for every event of the game, in the spectator's feed and in each seat's."""
    store = app.extensions["palazzo.store"]
    seats = len(games.load(store, game_id).meta["seats"])
    total = store.feed_length(game_id)
    return [(reader, entry["event"]) for reader in (None, *range(seats))
            for entry in games.events_for(store, game_id, reader, 0, total)[0]]


def test_every_event_of_whole_games_is_told_to_every_reader(app, client):
    played = [new_game(client, game=POF, seats=seats, bots=dict(enumerate(bots)), seed=seats,
                       options=options)["game"]["id"] for seats, bots, options in BOT_GAMES]
    assert all(games.load(app.extensions["palazzo.store"], game_id).status == games.FINISHED for game_id in played)
    seen, untold = set(), []
    for game_id in played + _hosted_games(app, client):
        names = [entry["name"] for entry in games.load(app.extensions["palazzo.store"], game_id).meta["seats"]]
        for reader, event in _feeds(app, game_id):
            seen.add(event["type"])
            try:
                story.told(get_game(POF), event, names, reader)
            except (KeyError, IndexError, TypeError) as error:
                untold.append((event["type"], reader, repr(error)))
    assert not untold
    assert seen == set(story.SENTENCES) | set(game_story.SENTENCES), \
        "these games raise every kind of event there is a sentence for"
