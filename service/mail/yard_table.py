"""A seat's principality for the HTML part of a mail: the 7x7 yard as an HTML table with inline styles.

Mail programs drop SVG (the pages' `service.web.yard_svg`) and many block images, but every one
shows a table with coloured cells. The squares carry the marks of the text part's grid
(`engine.pof.writing.marks`: # the Palazzo, w/l/p landscapes, a digit per building), the colours of
the pages' picture (`yard_svg.colours`), and a thick edge where one piece ends; a legend names
each mark. Plain data (strings, lists), since a decision's facts wait in Redis and a send job
before they are rendered (`render.Part`); `templates/_yard.html` lays it out.
"""
from __future__ import annotations

from typing import Any

from engine.pof.data import GRID_COLS, GRID_ROWS, LANDSCAPES
from engine.pof.view import COLUMNS
from engine.pof.writing import marks
from service.web.yard_svg import EMPTY, GRID_LINE, OUTLINE, PALAZZO_KIND, colours, describe_piece, pieces

CELL = 34  # pixels: seven of them and the row numbers fit a phone's width
EMPTY_INK = "#7a6a58"
SIDES = (("top", -1, 0), ("right", 0, 1), ("bottom", 1, 0), ("left", 0, -1))
THIN, THICK = f"1px solid {GRID_LINE}", f"2px solid {OUTLINE}"  # the grid; where a piece ends


def grid(player: dict[str, Any], title: str) -> dict[str, Any]:
    """The table of a seat's public yard (`view["players"][seat]`, any view): its title, the column
    letters, each row's number and cells (mark, fill, style) and the legend (mark, fill, style, words).
    The cells' common style (size, font) is the template's, on the table."""
    marked, _ = marks(player)
    placed = pieces(player)
    owner = {square: index for index, (_, squares) in enumerate(placed) for square in squares}
    rows = []
    for row in range(GRID_ROWS):
        cells = []
        for col in range(GRID_COLS):
            index = owner.get((row, col))
            fill, ink = colours(placed[index][0]) if index is not None else (EMPTY, EMPTY_INK)
            edges = f"border:{THIN};" + "".join(f"border-{side}:{THICK};" for side, dr, dc in SIDES
                                                 if index is not None and owner.get((row + dr, col + dc)) != index)
            mark = marked[row][col]
            cells.append({"mark": "" if mark == "." else mark, "fill": fill,
                          "style": f"background:{fill};{f'color:{ink};' if mark != '.' else ''}{edges}"})
        rows.append({"number": row + 1, "cells": cells})
    return {"title": title, "columns": list(COLUMNS), "rows": rows, "legend": _legend(player, marked)}


def _legend(player: dict[str, Any], marked: list[list[str]]) -> list[dict[str, str]]:
    """Each mark in the yard once, in the text grid's order: the Palazzo, the landscapes, the buildings
    (each by its size), then the empty square."""
    swatch = "width:20px;height:20px;padding:0;text-align:center;font:bold 13px Arial,sans-serif;"
    out = [_key("#", PALAZZO_KIND, PALAZZO_KIND, swatch)]
    seen = {mark for row in marked for mark in row}
    out += [_key(kind[0], kind, describe_piece(kind), swatch) for kind in LANDSCAPES if kind[0] in seen]
    for number, piece in enumerate(player.get("buildings", []), start=1):
        out.append(_key(str(number % 10), piece["kind"], describe_piece(piece["kind"]), swatch))
    if "." in seen:
        out.append({"mark": "", "fill": EMPTY, "words": "empty square",
                    "style": f"{swatch}background:{EMPTY};border:{THIN};"})
    return out


def _key(mark: str, kind: str, words: str, swatch: str) -> dict[str, str]:
    fill, ink = colours(kind)
    return {"mark": mark, "fill": fill, "words": words,
            "style": f"{swatch}background:{fill};color:{ink};border:1px solid {OUTLINE};"}
