"""A player's yard: where landscapes and buildings fit on the 7x7 grid around the Palazzo.

Squares are ``[row, col]``, row 0 at the top, col 0 at the left. Internally a set of squares is a
49-bit int (bit ``r * GRID_COLS + c``), because the rules engine and the bots ask "where can this
piece go?" many times per move; `selection` answers it for every placement of several kinds at once.

Rules: a piece may be turned and mirrored and must lie on empty squares inside the grid. Landscapes
may touch anything. A building placed by a player with fewer than 2 architects may not share an edge
with another building or with the Palazzo (corners are fine); landscapes never restrict buildings.
"""
from __future__ import annotations

from functools import cache, lru_cache
from itertools import compress
from typing import Any, Iterable, NamedTuple

from engine.core import IllegalMove
from engine.pof.data import BUILDINGS, GRID_COLS, GRID_ROWS, LANDSCAPES, PALAZZO
from engine.pof.words import name

Square = tuple[int, int]
Shape = tuple[Square, ...]

ARCHITECTS_TO_TOUCH = 2  # with this many architects, buildings may share edges


class Placement(NamedTuple):
    """One spot for one orientation of a piece: its sorted squares and their bitmask."""

    squares: Shape
    mask: int


def _bit(r: int, c: int) -> int:
    return 1 << (r * GRID_COLS + c)


_BITS = [1 << index for index in range(GRID_ROWS * GRID_COLS)]


def _mask_of(squares: Iterable[Iterable[int]]) -> int:
    mask = 0
    for r, c in squares:
        mask |= _BITS[r * GRID_COLS + c]
    return mask


_FULL = (1 << (GRID_ROWS * GRID_COLS)) - 1
_COL0 = _mask_of((r, 0) for r in range(GRID_ROWS))
_COL_LAST = _mask_of((r, GRID_COLS - 1) for r in range(GRID_ROWS))


def _edge_neighbours(mask: int) -> int:
    """Squares sharing an edge with `mask` (and not in it); shifts keep rows from wrapping."""
    grown = (
        (mask >> GRID_COLS)
        | ((mask << GRID_COLS) & _FULL)
        | ((mask & ~_COL0) >> 1)
        | ((mask & ~_COL_LAST) << 1)
    )
    return grown & ~mask


PALAZZO_MASK: int = _mask_of(PALAZZO)
PALAZZO_NEIGHBOURS: int = _edge_neighbours(PALAZZO_MASK)


def normalise(squares: Iterable[Iterable[int]]) -> Shape:
    """The squares moved to the top-left corner of their box, sorted: a shape, wherever it lies."""
    pts = [(int(r), int(c)) for r, c in squares]
    min_r = min(r for r, _ in pts)
    min_c = min(c for _, c in pts)
    return tuple(sorted((r - min_r, c - min_c) for r, c in pts))


def orientations(shape: Iterable[Iterable[int]]) -> list[Shape]:
    """The distinct turns and mirror images of a shape, normalised, in a fixed documented order.

    The order (identity, 90, 180, 270, mirror, mirror+90, mirror+180, mirror+270; first of equals
    kept) makes `placements` and so `legal_moves` deterministic across runs and implementations.
    """
    base = normalise(shape)
    seen: set[Shape] = set()
    result: list[Shape] = []
    for mirrored in (False, True):
        pts = [(r, -c) for r, c in base] if mirrored else list(base)
        for _ in range(4):
            norm = normalise(pts)
            if norm not in seen:
                seen.add(norm)
                result.append(norm)
            pts = [(c, -r) for r, c in pts]  # rotate 90 degrees clockwise
    return result


def _piece(kind: str) -> dict[str, Any]:
    piece = BUILDINGS.get(kind) or LANDSCAPES.get(kind)
    if piece is None:
        raise ValueError(f"no landscape or building called {kind!r}")
    return piece


def is_building(kind: str) -> bool:
    return kind in BUILDINGS


@cache
def placements(kind: str) -> list[Placement]:
    """Every in-grid placement of every orientation, by anchor reading order then orientation.

    Cached: the shapes never change, and legal-move generation walks this list constantly.
    Callers must not mutate the returned list.
    """
    shapes = orientations(_piece(kind)["shape"])
    result: list[Placement] = []
    for r0 in range(GRID_ROWS):
        for c0 in range(GRID_COLS):
            for shape in shapes:
                squares = tuple((r0 + r, c0 + c) for r, c in shape)
                if all(r < GRID_ROWS and c < GRID_COLS for r, c in squares):
                    result.append(Placement(squares, _mask_of(squares)))
    return result


@cache
def squares_of(kinds: tuple[str, ...]) -> tuple[list[list[int]], ...]:
    """JSON-ready squares of every placement of `kinds`, kind after kind, each in `placements` order.

    The lists are shared by every caller (copying them was most of the cost of listing legal moves):
    moves are data that nobody mutates, and `check_placement` builds its own lists.
    """
    return tuple([list(sq) for sq in p.squares] for kind in kinds for p in placements(kind))


@cache
def _bytemasks(kinds: tuple[str, ...]) -> tuple[tuple[int, ...], dict[str, int], int]:
    """Over the placements of `squares_of(kinds)`, one byte each: per square of the grid, 1 in the
    bytes of the placements that cover it; per kind, 1 in the bytes of its placements; their count."""
    per_square = [0] * (GRID_ROWS * GRID_COLS)
    per_kind: dict[str, int] = {}
    index = 0
    for kind in kinds:
        per_kind[kind] = 0
        for p in placements(kind):
            byte = 1 << (8 * index)
            per_kind[kind] |= byte
            for r, c in p.squares:
                per_square[r * GRID_COLS + c] |= byte
            index += 1
    return tuple(per_square), per_kind, index


def selection(kinds: tuple[str, ...], wanted: Iterable[str], forbidden: int) -> bytes:
    """One byte per placement of `squares_of(kinds)`: 1 for those of a `wanted` kind that cover none
    of `forbidden`, else 0; `itertools.compress` picks them out in C.

    Testing 1,458 building placements one by one in Python was a fifth of a random game's time; this
    ORs one big int per forbidden square instead, and keeps the answer: a yard is asked the same
    question at every action until a piece goes on it, and a search asks it again in every playout.
    """
    return _selection(kinds, tuple(wanted), forbidden)


@lru_cache(maxsize=4096)
def _selection(kinds: tuple[str, ...], wanted: tuple[str, ...], forbidden: int) -> bytes:
    per_square, per_kind, count = _bytemasks(kinds)
    allowed = 0
    for kind in wanted:
        allowed |= per_kind[kind]
    blocked = 0
    for row, covering in enumerate(_row_masks(kinds)):
        blocked |= covering[(forbidden >> (row * GRID_COLS)) & _ROW]
    return (allowed & ~blocked).to_bytes(count, "little")


def forget() -> None:
    """Drop the selections kept so far (`selection`), for a benchmark that plays the same yards twice."""
    _selection.cache_clear()


_ROW = (1 << GRID_COLS) - 1


@cache
def _row_masks(kinds: tuple[str, ...]) -> tuple[tuple[int, ...], ...]:
    """Per row of the grid, per set of its squares (a GRID_COLS-bit number), the bytes of the placements
    that cover any of them: a yard's blocked placements are then one OR per row, not one per square."""
    per_square = _bytemasks(kinds)[0]
    rows = []
    for row in range(GRID_ROWS):
        covering = [0] * (_ROW + 1)
        for bits in range(1, _ROW + 1):
            lowest = bits & -bits
            covering[bits] = covering[bits ^ lowest] | per_square[row * GRID_COLS + lowest.bit_length() - 1]
        rows.append(tuple(covering))
    return tuple(rows)


@cache
def _orientation_set(kind: str) -> frozenset[Shape]:
    return frozenset(orientations(_piece(kind)["shape"]))


def _pieces_mask(pieces: Iterable[dict[str, Any]]) -> int:
    mask = 0
    for piece in pieces:
        for r, c in piece["squares"]:
            mask |= 1 << (r * GRID_COLS + c)
    return mask


def occupied_mask(player: dict[str, Any]) -> int:
    """The Palazzo plus every placed landscape and building."""
    return (
        PALAZZO_MASK
        | _pieces_mask(player.get("landscapes", ()))
        | _pieces_mask(player.get("buildings", ()))
    )


def forbidden_mask(player: dict[str, Any], kind: str) -> int:
    """Squares a new piece of `kind` may not cover, computed once per query."""
    buildings = _pieces_mask(player.get("buildings", ()))
    forbidden = PALAZZO_MASK | _pieces_mask(player.get("landscapes", ())) | buildings
    if kind in BUILDINGS and player.get("architects", 0) < ARCHITECTS_TO_TOUCH:
        forbidden |= PALAZZO_NEIGHBOURS | _edge_neighbours(buildings)
    return forbidden


def legal_placements(player: dict[str, Any], kind: str) -> list[list[list[int]]]:
    """Squares of every legal placement of `kind` for this player, in `placements` order (shared lists,
    see `squares_of`)."""
    return list(compress(squares_of((kind,)), placement_selection(player, kind)))


def placement_selection(player: dict[str, Any], kind: str) -> bytes:
    """One byte per placement of `kind` (`squares_of((kind,))`), 1 for those legal for this player."""
    kinds = (kind,)
    return selection(kinds, kinds, forbidden_mask(player, kind))


def has_placement(player: dict[str, Any], kind: str) -> bool:
    """Whether the piece fits anywhere."""
    return 1 in placement_selection(player, kind)


def _where(square: Square) -> str:
    return f"row {square[0]}, col {square[1]}"


def _parse_squares(squares: Any) -> list[Square]:
    if not isinstance(squares, (list, tuple)) or not squares:
        raise IllegalMove("bad_squares", "squares must be a non-empty list of [row, col] pairs")
    parsed: list[Square] = []
    for sq in squares:
        if (
            not isinstance(sq, (list, tuple))
            or len(sq) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in sq)
        ):
            raise IllegalMove("bad_squares", f"{sq!r} is not a [row, col] pair of integers")
        r, c = sq
        if not (0 <= r < GRID_ROWS and 0 <= c < GRID_COLS):
            raise IllegalMove(
                "bad_squares",
                f"{_where((r, c))} is outside the yard (rows 0-{GRID_ROWS - 1}, cols 0-{GRID_COLS - 1})",
            )
        if (r, c) in parsed:
            raise IllegalMove("bad_squares", f"{_where((r, c))} is given twice")
        parsed.append((r, c))
    return sorted(parsed)


def _owner_of(player: dict[str, Any], square: Square) -> str:
    """A human name for what covers or borders a square: 'the Palazzo' or 'a <kind>'."""
    if square in PALAZZO:
        return "the Palazzo"
    for group in ("buildings", "landscapes"):
        for piece in player.get(group, ()):
            if any(tuple(sq) == square for sq in piece["squares"]):
                return f"a {name(piece['kind'])}"
    return "another piece"


def fits(kind: str, squares: Iterable[Iterable[int]]) -> bool:
    """Whether the squares form the piece `kind` in some turn or mirror image."""
    return normalise(squares) in _orientation_set(kind)


@cache
def _placement_index(kind: str) -> dict[Shape, Placement]:
    return {p.squares: p for p in placements(kind)}


def _known(kind: str, squares: Any) -> Placement | None:
    """The in-grid placement of `kind` these squares make, given in any order; None for anything else
    (including squares that are not plain [row, col] pairs of ints, which `_parse_squares` refuses)."""
    if not isinstance(squares, (list, tuple)):
        return None
    pairs = []
    for sq in squares:
        if not isinstance(sq, (list, tuple)) or len(sq) != 2:
            return None
        r, c = sq
        if type(r) is not int or type(c) is not int:
            return None
        pairs.append((r, c))
    pairs.sort()
    return _placement_index(kind).get(tuple(pairs)) if kind in BUILDINGS or kind in LANDSCAPES else None


def check_placement(player: dict[str, Any], kind: str, squares: Any) -> list[list[int]]:
    """Validate squares a client sent for `kind`; return them sorted as [r, c] lists.

    Raises IllegalMove with a stable code: bad_squares, wrong_shape, square_taken, touches_building.
    A legal placement is found in one lookup (`_known`); the checks below run for the others, to say
    what is wrong.
    """
    known = _known(kind, squares)
    if known is not None and not known.mask & forbidden_mask(player, kind):
        return [list(sq) for sq in known.squares]
    parsed = _parse_squares(squares)
    if not fits(kind, parsed):
        raise IllegalMove(
            "wrong_shape",
            f"those {len(parsed)} squares do not form a {name(kind)}, in any turn or mirror image",
        )
    occupied = occupied_mask(player)
    for sq in parsed:
        if occupied & _bit(*sq):
            owner = _owner_of(player, sq)
            raise IllegalMove("square_taken", f"{_where(sq)} is already covered by {owner}")
    if is_building(kind) and player.get("architects", 0) < ARCHITECTS_TO_TOUCH:
        buildings = PALAZZO_MASK | _pieces_mask(player.get("buildings", ()))
        for r, c in parsed:
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < GRID_ROWS and 0 <= nc < GRID_COLS and buildings & _bit(nr, nc):
                    raise IllegalMove(
                        "touches_building",
                        f"{_where((r, c))} shares an edge with {_owner_of(player, (nr, nc))} at "
                        f"{_where((nr, nc))}; buildings may only touch with "
                        f"{ARCHITECTS_TO_TOUCH} architects",
                    )
    return [list(sq) for sq in parsed]
