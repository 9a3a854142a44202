"""Placing a piece from a page without any script: pick a turn or mirror image, then a highlighted
square, then confirm the preview.

Works only from the moves `legal_moves` listed (a build or a landscape, each with its squares), so
every place offered is legal. A placement is known by its orientation (the engine's order of turns
and mirror images, `engine.pof.yard.orientations`) and its anchor, its top-left square: both fit in
a link, so each step is a plain GET and the last one a form posting exactly the listed move.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from engine.core import Move
from engine.pof.data import BUILDINGS, LANDSCAPES
from engine.pof.yard import normalise, orientations
from engine.pof.view import squares_name
from engine.pof.words import name
from engine.typed import whole_number
from engine.presentation import squares_value
from engine.pof.presentation.yard_svg import Anchor, draw, shape

Square = tuple[int, int]
Href = Callable[..., str]  # (turn=, at=) -> the page's URL for that step


def anchor_of(squares: list[list[int]]) -> Square:
    """The placement's top-left square (first in reading order): it and the orientation fix the place."""
    return min((r, c) for r, c in squares)


def parse_square(text: str | None) -> Square | None:
    """A square as a link of ours writes it, "row-col"; None for anything else."""
    numbers = [whole_number(part) for part in (text or "").split("-")]
    if len(numbers) != 2 or None in numbers:
        return None
    return numbers[0], numbers[1]


def unreadable(args: Mapping[str, str]) -> list[str]:
    """The steps of a placement in a page's query that no link of ours writes (a turn that is no
    number, a square that is no "row-col"): the page says so rather than guess."""
    found = []
    if "turn" in args and whole_number(args["turn"]) is None:
        found.append("turn")
    if "at" in args and parse_square(args["at"]) is None:
        found.append("square")
    return found


def placement(kind: str, moves: list[Move], yard: dict[str, Any], href: Href, turn: str | None,
              at: str | None, title: str) -> dict[str, Any]:
    """Everything the page needs to place `kind`: the orientations to pick from, the chosen one's
    anchors on the yard, and the previewed move once a square is picked."""
    piece = BUILDINGS.get(kind) or LANDSCAPES[kind]
    turns = orientations(piece["shape"])
    by_turn: dict[int, dict[Square, Move]] = {index: {} for index in range(len(turns))}
    for move in moves:
        index = turns.index(normalise(move["squares"]))
        by_turn[index][anchor_of(move["squares"])] = move
    open_turns = [index for index in by_turn if by_turn[index]]
    asked = whole_number(turn)
    chosen = asked if asked in open_turns else (open_turns or [0])[0]
    places = by_turn.get(chosen, {})
    square = parse_square(at)
    picked = places.get(square) if square is not None else None
    anchors = [Anchor(place, href(turn=chosen, at=f"{place[0]}-{place[1]}"),
                      f"Put the {name(kind)} here: {squares_name(move['squares'])}",
                      tuple(tuple(sq) for sq in move["squares"]))
               for place, move in sorted(places.items())]
    return {
        "kind": kind,
        "name": name(kind),
        "turns": [{"index": index, "href": href(turn=index), "current": index == chosen, "places": len(by_turn[index]),
                   "picture": shape(kind, turns[index], label=f"{name(kind)}, orientation {index + 1}")}
                  for index in open_turns],
        "yard": draw(yard, title=title, ident=f"place-{kind}", cell=48, anchors=[] if picked else anchors,
                     ghost=(kind, picked["squares"]) if picked else None),
        "picked": picked,
        "picked_squares": squares_name(picked["squares"]) if picked else None,
        "options": [{"value": squares_value(move["squares"]),
                     "label": squares_name(move["squares"]),
                     "selected": move is picked}
                    for _, move in sorted(places.items())],
        "back": href(turn=chosen),
    }


def piece_picture(kind: str) -> str:
    piece = BUILDINGS.get(kind) or LANDSCAPES[kind]
    return shape(kind, piece["shape"], label=name(kind))
