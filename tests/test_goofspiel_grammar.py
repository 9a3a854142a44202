"""Goofspiel's written grammar: the lines a player writes read as bids, every line `answers` lists
reads back to a legal move, and the refusals a reply gets."""
from __future__ import annotations

import random

import pytest

from engine.bots import choose_move
from engine.core import LEAVE, LEAVE_CONFIRMED, Unreadable, answers, read_commands
from engine.goofspiel.grammar import GRAMMAR
from tests.goofspiel_helpers import GAME, bid, new_game


def parse(text: str):
    """The grammar's reading of a reply whose lines the player wrote himself (the inbound layer strips the rest)."""
    return GRAMMAR.parse(text.split("\n"))


def moves_of(text: str) -> list[dict | None]:
    return [command.move for command in parse(text).commands]


@pytest.mark.parametrize("text, card", [
    ("bid 7", 7), ("Bid 7.", 7), ("7", 7), ("  7  ", 7), ("play 7", 7), ("PLAY 12!", 12), ("bid seven", 7),
    ("I bid 3", 3), ("bid card 3 please", 3), ("Thirteen", 13), ("bid 1\n\nthanks, Ann", 1),
])
def test_a_bid_reads_as_players_write_it(text, card):
    assert moves_of(text) == [{"type": "bid", "card": card}]


def test_greetings_above_are_skipped_and_prose_below_is_not_read():
    parsed = parse("Hi all,\n\nbid 9\nGood luck! 3 more rounds\n-- \nAnn")
    assert [c.move for c in parsed.commands] == [{"type": "bid", "card": 9}]
    assert parsed.ignored == ["Good luck! 3 more rounds", "--", "Ann"]


def test_help_and_leave_are_no_moves():
    assert parse("help").help and parse("?").help
    assert parse("leave").leaving == LEAVE
    assert parse("leave confirm").leaving == LEAVE_CONFIRMED


@pytest.mark.parametrize("text, code", [
    ("", "no_command"), ("thanks!", "no_command"),
    ("bid", "bad_command"), ("bid seventeen", "bad_command"), ("bid 7 8", "bad_command"),
    ("7 is my lucky number", "bad_command"), ("bod 7", "unknown_command"), ("leave tomorrow", "bad_command"),
])
def test_what_is_no_bid_is_refused(text, code):
    with pytest.raises(Unreadable) as refused:
        parse(text)
    assert refused.value.code == code


def test_read_commands_checks_the_bid_on_the_state():
    state = new_game([3, 1, 2, 5, 4], seats=2)
    reading = read_commands(GAME, parse("bid 4"), state, 0)
    assert reading.moves == [{"type": "bid", "card": 4}] and reading.lines == ["bid 4"]
    assert read_commands(GAME, parse("help"), state, 0).moves == []
    for text, seat, code in (("bid 7", 0, "not_in_hand"), ("bid 2", 1, "already_bid")):
        with pytest.raises(Unreadable) as refused:
            read_commands(GAME, parse(text), bid(state, 1, 4), seat)
        assert refused.value.code == code and refused.value.line == text


def test_the_lines_a_mail_lists_are_the_cards_in_hand_with_the_prize_and_tie_rule():
    state = new_game([5, 1, 2, 3, 4], seats=2, ties="carry")
    listing = answers(GAME, state, 0)
    assert [line for line, _ in listing.commands] == ["bid 1", "bid 2", "bid 3", "bid 4", "bid 5"]
    assert listing.notes[0] == ("The prize is the 5: 5 points. The one highest bid takes it; a tied prize "
                                "carries over to the next round when the highest bid is tied.")
    state = bid(bid(state, 0, 2), 1, 2)
    assert answers(GAME, state, 0).notes[0].startswith("The prize is the 1 with 5 carried: 6 points at stake.")
    waiting = answers(GAME, bid(state, 0, 1), 0)
    assert waiting.commands == [] and waiting.notes == ["Your bid is in: the others' are awaited."]
    assert any("leave" in note for note in answers(GAME, state, 0, full=True).notes)


@pytest.mark.parametrize("seats, seed", [(2, 1), (3, 2), (5, 3)])
def test_every_line_answers_gives_reads_back_to_a_legal_move(seats, seed):
    options = GAME.normalize_options({"seats": seats, "ties": "carry" if seed % 2 else "discard"})
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    rng = random.Random(seed)
    while GAME.result(state) is None:
        for decision in GAME.pending(state):
            seat = decision["seat"]
            legal = GAME.legal_moves(state, seat)
            lines = [line for line, _ in answers(GAME, state, seat, full=True).commands]
            read = [read_commands(GAME, parse(line), state, seat).moves for line in lines]
            assert read == [[move] for move in legal]
            assert [GAME.describe(move).lower() for move in legal] == lines
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move("random", GAME, state, seat, rng))


def test_the_bid_that_ends_a_round_reveals_and_the_guide_says_how_to_write():
    state = new_game([3, 1, 2, 5, 4], seats=2)
    after = bid(state, 0, 1)
    assert not GRAMMAR.reveals(state, after, 0)
    assert GRAMMAR.reveals(after, bid(after, 1, 2), 1)
    assert any("bid 7" in line for line in GRAMMAR.guide)
