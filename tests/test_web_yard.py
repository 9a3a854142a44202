"""The principality as a picture: drawn from data.json and a seat's public yard only."""
from __future__ import annotations

import re

from engine.pof.data import BUILDINGS, GRID_COLS, GRID_ROWS, PALAZZO
from engine.pof.presentation.placing import piece_picture
from engine.pof.presentation.yard_svg import SIZE_COLOURS, LANDSCAPE_COLOURS, PALAZZO_COLOURS, draw, summary

YARD = {"buildings": [{"kind": "library", "squares": [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]]},
                      {"kind": "tower", "squares": [[3, 4], [3, 5], [3, 6]]}],
        "landscapes": [{"kind": "lake", "squares": [[5, 5], [5, 6], [6, 5], [6, 6]]}]}


def _fills(svg: str) -> list[str]:
    return re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="48" height="48" fill="(#[0-9a-f]+)"', svg)


def test_every_square_is_drawn_with_what_covers_it():
    svg = str(draw(YARD, title="Ann's principality", ident="t"))
    fills = _fills(svg)
    assert len(fills) == GRID_ROWS * GRID_COLS
    assert fills.count(PALAZZO_COLOURS[0]) == len(PALAZZO)
    assert fills.count(SIZE_COLOURS[BUILDINGS["library"]["size"]][0]) == 5
    assert fills.count(SIZE_COLOURS["small"][0]) == 3 and fills.count(LANDSCAPE_COLOURS["lake"][0]) == 4
    assert all(f">{name}<" in svg for name in ("library", "tower", "lake", "Palazzo"))
    assert 'role="img"' in svg and "Ann&#x27;s principality" in svg


def test_the_picture_says_in_words_what_it_shows():
    words = summary(YARD)
    assert "library (medium building) on A1, B1, C1, A2, B2" in words and "lake on F6, G6, F7, G7" in words
    assert words.endswith(f"{GRID_ROWS * GRID_COLS - 6 - 5 - 3 - 4} empty squares.")


def test_a_corrected_shape_in_the_data_shows_at_once(monkeypatch):
    before = str(piece_picture("tower"))
    monkeypatch.setitem(BUILDINGS["tower"], "shape", [[0, 0], [1, 0], [1, 1]])
    after = str(piece_picture("tower"))
    assert before != after and after.count("<rect") == 3
    assert 'viewBox="0 0 44 16"' in before and 'viewBox="0 0 30 30"' in after  # 3 squares in a row; 2 by 2
