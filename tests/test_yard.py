"""The yard's geometry, with the expected numbers worked out by hand so a regression shows."""
from __future__ import annotations

from itertools import chain
from random import Random
from typing import Any

import pytest

from engine.core import IllegalMove
from engine.pof.actions import BUILD_MOVES, BUILDING_KINDS
from engine.pof.data import BUILDINGS, LANDSCAPES
from engine.pof.yard import (
    PALAZZO_MASK,
    check_placement,
    forbidden_mask,
    has_placement,
    legal_placements,
    occupied_mask,
    orientations,
    placements,
    selection,
)


def player(
    architects: int = 0, landscapes: list | None = None, buildings: list | None = None
) -> dict[str, Any]:
    return {"architects": architects, "landscapes": landscapes or [], "buildings": buildings or []}


def piece(kind: str, *squares: tuple[int, int]) -> dict[str, Any]:
    return {"kind": kind, "squares": [list(sq) for sq in squares]}


def code_of(p: dict[str, Any], kind: str, squares: Any) -> str:
    with pytest.raises(IllegalMove) as info:
        check_placement(p, kind, squares)
    return info.value.code


# --- orientations -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "count"),
    [
        ([[0, 0], [0, 1], [1, 0], [1, 1]], 1),  # lake: a square looks the same every way
        ([[0, 0], [0, 1], [0, 2]], 2),  # tower: lying or standing
        ([[0, 0], [1, 0], [2, 0], [2, 1]], 8),  # woods: the L-tetromino has no symmetry
        ([[0, 0], [1, 0], [1, 1]], 4),  # park: mirror of an L-tromino is one of its turns
        ([[0, 0], [0, 1], [0, 2], [1, 1], [2, 1]], 4),  # opera: T, mirror-symmetric
    ],
)
def test_orientation_counts(shape: list[list[int]], count: int) -> None:
    assert len(orientations(shape)) == count


def test_orientations_order_and_normalisation() -> None:
    # Tower: identity is the row; rotate 90 gives the column; 180 and 270 repeat them.
    assert orientations([[0, 0], [0, 1], [0, 2]]) == [((0, 0), (0, 1), (0, 2)), ((0, 0), (1, 0), (2, 0))]
    # Woods L: identity first, whatever offset the input had.
    woods = orientations([[2, 3], [3, 3], [4, 3], [4, 4]])  # offset input is normalised
    assert woods[0] == ((0, 0), (1, 0), (2, 0), (2, 1))
    # rotate 90 clockwise: (r, c) -> (c, -r): rows become a row of 3 with the foot below its left end
    assert woods[1] == ((0, 0), (0, 1), (0, 2), (1, 0))
    # mirror (flip columns) of the identity is the fifth orientation
    assert woods[4] == ((0, 1), (1, 1), (2, 0), (2, 1))
    for shape in woods:
        assert min(r for r, _ in shape) == 0 and min(c for _, c in shape) == 0
        assert list(shape) == sorted(shape)


# --- placements ---------------------------------------------------------------------------------


def test_placement_counts() -> None:
    # Lake 2x2: anchors rows 0-5 x cols 0-5 = 36.
    assert len(placements("lake")) == 36
    # Tower: lying 7 rows x 5 starts + standing 5 starts x 7 cols = 70.
    assert len(placements("tower")) == 70
    # Park: 4 orientations, each in a 2x2 box: 4 x 36 = 144.
    assert len(placements("park")) == 144


def test_placements_reading_order_and_masks() -> None:
    anchors = [(min(r for r, _ in p.squares), min(c for _, c in p.squares)) for p in placements("woods")]
    assert anchors == sorted(anchors)
    first = placements("tower")[0]
    assert first.squares == ((0, 0), (0, 1), (0, 2)) and first.mask == 0b111
    assert placements("tower")[1].squares == ((0, 0), (1, 0), (2, 0))  # same anchor, orientation 1
    assert placements("lake")[-1].mask == (1 << 40) | (1 << 41) | (1 << 47) | (1 << 48)


def test_legal_placements_on_empty_yard_by_hand() -> None:
    # Lake: 36 anchors minus those whose 2x2 box meets the Palazzo (rows 4-5 x cols 0-2) = 30.
    assert len(legal_placements(player(), "lake")) == 30
    # Park: anchors in rows 0-3 never meet the Palazzo: 24 x 4 = 96; row 4 cols 3-5: 12; row 4 col 2:
    # only the orientation missing (5, 2): 1; row 5 cols 3-5: 12; rows 4-5 cols 0-1 and (5, 2): 0.
    assert len(legal_placements(player(), "park")) == 121


def test_legal_placements_first_is_top_left() -> None:
    assert legal_placements(player(), "woods")[0] == [[0, 0], [1, 0], [2, 0], [2, 1]]
    assert legal_placements(player(), "lake")[0] == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert legal_placements(player(), "lake")[1] == [[0, 1], [0, 2], [1, 1], [1, 2]]


def test_tower_building_rule_near_palazzo() -> None:
    # 0 architects: the Palazzo's edge neighbours (4,0) (4,1) (4,2) (5,3) (6,3) are off limits too.
    # Lying: rows 0-3: 20; row 4 starts 3,4: 2; rows 5, 6 start 4: 2 -> 24.
    # Standing: cols 0-2 starts 0,1: 6; col 3 starts 0-2: 3; cols 4-6: 15 -> 24.
    assert len(legal_placements(player(0), "tower")) == 48
    assert len(legal_placements(player(1), "tower")) == 48
    # 2 architects: only the Palazzo itself: 70 minus 6 lying and 6 standing overlaps = 58.
    assert len(legal_placements(player(2), "tower")) == 58


def test_landscapes_ignore_the_building_rule() -> None:
    lake_next_to_palazzo = [[3, 0], [3, 1], [4, 0], [4, 1]]
    assert lake_next_to_palazzo in legal_placements(player(0), "lake")
    assert check_placement(player(0), "lake", lake_next_to_palazzo) == lake_next_to_palazzo


def test_has_placement() -> None:
    assert has_placement(player(), "laboratory")
    # Cover every square but row 0 with one big landscape: a tower fits only lying in row 0 (5 starts).
    palazzo = {(5, 0), (5, 1), (5, 2), (6, 0), (6, 1), (6, 2)}
    rest = [(r, c) for r in range(1, 7) for c in range(7) if (r, c) not in palazzo]
    crowded = player(2, landscapes=[piece("woods", *rest)])
    assert has_placement(crowded, "tower")
    assert len(legal_placements(crowded, "tower")) == 5
    assert not has_placement(crowded, "lake")
    assert not has_placement(player(0, landscapes=[piece("woods", *rest)]), "university")


# --- check_placement ----------------------------------------------------------------------------


def test_check_placement_any_rotation_mirror_and_order() -> None:
    p = player()
    for shape in orientations([[0, 0], [1, 0], [2, 0], [2, 1]]):
        moved = [[r + 1, c + 2] for r, c in shape]
        assert check_placement(p, "woods", list(reversed(moved))) == sorted(moved)
    assert check_placement(p, "tower", [[2, 4], [0, 4], [1, 4]]) == [[0, 4], [1, 4], [2, 4]]
    assert check_placement(p, "tower", ((0, 0), (0, 1), (0, 2))) == [[0, 0], [0, 1], [0, 2]]


@pytest.mark.parametrize(
    "squares",
    [
        "0,0",
        [],
        [[0, 0], [0, 1], [0]],
        [[0, 0], [0, 1], ["0", 2]],
        [[0, 0], [0, 1], [0, 2.0]],
        [[0, 0], [0, 1], [True, 2]],
        [[0, 5], [0, 6], [0, 7]],
        [[-1, 0], [0, 0], [1, 0]],
        [[0, 0], [0, 1], [0, 1]],
    ],
)
def test_bad_squares(squares: Any) -> None:
    assert code_of(player(), "tower", squares) == "bad_squares"


def test_wrong_shape() -> None:
    assert code_of(player(), "tower", [[0, 0], [0, 1], [1, 1]]) == "wrong_shape"
    assert code_of(player(), "tower", [[0, 0], [0, 1]]) == "wrong_shape"
    assert code_of(player(), "lake", [[0, 0], [0, 1], [0, 2], [0, 3]]) == "wrong_shape"
    assert code_of(player(), "tower", [[0, 0], [0, 2], [0, 3]]) == "wrong_shape"


def test_square_taken() -> None:
    assert code_of(player(2), "tower", [[4, 0], [5, 0], [6, 0]]) == "square_taken"  # the Palazzo
    p = player(2, landscapes=[piece("lake", (0, 0), (0, 1), (1, 0), (1, 1))])
    with pytest.raises(IllegalMove) as info:
        check_placement(p, "tower", [[1, 1], [1, 2], [1, 3]])
    assert info.value.code == "square_taken"
    assert "row 1, col 1" in info.value.message and "lake" in info.value.message
    p_tower = player(2, buildings=[piece("tower", (3, 3), (3, 4), (3, 5))])
    assert code_of(p_tower, "lake", [[2, 3], [2, 4], [3, 3], [3, 4]]) == "square_taken"


def test_touches_building_rule() -> None:
    tower = piece("tower", (0, 0), (0, 1), (0, 2))
    edge = [[1, 2], [1, 3], [1, 4]]  # (1, 2) is under (0, 2)
    corner = [[1, 3], [1, 4], [1, 5]]  # (1, 3) meets (0, 2) at a corner only
    for architects in (0, 1):
        p = player(architects, buildings=[tower])
        with pytest.raises(IllegalMove) as info:
            check_placement(p, "tower", edge)
        assert info.value.code == "touches_building"
        assert "row 1, col 2" in info.value.message and "row 0, col 2" in info.value.message
        assert check_placement(p, "tower", corner) == corner
        assert edge not in legal_placements(p, "tower")
        assert corner in legal_placements(p, "tower")
    p2 = player(2, buildings=[tower])
    assert check_placement(p2, "tower", edge) == edge
    assert edge in legal_placements(p2, "tower")


def test_touching_the_palazzo_edge() -> None:
    above = [[4, 0], [4, 1], [4, 2]]  # on the Palazzo's top edge
    beside = [[4, 3], [5, 3], [6, 3]]  # on its right edge
    diagonal = [[2, 3], [3, 3], [4, 3]]  # (4, 3) meets (5, 2) at a corner only
    for squares in (above, beside):
        assert code_of(player(0), "tower", squares) == "touches_building"
        assert code_of(player(1), "tower", squares) == "touches_building"
        assert check_placement(player(2), "tower", squares) == squares
    assert check_placement(player(0), "tower", diagonal) == diagonal
    with pytest.raises(IllegalMove) as info:
        check_placement(player(0), "tower", above)
    assert "Palazzo" in info.value.message


def test_landscapes_touching_buildings() -> None:
    tower = piece("tower", (0, 0), (0, 1), (0, 2))
    lake_under = [[1, 0], [1, 1], [2, 0], [2, 1]]
    p = player(0, buildings=[tower])
    assert check_placement(p, "lake", lake_under) == lake_under
    # A building next to a landscape is fine too with 0 architects.
    p_lake = player(0, landscapes=[piece("lake", *[tuple(sq) for sq in lake_under])])
    assert check_placement(p_lake, "tower", [[3, 0], [3, 1], [3, 2]]) == [[3, 0], [3, 1], [3, 2]]


# --- masks and counts ---------------------------------------------------------------------------


def test_occupied_mask_covers_the_palazzo_and_every_piece() -> None:
    assert occupied_mask(player()) == PALAZZO_MASK
    assert occupied_mask(player()).bit_count() == 6  # the Palazzo
    p = player(
        landscapes=[
            piece("lake", (0, 0), (0, 1), (1, 0), (1, 1)),
            piece("park", (0, 5), (1, 5), (1, 6)),
        ],
        buildings=[piece("university", (2, 3), (2, 4), (2, 5), (3, 3), (3, 4), (3, 5), (4, 4))],
    )
    assert occupied_mask(p).bit_count() == 6 + 4 + 3 + 7
    assert occupied_mask(p) & 1  # (0, 0) is bit 0
    assert occupied_mask(p) >> (4 * 7 + 4) & 1  # (4, 4)


def test_legal_placements_and_build_moves_agree_with_testing_every_placement() -> None:
    """`selection` picks placements by byte masks; here each placement's squares are checked one by one
    with check_placement, over yards filled at random, with and without the architects' licence."""
    rng = Random(8)
    for trial in range(40):
        p = player(architects=trial % 3)
        for _ in range(rng.randrange(8)):
            kind = rng.choice([*BUILDINGS, *LANDSCAPES])
            spots = legal_placements(p, kind)
            if spots:
                group = "buildings" if kind in BUILDINGS else "landscapes"
                p[group].append({"kind": kind, "squares": rng.choice(spots)})
        for kind in chain(BUILDINGS, LANDSCAPES):
            expected = []
            for placement in placements(kind):
                try:
                    expected.append(check_placement(p, kind, [list(sq) for sq in placement.squares]))
                except IllegalMove:
                    pass
            assert legal_placements(p, kind) == expected, (trial, kind)
            assert has_placement(p, kind) == bool(expected)
        wanted = rng.sample(BUILDING_KINDS, rng.randrange(1, len(BUILDING_KINDS)))
        picked = [m for m, keep in zip(BUILD_MOVES, selection(BUILDING_KINDS, wanted, forbidden_mask(p, wanted[0])))
                  if keep]
        assert picked == [{"type": "build", "building": kind, "squares": squares}
                          for kind in BUILDING_KINDS if kind in wanted for squares in legal_placements(p, kind)]
