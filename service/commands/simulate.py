"""Play many games between bots and summarise who wins: a quick check on bots and on the rules.

Game i is drawn from seed S + i, so a run is reproducible and a single odd game can be replayed
on its own (``--seed S+i --games 1 --save-replay FILE``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from statistics import mean
from typing import Any

from engine import IllegalMove, get_game
from engine.core import game_names, rules_of, standings
from engine.bots import BOTS, check_bots
from engine.bots.play import play_game
from service.config import Config
from service.served import load_all



def add_arguments(parser: argparse.ArgumentParser) -> None:
    load_all()
    known = [get_game(name) for name in game_names()]
    parser.add_argument("--game", choices=game_names(), default=None,
                        help="the game to play (default: the first of PALAZZO_GAMES)")
    parser.add_argument("--players", type=int, default=None,
                        choices=range(min(g.min_seats for g in known), max(g.max_seats for g in known) + 1),
                        help="seats at the table (default: 4, or the game's nearest)")
    parser.add_argument("--games", type=_positive, default=100, help="how many games to play")
    parser.add_argument("--bots", default="greedy",
                        help=f"comma-separated bots, one per seat, or one for every seat ({', '.join(BOTS)})")
    parser.add_argument("--seed", type=int, default=0, help="game i is drawn from seed + i")
    parser.add_argument("--rotate", action="store_true",
                        help="move the bots one seat on each game, so that no bot always starts")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="one of the game's options (VALUE read as JSON, else as text); repeatable")
    parser.add_argument("--bidding", choices=("step", "open"), help="shorthand for --option bidding=VALUE")
    parser.add_argument("--auction-pass", action="store_true", help="shorthand for --option auction_pass=true")
    parser.add_argument("--save-replay", metavar="FILE", help="write the last game for `palazzo replay`")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def seat_bots(spec: str, seats: int) -> list[str]:
    """One bot per seat from the --bots list, or its single name for every seat."""
    names = [name.strip() for name in spec.split(",")]
    if not all(names) or len(names) not in (1, seats):
        raise IllegalMove("bad_bots", f"--bots names one bot for every seat or one per seat ({seats}): {spec!r}")
    check_bots(names)
    return names * seats if len(names) == 1 else names


def options_of(args: argparse.Namespace, seats: int) -> dict[str, Any]:
    """The options asked for on the command line, before the game fills in its defaults."""
    options: dict[str, Any] = {"seats": seats}
    for given in args.option:
        name, sep, text = given.partition("=")
        if not sep or not name:
            raise IllegalMove("bad_options", f"--option takes NAME=VALUE, not {given!r}")
        try:
            options[name] = json.loads(text)
        except ValueError:
            options[name] = text
    if args.bidding:
        options["bidding"] = args.bidding
    if args.auction_pass:
        options["auction_pass"] = True
    return options


def run(args: argparse.Namespace) -> int:
    game = get_game(args.game or next((name for name in Config.from_env().games if name in game_names()), game_names()[0]))
    players = args.players or min(max(4, game.min_seats), game.max_seats)
    args.players = players
    try:
        if not game.min_seats <= players <= game.max_seats:
            raise IllegalMove("bad_options", f"{game.name} takes {game.min_seats} to {game.max_seats} players")
        bots = seat_bots(args.bots, players)
        options = game.normalize_options(options_of(args, players))
    except IllegalMove as error:
        print(f"palazzo simulate: error: {error.message}", file=sys.stderr)
        return 2
    wins = {bot: 0 for bot in bots}
    prestige: dict[str, list[int]] = {bot: [] for bot in bots}
    decisions = []
    started = time.perf_counter()
    for index in range(args.games):
        seed = args.seed + index
        setup = game.make_setup(options, seed)
        shift = index % args.players if args.rotate else 0
        seated = bots[-shift:] + bots[:-shift] if shift else bots
        state, moves = play_game(game, options, setup, seated, seed)
        for place in standings(game, game.result(state)) or []:
            prestige[seated[place["seat"]]].append(place["score"])
            wins[seated[place["seat"]]] += place["rank"] == 1
        decisions.append(len(moves))
        print(f"\r{index + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    print(file=sys.stderr)
    print(summary(bots, args.games, wins, prestige, decisions, elapsed))
    if args.save_replay:
        record = {"game": game.name, "options": options, "setup": setup, "rules": rules_of(state), "moves": moves,
                  "bots": seated, "seed": seed}
        try:
            _write(args.save_replay, record)
        except OSError as error:
            print(f"palazzo simulate: error: cannot write {args.save_replay}: {error.strerror}", file=sys.stderr)
            return 2
    return 0


def _write(path: str, record: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as file:
        json.dump(record, file)
        file.write("\n")


def summary(bots: list[str], games: int, wins: dict[str, int], prestige: dict[str, list[int]],
            decisions: list[int], elapsed: float) -> str:
    """Wins (shared wins count for every winner) and mean final score per bot (the game's own points,
    `engine.core.standings`; none for a game that does not rank), then the pace."""
    lines = [f"{games} games, seats: {', '.join(bots)}",
             f"{'bot':<10}{'seats':>6}{'wins':>7}{'win/seat':>10}{'mean score':>11}"]
    for bot in wins:
        seats = bots.count(bot)
        rate = wins[bot] / (games * seats)
        scored = mean(prestige[bot]) if prestige[bot] else 0
        lines.append(f"{bot:<10}{seats:>6}{wins[bot]:>7}{rate:>10.1%}{scored:>11.1f}")
    lines.append(f"decisions per game: {mean(decisions):.0f}")
    lines.append(f"games per second: {games / elapsed:.1f}")
    return "\n".join(lines)
