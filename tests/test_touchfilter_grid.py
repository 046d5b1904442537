"""The touch filter and the mat's orientation on a grid that is not 5x5 (issue 21, item 3).

A 5x4 mat (five rows, four columns) under a 5x4 table turns only by half turns:
a quarter turn would lay it across the table, its rows where the columns are.
"""

from __future__ import annotations

import pytest

from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter, check_cell

ROWS, COLS = 5, 4
CELLS = [(r, c) for r in range(ROWS) for c in range(COLS)]


def test_the_filter_takes_a_5x4_grid_and_refuses_cells_off_it() -> None:
    f = TouchFilter(rows=ROWS, cols=COLS, clock=lambda: 0.0)
    assert f.every_cell == frozenset(CELLS)
    assert f.feed({(4, 3)}, 0.0) is None
    assert f.feed({(4, 3)}, 0.1) == (4, 3)  # the far corner counts after the dwell
    assert f.feed(set(), 0.2) is None
    with pytest.raises(ValueError, match=r"cell \(0, 4\): rows are 0..4, columns 0..3"):
        f.feed({(0, 4)}, 0.3)
    with pytest.raises(ValueError, match="grid cols 0"):
        TouchFilter(rows=5, cols=0)


def test_a_lost_5x4_grid_keeps_every_one_of_its_cells() -> None:
    f = TouchFilter(rows=ROWS, cols=COLS)
    assert f.feed({(2, 3)}, 0.0, unknown=f.every_cell) is None  # nothing seen: no dwell
    assert f.feed({(2, 3)}, 0.2) is None  # seen from now
    assert f.feed({(2, 3)}, 0.3) == (2, 3)


def test_check_cell_keeps_the_square_message() -> None:
    with pytest.raises(ValueError, match=r"rows and columns are 0..4"):
        check_cell((5, 0))
    assert check_cell((4, 2), 5, 3) == (4, 2)


@pytest.mark.parametrize("mirror", [False, True])
@pytest.mark.parametrize("turns", [0, 2])
def test_a_5x4_orientation_maps_each_cell_onto_the_table_and_back(turns: int, mirror: bool) -> None:
    o = Orientation(turns, mirror, ROWS, COLS)
    table = [o.to_table(cell) for cell in CELLS]
    assert sorted(table) == CELLS  # one to one onto the same 5x4 shape
    assert all(o.to_grid(o.to_table(cell)) == cell for cell in CELLS)


def test_a_5x4_half_turn_and_mirror_are_where_the_cells_lie() -> None:
    assert Orientation(2, False, ROWS, COLS).to_table((0, 0)) == (4, 3)
    assert Orientation(2, False, ROWS, COLS).to_table((1, 3)) == (3, 0)
    assert Orientation(0, True, ROWS, COLS).to_table((1, 0)) == (1, 3)
    assert Orientation(2, True, ROWS, COLS).to_table((0, 0)) == (4, 0)


@pytest.mark.parametrize("turns", [1, 3])
def test_a_5x4_grid_is_never_turned_a_quarter(turns: int) -> None:
    with pytest.raises(ValueError, match="a 5x4 grid turns only by half turns"):
        Orientation(turns, False, ROWS, COLS)
    with pytest.raises(ValueError, match="half turns"):
        Orientation.parse(f"{turns * 90}", rows=ROWS, cols=COLS)
    assert Orientation.parse("180 mirrored", rows=ROWS, cols=COLS) == Orientation(
        2, True, ROWS, COLS
    )


@pytest.mark.parametrize("mirror", [False, True])
def test_calibrating_a_5x4_mat_finds_its_half_turn(mirror: bool) -> None:
    for laid in (0, 2):
        mat = Orientation(laid, mirror, ROWS, COLS)  # how it really lies
        before = Orientation(0, mirror, ROWS, COLS)  # what the stand believes
        touched = mat.to_grid((0, 0))  # a player touches seat A's top-left word
        found = before.calibrated(before.to_table(touched))
        assert found == mat
        assert all(found.to_table(c) == mat.to_table(c) for c in CELLS)


def test_a_5x4_calibration_on_a_corner_a_quarter_turn_away_says_lay_it_along() -> None:
    with pytest.raises(ValueError, match="lies along the table, never across it"):
        Orientation.from_corner((0, 3), rows=ROWS, cols=COLS)
    with pytest.raises(ValueError, match="not a corner"):
        Orientation.from_corner((2, 1), rows=ROWS, cols=COLS)


def test_two_touches_on_a_5x4_mat_find_turns_and_mirror() -> None:
    for turns in (0, 2):
        for mirror in (False, True):
            mat = Orientation(turns, mirror, ROWS, COLS)
            found = Orientation.from_corners(
                mat.to_grid((0, 0)), mat.to_grid((0, COLS - 1)), rows=ROWS, cols=COLS
            )
            assert found == mat
