"""The buttons-only cursor on a game's own grid (issue 21, item 3): 4x4 and 5x4."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from keystand import cursor
from keystand.rules import Grid, Seat

Move = Callable[[Seat, int, Grid], int]


def walk(seat: Seat, grid: Grid, move: Move, steps: int) -> list[int]:
    at, seen = cursor.start(seat, grid), []
    for _ in range(steps):
        seen.append(at)
        at = move(seat, at, grid)
    return seen


def test_on_4x4_seat_a_reads_the_table_and_wraps_after_16() -> None:
    grid = Grid(4, 4)
    assert walk(Seat.A, grid, cursor.next_word, 17) == [*range(16), 0]
    assert walk(Seat.A, grid, cursor.down, 5) == [0, 4, 8, 12, 0]  # a row down, back to the top


def test_on_4x4_seat_b_starts_at_its_own_top_left_the_tables_last_cell() -> None:
    grid = Grid(4, 4)
    assert cursor.start(Seat.B, grid) == 15
    # Its right is the table's left.
    assert walk(Seat.B, grid, cursor.next_word, 5) == [15, 14, 13, 12, 11]
    assert walk(Seat.B, grid, cursor.down, 5) == [15, 11, 7, 3, 15]


@pytest.mark.parametrize(("rows", "cols"), [(4, 4), (5, 4), (4, 5)])
@pytest.mark.parametrize("seat", [Seat.A, Seat.B])
def test_every_word_is_reachable_within_the_grids_sides(rows: int, cols: int, seat: Seat) -> None:
    grid = Grid(rows, cols)
    reached = set()
    for down in range(rows):
        at = walk(seat, grid, cursor.down, down + 1)[-1]
        for _ in range(cols):
            reached.add(at)
            at = cursor.next_word(seat, at, grid)
    assert reached == set(range(grid.cells))
    for cell in range(grid.cells):  # the screen index and the table cell agree both ways
        assert cursor.to_table(seat, cursor.to_screen(seat, cell, grid), grid) == cell


def test_the_default_grid_is_the_5x5_one() -> None:
    assert cursor.start(Seat.B) == 24 and cursor.down(Seat.A, 20) == 0
