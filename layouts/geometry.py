"""Where a table cell appears on a seat's screen: the half turn, in this one place.

Table cell i = 5 * row + col, row 0 farthest from seat A, column 0 seat A's
leftmost (docs/design.md "Table coordinates"). Seat A reads the table as it
lies; seat B sits opposite and sees table (r, c) at (4 - r, 4 - c). Every screen
that draws a grid asks `screen_cell` and `grid_boxes`, never turns on its own.

A box is (x0, y0, x1, y1) with x1, y1 exclusive, as Pillow's `crop` takes it.
"""

from __future__ import annotations

from .view import CELLS, SIZE, SeatId, Who

Box = tuple[int, int, int, int]


def screen_cell(seat: SeatId, cell: int) -> tuple[int, int]:
    """The (row, col) on `seat`'s screen, counted from its top left, of table `cell`."""
    if not 0 <= cell < CELLS:
        raise ValueError(f"cell {cell} is off the grid (0..24)")
    row, col = divmod(cell, SIZE)
    if seat is SeatId.B:
        return SIZE - 1 - row, SIZE - 1 - col
    return row, col


def toward(viewer: Who) -> int:
    """The screen direction of a seat, seen from the viewer: +1 down (the viewer's own
    edge of the table), -1 up (the partner's edge, across the table)."""
    return 1 if viewer is Who.ME else -1


def grid_side(cell: int) -> int:
    """The pixels a 5x5 grid of `cell`-pixel pitch takes, its outer lines included."""
    return SIZE * cell + 1


def grid_boxes(seat: SeatId, x: int, y: int, cell: int) -> dict[int, Box]:
    """Each table cell's box inside a grid whose top left line is at (x, y).

    Grid lines lie every `cell` pixels; a box is the inside of its cell, lines
    excluded.
    """
    boxes = {}
    for i in range(CELLS):
        r, c = screen_cell(seat, i)
        x0, y0 = x + c * cell + 1, y + r * cell + 1
        boxes[i] = (x0, y0, x0 + cell - 1, y0 + cell - 1)
    return boxes


def inclusive(box: Box) -> Box:
    """A box as ImageDraw's inclusive corners."""
    x0, y0, x1, y1 = box
    return (x0, y0, x1 - 1, y1 - 1)
