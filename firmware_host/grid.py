"""The shape of a game's grid of words: rows, columns, and how each seat sees it.

Table cell i = `cols * row + col`, row 0 farthest from seat A, column 0 seat A's
leftmost (docs/design.md "Table coordinates"). Seat A reads the table as it
lies; seat B sits opposite and sees it a half turn round: table (r, c) at
(rows - 1 - r, cols - 1 - c). A half turn keeps a grid's rows and columns, so
both seats' screens have the game's shape. Each game names its grid (`Game.grid`).

One type for every layer that speaks of a grid: the rules (`rules.Grid`), the
games and the layouts (`layouts.Shape` is this class) import it, as they import
`keystand.errors`; like it, it imports nothing. The drivers take the rows and
columns as plain numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Grid:
    """A grid of `rows` x `cols` words (5x5 for Duet and classic Codenames)."""

    rows: int = 5
    cols: int = 5

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"grid {name} {value!r}: expected a whole number from 1")

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"

    def contains(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    def cell(self, row: int, col: int) -> int:
        """The table cell index of (row, col); ValueError names the grid's bounds."""
        if not self.contains(row, col):
            raise ValueError(
                f"cell ({row}, {col}) is off the {self} grid "
                f"(rows 0..{self.rows - 1}, columns 0..{self.cols - 1})"
            )
        return self.cols * row + col

    def check(self, what: str, cell: int | None) -> None:
        """ValueError naming `what` when `cell` is off this grid."""
        if cell is not None and not 0 <= cell < self.cells:
            raise ValueError(f"{what} {cell} is off the grid (0..{self.cells - 1})")

    def row_col(self, index: int) -> tuple[int, int]:
        """The (row, col) of table cell `index`."""
        if not 0 <= index < self.cells:
            raise ValueError(f"cell {index} is off the grid (0..{self.cells - 1})")
        return divmod(index, self.cols)

    def half_turn(self, row: int, col: int) -> tuple[int, int]:
        """(row, col) seen from the opposite seat: its own inverse."""
        return self.rows - 1 - row, self.cols - 1 - col

    def turned(self, index: int) -> int:
        """Table cell `index` a half turn round (where seat B's screen shows it,
        counted row by row from its top left): its own inverse."""
        self.row_col(index)  # off the grid: ValueError
        return self.cells - 1 - index


STANDARD = Grid(5, 5)
