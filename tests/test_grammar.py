"""The written grammar of Princes of Florence (engine/pof/grammar.py): every move type read from lines
as players write them, every legal move of many random states written and read back to itself, the
lines a mail lists reading back to legal moves, and the refusals a reply gets. (What a mail program
adds to a reply is taken off before the grammar reads it: tests/test_quoting.py.)"""
from __future__ import annotations

import random

import pytest

from engine.bots import choose_move
from engine.core import Unreadable, answers, read_commands
from engine.pof import GAME
from engine.pof.data import BONUS_CARDS, BUILDINGS
from engine.pof.grammar import GRAMMAR
from engine.pof.writing import CODES, square_name, turned, write


def parse(text: str):
    """The grammar's reading of the lines of `text`, as the inbound layer hands them over."""
    return GRAMMAR.parse(text.split("\n"))


def moves_of(text: str) -> list[dict | None]:
    """What the lines say without the game's state (loose fields are None)."""
    return [command.move for command in parse(text).commands]


def play_until(stop, seed: int = 7, seats: int = 3, bot: str = "greedy", **options) -> dict:
    """Bots play until `stop(state)` holds for a pending seat; the state then."""
    options = GAME.normalize_options({"seats": seats, **options})
    state = GAME.new_state(options, GAME.make_setup(options, seed))
    rng = random.Random(seed)
    while not stop(state):
        assert GAME.result(state) is None, "the game ended before the wanted moment"
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move(bot, GAME, state, seat, rng))
    return state


def waiting(kind: str):
    return lambda state: bool(state["pending"]) and state["pending"][0]["kind"] == kind


def first_seat(state: dict) -> int:
    return state["pending"][0]["seat"]


# --- reading lines without the state ------------------------------------------------------------

WRITTEN = [  # (what a player writes, the move it reads as); "help" reads as no move
    ("keep painter sculptor architect", {"type": "keep_professions", "professions": ["painter", "sculptor", "architect"]}),
    ("Keep  Bell Maker, painter and the SCULPTOR.", {"type": "keep_professions", "professions": ["bell_maker", "painter", "sculptor"]}),
    ("keep map-maker organ_builder poet", {"type": "keep_professions", "professions": ["map_maker", "organ_builder", "poet"]}),
    ("keep alch bot phys", {"type": "keep_professions", "professions": ["alchemist", "botanist", "physicist"]}),
    ("open jugglers", {"type": "open_auction", "item": "juggler"}),
    ("Open the Prestige Card", {"type": "open_auction", "item": "prestige_card"}),
    ("auction lake", {"type": "open_auction", "item": "lake"}),
    ("bid 500", {"type": "bid", "amount": 500}),
    ("BID   1,000 florins!", {"type": "bid", "amount": 1000}),
    ("out", {"type": "step_out"}),
    ("step out", {"type": "step_out"}),
    ("fold", {"type": "step_out"}),
    ("place at B2 C2 B3", {"type": "place_landscape", "squares": [[1, 1], [1, 2], [2, 1]]}),
    ("place park at [1, 1] [1,2] [2, 1]", {"type": "place_landscape", "squares": [[1, 1], [1, 2], [2, 1]]}),
    ("place park at B2 rotate 0", {"type": "place_landscape", "squares": [[1, 1], [2, 1], [2, 2]]}),
    ("discard", {"type": "discard_landscape"}),
    ("throw it away", {"type": "discard_landscape"}),
    ("choose painter return poet doctor", {"type": "choose_card", "card": "painter", "return_order": ["poet", "doctor"]}),
    ("choose B07 return B01, B2", {"type": "choose_card", "card": "per_woods", "return_order": ["per_building", "per_large_building"]}),
    ("take most woo return most works, most parks", {"type": "choose_card", "card": "most_woods", "return_order": ["most_works", "most_parks"]}),
    ("entice painter", {"type": "entice", "profession": "painter"}),
    ("keep enticement", {"type": "keep_enticement"}),
    ("keep it", {"type": "keep_enticement"}),
    ("buy freedom travel", {"type": "buy_freedom", "freedom": "travel"}),
    ("buy the freedom of opinion", {"type": "buy_freedom", "freedom": "opinion"}),
    ("buy religion", {"type": "buy_freedom", "freedom": "religion"}),
    ("buy profession", {"type": "buy_profession"}),
    ("buy a person card", {"type": "buy_profession"}),
    ("buy bonus card", {"type": "buy_bonus_card"}),
    ("build library at C2 D2 E2 C3 D3", {"type": "build", "building": "library", "squares": [[1, 2], [1, 3], [1, 4], [2, 2], [2, 3]]}),
    ("build tower [[1,2],[1,3],[1,4]]", {"type": "build", "building": "tower", "squares": [[1, 2], [1, 3], [1, 4]]}),
    ("build library at C2 rotate 1", {"type": "build", "building": "library", "squares": [[1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]}),
    ("publish painter with bonus B07", {"type": "publish", "profession": "painter", "bonus_cards": ["per_woods"]}),
    ("publish painter with bonus cards per lake and per card in hand",
     {"type": "publish", "profession": "painter", "bonus_cards": ["per_lake", "per_card_in_hand"]}),
    ("publish painter without bonus", {"type": "publish", "profession": "painter", "bonus_cards": []}),
    ("prestige 2", {"type": "split_payout", "prestige": 2}),
    ("take 2 prestige", {"type": "split_payout", "prestige": 2}),
    ("3 PP", {"type": "split_payout", "prestige": 3}),
    ("florins", {"type": "split_payout", "prestige": 0}),
    ("end", {"type": "end_turn"}),
    ("End turn.", {"type": "end_turn"}),
    ("sell 2 prestige", {"type": "sell_prestige", "points": 2}),
    ("orders bid up to 600 for jugglers", {"type": "set_orders", "limits": {"juggler": 600}, "step_out_otherwise": False}),
    ("orders bid up to 600 for juggler and 400 for lake, step out otherwise",
     {"type": "set_orders", "limits": {"juggler": 600, "lake": 400}, "step_out_otherwise": True}),
    ("standing orders: step out otherwise", {"type": "set_orders", "limits": {}, "step_out_otherwise": True}),
    ("orders cancel", {"type": "set_orders", "limits": {}, "step_out_otherwise": False}),
    ("help", None),
]


@pytest.mark.parametrize("text, move", WRITTEN)
def test_every_move_type_reads_from_what_a_player_writes(text, move):
    assert moves_of(text) == [move]


def test_every_move_type_is_covered_by_the_grammar():
    """Each of the game's move types is read from at least one line above ("pass" may also mean stepping
    out: see test_pass_means_what_the_decision_allows)."""
    assert moves_of("pass") == [{"type": "pass_auction"}]
    assert {move["type"] for _, move in WRITTEN if move} | {"pass_auction"} == set(GAME.move_types)


def test_squares_read_like_a_chess_board_seen_from_above():
    assert square_name([0, 0]) == "A1" and square_name([1, 2]) == "C2" and square_name([6, 6]) == "G7"
    assert GAME.describe({"type": "build", "building": "tower", "squares": [[1, 2]]}).endswith("C2"), "labels name squares as replies do"
    assert moves_of("build tower at c2 D2 e2") == moves_of("build tower at [1, 2] [1, 3] [1, 4]")
    for off in ("build tower at H1 H2 H3", "build tower at A8 A9 A10", "build tower at [7, 0] [8, 0] [9, 0]"):
        with pytest.raises(Unreadable) as refused:
            moves_of(off)
        assert refused.value.code == "bad_square" and "not on the yard" in refused.value.message


def test_a_turn_is_clockwise_after_an_optional_mirror_from_the_corner_of_the_box():
    shape = BUILDINGS["library"]["shape"]  # ### over ##.
    assert turned("library", (0, 0), 0, False) == sorted(shape)
    assert turned("library", (1, 2), 0, False) == [[r + 1, c + 2] for r, c in sorted(shape)]
    assert turned("library", (0, 0), 0, True) == [[0, 0], [0, 1], [0, 2], [1, 1], [1, 2]]  # ### over .##
    assert turned("library", (0, 0), 1, False) == [[0, 0], [0, 1], [1, 0], [1, 1], [2, 1]]  # ## ## .#
    assert turned("library", (0, 0), 4, False) == turned("library", (0, 0), 0, False)
    with pytest.raises(Unreadable) as refused:
        moves_of("build library at G7 rotate 1")
    assert refused.value.code == "bad_square"


def test_names_are_found_by_prefix_only_when_one_fits():
    assert moves_of("entice paint") == [{"type": "entice", "profession": "painter"}]
    for text, fits in [("entice p", "physicist or philosopher or painter or pharmacist or poet"),
                       ("open p", "park or prestige card"), ("choose most w", "most woods or most lakes")]:
        with pytest.raises(Unreadable) as refused:
            moves_of(text)
        assert refused.value.code == "ambiguous_name" and fits in refused.value.message
    assert moves_of("choose B1")[0]["card"] == "per_building" and moves_of("choose b11")[0]["card"] == "per_freedom"
    assert all(moves_of(f"choose {code}")[0]["card"] == card for card, code in CODES.items())
    assert len(CODES) == len(BONUS_CARDS) and CODES["per_woods"] == "B07"


def test_a_typo_is_refused_not_skipped_and_a_mail_without_a_command_is_refused():
    for body, code in [("biuld tower at A1 B1 C1", "unknown_command"), ("bid 300\npublsh painter", "unknown_command"),
                       ("", "no_command"), ("Hi,\n\nThanks!", "unknown_command"),
                       ("bid lots", "bad_command"), ("build at A1", "bad_command"), ("buy a horse", "bad_command"),
                       ("orders bid 600", "bad_command"), ("keep painter zebra", "unknown_name")]:
        with pytest.raises(Unreadable) as refused:
            parse(body)
        assert refused.value.code == code, (body, refused.value.message)
    with pytest.raises(Unreadable) as refused:
        parse("biuld tower at A1 B1 C1")
    assert "Did you mean 'build'?" in refused.value.message and refused.value.line == "biuld tower at A1 B1 C1"
    with pytest.raises(Unreadable) as refused:
        parse("open ench")  # no item: the enticement card is no auction item, and is named so
    assert refused.value.code == "unknown_name" and "enticement" in refused.value.message


# --- lines checked against a seat's options ----------------------------------------------------

def read(text: str, state: dict, seat: int) -> list[dict]:
    return read_commands(GAME, parse(text), state, seat).moves


def refusal(text: str, state: dict, seat: int) -> Unreadable:
    with pytest.raises(Unreadable) as refused:
        read_commands(GAME, parse(text), state, seat)
    return refused.value


def test_a_line_may_leave_to_the_options_what_they_settle():
    state = play_until(waiting("choose_card"))
    seat, shown = first_seat(state), state["pending"][0]["private"]["cards"]
    word = CODES.get(shown[2], shown[2])
    assert read(f"choose {word}", state, seat) == [
        {"type": "choose_card", "card": shown[2], "return_order": [c for c in shown if c != shown[2]]}]
    assert refusal("choose " + next(c for c in ("painter", "poet", "doctor") if c not in shown), state, seat).code == "not_listed"
    state = play_until(waiting("bid"))
    seat = first_seat(state)
    lot = state["auction"]["lot"]
    assert read("bid", state, seat) == [{"type": "bid", "amount": lot["bid"] + 100}]
    assert read("pass", state, seat) == [{"type": "step_out"}], "while bidding, passing steps out"
    assert refusal(f"bid {lot['bid'] + 300}", state, seat).code == "bad_amount", "the engine's own refusal"


def test_pass_means_what_the_decision_allows():
    state = play_until(waiting("open_auction"), auction_pass=True)
    assert read("pass", state, first_seat(state)) == [{"type": "pass_auction"}]
    state = play_until(waiting("open_auction"))
    assert refusal("pass", state, first_seat(state)).code == "not_now"


def test_a_listed_work_is_published_with_its_cards_or_with_others_that_reach_the_minimum():
    def publishing(state):
        return waiting("action")(state) and any(
            m["type"] == "publish" for m in GAME.legal_moves(state, first_seat(state)))
    state = play_until(publishing, seed=3)
    seat = first_seat(state)
    listed = next(m for m in GAME.legal_moves(state, seat) if m["type"] == "publish")
    assert read(f"publish {listed['profession']}", state, seat) == [listed]
    assert refusal("publish " + next(p for p in ("painter", "poet", "doctor", "jurist", "alchemist")
                                     if p not in state["players"][seat]["private"]["hand"]), state, seat).code == "not_listed"


def test_a_piece_by_its_corner_is_the_one_placement_that_fits_there():
    state = play_until(lambda s: waiting("place_landscape")(s) and s["pending"][0]["landscape"] != "lake")
    seat = first_seat(state)
    legal = [m for m in GAME.legal_moves(state, seat) if m["type"] == "place_landscape"]
    kind = state["pending"][0]["landscape"]
    corners = [(min(r for r, _ in m["squares"]), min(c for _, c in m["squares"])) for m in legal]
    crowded = next(corner for corner in corners if corners.count(corner) > 1)
    refused = refusal(f"place at {square_name(crowded)}", state, seat)
    assert refused.code == "ambiguous_place" and refused.message.count("'place at ") == corners.count(crowded)
    for turns in range(4):
        for mirror in (False, True):
            squares = turned(kind, (2, 3), turns, mirror)
            expected = {"type": "place_landscape", "squares": squares}
            text = f"place at D3 rotate {turns}" + (" mirror" if mirror else "")
            if expected in legal:
                assert read(text, state, seat) == [expected]
    alone = next(corner for corner in corners if corners.count(corner) == 1)
    assert read(f"place at {square_name(alone)}", state, seat) == [legal[corners.index(alone)]]


def test_several_lines_make_one_turn_and_each_is_checked_after_the_ones_before():
    def rich_turn(state):
        return waiting("action")(state) and state["players"][first_seat(state)]["private"]["cash"] >= 1100
    state = play_until(rich_turn)
    seat = first_seat(state)
    build = next(m for m in GAME.legal_moves(state, seat) if m["type"] == "build")
    freedom = next(m for m in GAME.legal_moves(state, seat) if m["type"] == "buy_freedom")
    assert read(f"{write(freedom)}\n{write(build)}", state, seat) == [freedom, build]
    assert read(f"{write(freedom)}\nend", state, seat) == [freedom, {"type": "end_turn"}]
    refused = refusal(f"{write(freedom)}\n{write(freedom)}", state, seat)
    assert refused.code in ("once_a_turn", "freedom_unavailable") and refused.line == write(freedom)
    refused = refusal("end\nend", state, seat)
    assert refused.code == "not_your_decision" and refused.line == "end"


def test_an_end_after_the_turn_ended_by_itself_is_what_the_player_meant_and_no_other_line_is_let_off():
    """README "Rules we had to decide" 5: the second action ends the turn, so the 'end' a player
    writes after it finds no decision; it is no move, and said so, while every other check stays."""
    def rich_turn(state):
        return (waiting("action")(state) and state["turn"]["actions"] == 0
                and state["players"][first_seat(state)]["private"]["cash"] >= 1100)
    state = play_until(rich_turn)
    seat = first_seat(state)
    legal = GAME.legal_moves(state, seat)
    build = next(m for m in legal if m["type"] == "build")
    freedom = next(m for m in legal if m["type"] == "buy_freedom")
    reading = read_commands(GAME, parse(f"{write(freedom)}\n{write(build)}\nend\n\nThanks!"), state, seat)
    assert reading.moves == [freedom, build] and reading.lines == [write(freedom), write(build)]
    assert reading.settled == [("end", "your turn had ended by itself after its second action")]
    for text in (f"{write(freedom)}\n{write(build)}\n{write(freedom)}", f"{write(freedom)}\nend\nend", "end\nend",
                 f"{write(freedom)}\n{write(build)}\nend\nbid 300"):
        assert refusal(text, state, seat).code == "not_your_decision", text
    assert read_commands(GAME, parse("end"), state, seat).settled == []


def test_the_example_turn_a_mail_shows_is_legal_whole_where_it_is_shown():
    """The example in an action mail is made of the seat's own moves, and reads through read_commands
    on that very state, its 'end' included, at every action decision of whole games."""
    opts = GAME.normalize_options({"seats": 4})
    state = GAME.new_state(opts, GAME.make_setup(opts, 5))
    rng = random.Random(5)
    shown = settled = 0
    while GAME.result(state) is None:
        decision = GAME.pending(state)[0]
        seat = decision["seat"]
        notes = [note for note in answers(GAME, state, seat).notes if note.startswith("Several lines make one turn")]
        assert bool(notes) == (decision["kind"] == "action" and any(
            m["type"] in ("build", "buy_freedom") for m in GAME.legal_moves(state, seat))), decision
        if notes:
            lines = notes[0].split("'")[1].split(" / ")
            reading = read_commands(GAME, parse("\n".join(lines)), state, seat)
            assert reading.lines + [line for line, _ in reading.settled] == lines and lines[-1] == "end"
            shown += 1
            settled += bool(reading.settled)
        state, _ = GAME.apply(state, seat, choose_move(rng.choice(["random", "greedy"]), GAME, state, seat, rng))
    assert shown > 20 and settled > 5
    assert not any("/" in line for line in GRAMMAR.guide), "no turn in the guide, which every mail shows"


def test_nothing_after_a_line_that_shows_new_cards_is_read():
    state = play_until(lambda s: waiting("action")(s) and {"type": "buy_bonus_card"} in GAME.legal_moves(s, first_seat(s)))
    seat = first_seat(state)
    for after in ("choose B07", "choose painter", "end", "bid 300"):
        refused = refusal(f"buy bonus card\n{after}", state, seat)
        assert refused.code == "unseen" and refused.line == after and "B0" not in refused.message
    assert read("buy bonus card", state, seat) == [{"type": "buy_bonus_card"}]


def test_free_moves_read_at_any_time():
    state = play_until(waiting("bid"))
    seat = first_seat(state)
    other = next(s for s in range(3) if s != seat)
    orders = {"type": "set_orders", "limits": {"juggler": 600, "lake": 400}, "step_out_otherwise": True}
    assert read(write(orders), state, other) == [orders]
    assert write({"type": "set_orders", "limits": {}, "step_out_otherwise": False}) == "orders cancel"
    assert moves_of(write({"type": "sell_prestige", "points": 3})) == [{"type": "sell_prestige", "points": 3}]
    assert refusal("bid 300", state, other).code == "not_your_decision"
    assert refusal("bid", state, other).code == "not_now"
    assert parse("help").help and read("help", state, other) == []


# --- both directions over whole games ----------------------------------------------------------

GAMES = [(3, {}, 11), (4, {"bidding": "open"}, 12), (5, {"auction_pass": True}, 13), (3, {"bidding": "open"}, 14)]


@pytest.mark.parametrize("seats, options, seed", GAMES)
def test_every_legal_move_of_random_states_is_written_and_read_back_to_itself(seats, options, seed):
    """Over whole games: each legal move's line reads back (on the state) to that very move, and each
    line a mail would list, with its note, to a legal move: the listed work itself for a publish."""
    opts = GAME.normalize_options({"seats": seats, **options})
    state = GAME.new_state(opts, GAME.make_setup(opts, seed))
    rng = random.Random(seed)
    checked = 0
    kinds = set()
    while GAME.result(state) is None:
        for decision in GAME.pending(state):
            seat = decision["seat"]
            kinds.add(decision["kind"])
            legal = GAME.legal_moves(state, seat)
            for move in legal:
                assert read(write(move), state, seat) == [move], write(move)
                checked += 1
            listing = answers(GAME, state, seat, full=True)
            for line, note in listing.commands:
                [move] = read(f"{line}    ({note})" if note else line, state, seat)
                assert move in legal, line
            example = next((note for note in listing.notes if "is the first example above" in note), None)
            if example:
                first = next(line for line, _ in listing.commands if line.startswith(("build ", "place ")))
                assert read(example.split("'")[-2], state, seat) == read(first, state, seat), example
        seat = GAME.pending(state)[0]["seat"]
        state, _ = GAME.apply(state, seat, choose_move(rng.choice(["random", "greedy"]), GAME, state, seat, rng))
    assert checked > 1000 and {"keep_professions", "open_auction", "bid", "action", "choose_card",
                               "split_payout"} <= kinds


def test_the_lines_a_mail_lists_cover_every_kind_of_answer_and_the_yard_when_placing():
    state = play_until(waiting("place_landscape"))
    listing = answers(GAME, state, first_seat(state))
    assert [line for line, _ in listing.commands][-1] == "discard" and listing.commands[0][0].startswith("place at ")
    placements = [line for line, _ in answers(GAME, state, first_seat(state), full=True).commands if line.startswith("place")]
    assert len(placements) > sum(line.startswith("place") for line, _ in listing.commands), "help lists more examples"
    assert listing.picture and "A B C D E F G" in listing.picture and "# # #" in listing.picture
    assert any("rotate" in note for note in listing.notes)
    state = play_until(waiting("choose_card"))
    listing = answers(GAME, state, first_seat(state))
    assert all(line.startswith("choose ") and note for line, note in listing.commands)
    state = play_until(waiting("keep_professions"))
    listing = answers(GAME, state, 0)
    assert len(listing.commands) == 4 and "likes the" in listing.notes[0]
