"""A principality as a picture: the 7x7 yard, the Palazzo, every building and landscape, the empty squares,
as SVG for the pages and as an HTML table for mail (`grid`: mail programs drop SVG and many block
images, but every one shows a table with coloured cells, with the text grid's marks,
`engine.pof.writing.marks`, and a thick edge where one piece ends; plain data, since a decision's
facts wait in Redis before they are rendered, laid out by the mail's `templates/_yard.html`).

Drawn from `engine/pof/data.json` alone (grid, Palazzo, each piece's size class), so a corrected
shape shows at once. Pure: it takes a seat's public yard (from any view) and gives markup as a plain
string (what it holds of a name escaped here, with `html.escape`), which the game's own templates mark
safe where they draw it. Squares read like the move labels: columns A-G, rows 1-7 from the top.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from html import escape

from engine.pof.data import BUILDINGS, GRID_COLS, GRID_ROWS, LANDSCAPES, PALAZZO
from engine.pof.view import COLUMNS, square_name, squares_name
from engine.pof.words import name
from engine.pof.writing import marks

# fill and text colour per kind of square; every pair has a contrast of at least 4.5:1
SIZE_COLOURS = {"large": ("#7a2e1d", "#ffffff"), "medium": ("#a14a17", "#ffffff"), "small": ("#e3b04b", "#1a1a1a")}
LANDSCAPE_COLOURS = {"woods": ("#2e6b34", "#ffffff"), "lake": ("#1f5f94", "#ffffff"), "park": ("#a8d672", "#1a1a1a")}
PALAZZO_COLOURS = ("#4b3f72", "#ffffff")
EMPTY, GRID_LINE, OUTLINE = "#f7f2e7", "#b9aa8c", "#1a1a1a"
SIZE_WORDS = {"large": "large building", "medium": "medium building", "small": "small building"}
PALAZZO_KIND = "Palazzo"


def colours(kind: str) -> tuple[str, str]:
    """Fill and text colour of a piece: buildings by size, landscapes by kind."""
    if kind in BUILDINGS:
        return SIZE_COLOURS[BUILDINGS[kind]["size"]]
    if kind in LANDSCAPES:
        return LANDSCAPE_COLOURS[kind]
    return PALAZZO_COLOURS


def piece_name(kind: str) -> str:
    """A piece's name in the game's words; the Palazzo is no piece of the game's, just itself."""
    return kind if kind == PALAZZO_KIND else name(kind)


def describe_piece(kind: str) -> str:
    if kind in BUILDINGS:
        return f"{name(kind)} ({SIZE_WORDS[BUILDINGS[kind]['size']]})"
    return piece_name(kind)


@dataclass(frozen=True)
class Anchor:
    """A square to click: a link to `href` (a placement's preview), with its accessible label."""

    square: tuple[int, int]
    href: str
    label: str
    squares: tuple[tuple[int, int], ...] = ()  # the placement it previews, for the script's hover preview


def pieces(yard: dict[str, Any]) -> list[tuple[str, list[tuple[int, int]]]]:
    """(kind, squares) of everything in the yard, the Palazzo first."""
    found = [(PALAZZO_KIND, [tuple(sq) for sq in PALAZZO])]
    for group in ("buildings", "landscapes"):
        found += [(piece["kind"], [tuple(sq) for sq in piece["squares"]]) for piece in yard.get(group, [])]
    return found


def summary(yard: dict[str, Any]) -> str:
    """The picture in words, for screen readers and the picture's description."""
    parts = [f"{describe_piece(kind)} on {squares_name(squares)}"
             for kind, squares in pieces(yard)]
    covered = sum(len(squares) for _, squares in pieces(yard))
    return "; ".join(parts) + f". {GRID_ROWS * GRID_COLS - covered} empty squares."


def draw(yard: dict[str, Any], *, title: str, ident: str, cell: int = 48, labels: bool = True,
         anchors: Iterable[Anchor] = (), ghost: tuple[str, list[list[int]]] | None = None) -> str:
    """The yard as an inline SVG element.

    `anchors` become links on their squares (where a piece may go); `ghost` draws a piece not yet
    placed (the preview). `ident` makes the element ids unique on a page.
    """
    margin = cell // 2 if labels else 2
    width, height = margin + GRID_COLS * cell + 2, margin + GRID_ROWS * cell + 2
    owner: dict[tuple[int, int], int] = {}
    placed = pieces(yard)
    for index, (_, squares) in enumerate(placed):
        for square in squares:
            owner[square] = index
    anchors = list(anchors)
    role = "group" if anchors else "img"  # an image may hold no links: with squares to pick it is a group
    out = [f'<svg class="yard" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="{role}" '
           f'aria-labelledby="{ident}-t {ident}-d" data-cell="{cell}" data-margin="{margin}" '
           f'xmlns="http://www.w3.org/2000/svg">',
           f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(summary(yard))}</desc>']
    if labels:
        font = max(10, cell // 4)
        for c in range(GRID_COLS):
            out.append(f'<text x="{margin + c * cell + cell / 2}" y="{margin - 5}" font-size="{font}" '
                       f'text-anchor="middle" fill="#333">{square_name((0, c))[0]}</text>')
        for r in range(GRID_ROWS):
            out.append(f'<text x="{margin - 5}" y="{margin + r * cell + cell / 2 + font / 3}" font-size="{font}" '
                       f'text-anchor="end" fill="#333">{r + 1}</text>')

    def xy(square: tuple[int, int]) -> tuple[int, int]:
        return margin + square[1] * cell, margin + square[0] * cell

    for r in range(GRID_ROWS):
        for c in range(GRID_COLS):
            x, y = xy((r, c))
            index = owner.get((r, c))
            fill = colours(placed[index][0])[0] if index is not None else EMPTY
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="{GRID_LINE}" '
                       f'stroke-width="1"><title>{square_name((r, c))}</title></rect>')
    for index, (kind, squares) in enumerate(placed):
        out.append(_outline(squares, xy, cell, OUTLINE, 2.5))
        if labels or cell >= 30:
            out.append(_label(kind, squares, xy, cell))
    if ghost is not None:
        kind, squares = ghost
        fill, _ = colours(kind)
        ghost_squares = [tuple(sq) for sq in squares]
        out.append('<g class="ghost" opacity="0.75">')
        for square in ghost_squares:
            x, y = xy(square)
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}"/>')
        out.append(_outline(ghost_squares, xy, cell, "#000000", 3, dashed=True))
        out.append(_label(kind, ghost_squares, xy, cell))
        out.append("</g>")
    for anchor in anchors:
        x, y = xy(anchor.square)
        pad = max(3, cell // 8)
        squares = " ".join(f"{r},{c}" for r, c in anchor.squares)
        out.append(f'<a class="anchor" href="{escape(anchor.href)}" aria-label="{escape(anchor.label)}" '
                   f'data-squares="{squares}"><rect x="{x + pad}" y="{y + pad}" width="{cell - 2 * pad}" '
                   f'height="{cell - 2 * pad}" rx="{pad}" fill="#ffd84d" stroke="#1a1a1a" stroke-width="2"/>'
                   f'<title>{escape(anchor.label)}</title></a>')
    out.append('<g class="preview"></g></svg>')
    return "".join(out)


def _outline(squares: list[tuple[int, int]], xy, cell: int, colour: str, width: float, dashed: bool = False) -> str:
    """The piece's border: every square edge not shared with another square of the same piece."""
    inside = set(squares)
    segments = []
    for r, c in squares:
        x, y = xy((r, c))
        if (r - 1, c) not in inside:
            segments.append(f"M{x},{y}h{cell}")
        if (r + 1, c) not in inside:
            segments.append(f"M{x},{y + cell}h{cell}")
        if (r, c - 1) not in inside:
            segments.append(f"M{x},{y}v{cell}")
        if (r, c + 1) not in inside:
            segments.append(f"M{x + cell},{y}v{cell}")
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return f'<path d="{"".join(segments)}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>'


def _label(kind: str, squares: list[tuple[int, int]], xy, cell: int) -> str:
    """The piece's name on its most central square (the one nearest the middle of its squares)."""
    mid_r = sum(r for r, _ in squares) / len(squares)
    mid_c = sum(c for _, c in squares) / len(squares)
    r, c = min(squares, key=lambda sq: ((sq[0] - mid_r) ** 2 + (sq[1] - mid_c) ** 2, sq))
    x, y = xy((r, c))
    text = piece_name(kind) if cell >= 44 else piece_name(kind)[:4]
    font = max(8, min(cell // 4, int(cell * 1.6 / max(len(text), 1))))
    return (f'<text x="{x + cell / 2}" y="{y + cell / 2 + font / 3}" font-size="{font}" text-anchor="middle" '
            f'fill="{colours(kind)[1]}" font-weight="600">{escape(text)}</text>')


def shape(kind: str, squares: Iterable[Iterable[int]], *, cell: int = 14, label: str = "") -> str:
    """One piece on its own (an orientation to choose, a building on offer), as a small picture."""
    cells = [tuple(sq) for sq in squares]
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    fill, _ = colours(kind)
    out = [f'<svg class="shape" viewBox="0 0 {cols * cell + 2} {rows * cell + 2}" width="{cols * cell + 2}" '
           f'height="{rows * cell + 2}" role="img" aria-label="{escape(label or piece_name(kind))}" '
           f'xmlns="http://www.w3.org/2000/svg">']
    for r, c in cells:
        out.append(f'<rect x="{c * cell + 1}" y="{r * cell + 1}" width="{cell}" height="{cell}" fill="{fill}" '
                   f'stroke="#ffffff" stroke-width="1"/>')
    out.append(_outline(cells, lambda sq: (sq[1] * cell + 1, sq[0] * cell + 1), cell, OUTLINE, 1.5))
    out.append("</svg>")
    return "".join(out)


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
