"""Where a table cell appears on a seat's screen: the half turn, in this one place.

Table cell i = cols * row + col of the game's grid (`view.Shape`, 5x5 unless
the host says otherwise), row 0 farthest from seat A, column 0 seat A's
leftmost (docs/design.md "Table coordinates"). Seat A reads the table as it
lies; seat B sits opposite and sees table (r, c) at (rows - 1 - r, cols - 1 - c):
a half turn keeps the grid's shape on both screens. Every screen that draws a
grid asks `screen_cell` and `grid_boxes`, never turns on its own.

A box is (x0, y0, x1, y1) with x1, y1 exclusive, as Pillow's `crop` takes it.
"""

from __future__ import annotations

from .view import SQUARE, SeatId, Shape, Who

Box = tuple[int, int, int, int]


def screen_cell(seat: SeatId, cell: int, grid: Shape = SQUARE) -> tuple[int, int]:
    """The (row, col) on `seat`'s screen, counted from its top left, of table `cell`."""
    grid.check("cell", cell)
    row, col = divmod(cell, grid.cols)
    if seat is SeatId.B:
        return grid.rows - 1 - row, grid.cols - 1 - col
    return row, col


def toward(viewer: Who) -> int:
    """The screen direction of a seat, seen from the viewer: +1 down (the viewer's own
    edge of the table), -1 up (the partner's edge, across the table)."""
    return 1 if viewer is Who.ME else -1


def grid_side(cell: int, count: int = SQUARE.cols) -> int:
    """The pixels `count` cells of `cell`-pixel pitch take in a row (or column),
    its outer lines included."""
    return count * cell + 1


def grid_size(cell: int, grid: Shape = SQUARE) -> tuple[int, int]:
    """The pixels (wide, high) a grid of `cell`-pixel pitch takes, its outer lines included."""
    return grid_side(cell, grid.cols), grid_side(cell, grid.rows)


def pitch(room: int, grid: Shape = SQUARE) -> int:
    """The largest cell pitch for which the grid's longer side fits in `room` pixels
    (a square of that side holds the grid, so a screen's layout keeps one place for it)."""
    return room // max(grid.rows, grid.cols)


def grid_boxes(seat: SeatId, x: int, y: int, cell: int, grid: Shape = SQUARE) -> dict[int, Box]:
    """Each table cell's box inside a grid whose top left line is at (x, y).

    Grid lines lie every `cell` pixels; a box is the inside of its cell, lines
    excluded.
    """
    boxes = {}
    for i in range(grid.cells):
        r, c = screen_cell(seat, i, grid)
        x0, y0 = x + c * cell + 1, y + r * cell + 1
        boxes[i] = (x0, y0, x0 + cell - 1, y0 + cell - 1)
    return boxes


def inclusive(box: Box) -> Box:
    """A box as ImageDraw's inclusive corners."""
    x0, y0, x1, y1 = box
    return (x0, y0, x1 - 1, y1 - 1)
