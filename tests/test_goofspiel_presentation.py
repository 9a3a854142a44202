"""Goofspiel's presentation (`engine.goofspiel.presentation`): its log's sentences, its decision mails'
lines and its board's facts, each from one reader's redacted view, so another seat's bid shows only
once the round is revealed."""
from __future__ import annotations

from engine.core import redact
from engine.presentation import presentation_of, sentence, title_of
from tests.goofspiel_helpers import GAME, bid, new_game, play_round

NAMES = ["Ann", "Bob", "Cy"]
SHOWN = presentation_of(GAME)


def told(events, reader):
    return [sentence(GAME, redact(event, reader), NAMES, reader) for event in events]


def test_each_event_has_its_sentence_and_a_bid_tells_its_card_to_its_own_seat_alone():
    state = new_game([3, 1, 2], seats=3)
    _, events = play_round(state, 3, 1, 2)
    assert told(events, 1) == ["Ann has bid.", "Bob (you) bid 1.", "Cy has bid.",
                               "Round 1, prize 3: Ann 3, Bob (you) 1, Cy 2; Ann takes it.",
                               "Round 2: the 1 is turned up (1 point at stake)."]
    assert told(events, None)[3] == "Round 1, prize 3: Ann 3, Bob 1, Cy 2; Ann takes it."


def test_ties_carried_the_last_round_and_the_end_are_told():
    state = new_game([2, 3, 1], seats=2, ties="carry")
    state, first = play_round(state, 2, 2)
    state, second = play_round(state, 3, 1)
    said = told(first + second, 0)
    assert "Round 1, prize 2: Ann (you) 2, Bob 2; tied, it carries over." in said
    assert "Round 2, prize 3 (with 2 carried: 5 points): Ann (you) 3, Bob 1; Ann (you) takes it." in said
    assert "Round 3 is the last: each hand's one card is its bid." in said
    assert said[-1] == "Game over: Ann (you) 5, Bob 1; Ann (you) wins."
    state = new_game([1, 2, 3], seats=2)
    state, events = play_round(state, 3, 3)
    assert "Round 1, prize 1: Ann 3, Bob 3; tied, it is lost." in told(events, None)


def test_the_board_shows_the_viewers_hand_and_bid_and_nobody_elses():
    state = bid(new_game([3, 1, 2], seats=3), 0, 2)
    mine = SHOWN.board_facts(GAME.view(state, 0), 0, NAMES)
    assert mine["my_bid"] == 2 and [card["bid"] for card in mine["hand"]] == [False, True, False]
    theirs = SHOWN.board_facts(GAME.view(state, 1), 1, NAMES)
    assert theirs["my_bid"] is None and theirs["seats"][0]["has_bid"] and "2" not in str(theirs["rounds"])
    assert theirs["prize"] == "the 3 (3 points)" and theirs["face_down"] == "1, 2"
    watching = SHOWN.board_facts(GAME.view(state, None), None, NAMES)
    assert watching["hand"] == [] and watching["seats"][1]["name"] == "Bob"


def test_a_decision_mail_says_the_prize_the_hand_and_how_the_last_round_went():
    state, _ = play_round(new_game([3, 1, 2], seats=3), 3, 1, 2)
    lines = SHOWN.decision_lines(GAME.view(state, 1), 1, {"seat": 1, "kind": "bid"}, NAMES)
    assert lines == ["Round 2: the prize is the 1 (1 point).", "Your hand: 2, 3.", "Prizes still face down: 2.",
                     "Last round: Round 1, prize 3: Ann 3, Bob (you) 1, Cy 2; Ann takes it."]
    assert title_of(GAME) == "Goofspiel" and SHOWN.board_moves and SHOWN.deadlines == [("bid", "each bid")]


def test_a_one_click_link_bids_its_card_from_a_page_in_goofspiels_words(redis_url):
    from urllib.parse import urlsplit

    from service import games
    from service.mailed_links import answer_links
    from tests.conftest import make_app, new_game

    app = make_app(redis_url, GAMES=["goofspiel", "princes-of-florence"])
    client = app.test_client()
    game_id = new_game(client, game="goofspiel", seats=3, options={"cards": 4})["game"]["id"]
    store, links = app.extensions["palazzo.store"], app.extensions["palazzo.links"]
    answers = answer_links(links, games.load(store, game_id), 1)["one_click"]
    assert [a["label"] for a in answers] == ["Bid 1 (the default)", "Bid 2", "Bid 3", "Bid 4"]
    url = urlsplit(answers[2]["url"])
    page = client.get(f"{url.path}?{url.query}").get_data(as_text=True)
    assert "Bid 3" in page and "Your move: bid one card of your hand for the prize." in page
    assert "Round 1: the prize is the " in page
    assert "auction" not in page and "prestige" not in page
    token = page.split('name="t" value="')[1].split('"')[0]
    done = client.post("/act", data={"t": token})
    assert done.status_code == 200 and "Done: Bid 3" in done.get_data(as_text=True)
    [entry] = store.log(game_id)
    assert entry["seat"] == 1 and entry["move"] == {"type": "bid", "card": 3}
