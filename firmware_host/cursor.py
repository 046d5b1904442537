"""The guesser's cursor on a buttons-only stand (docs/buttons-only.md).

A stand with keys and no grid has no way to touch a word, so the seat whose
turn it is to guess picks the word with a cursor on its own screen. The
cursor shows only while the seat picks (its "Pick word" key pressed): then its
keys read, beside them, "Next", "Down", "Back" and "Guess". It moves in the
order that seat reads its screen (seat B's screen is the table turned a half
turn, so its "right" is the table's left):

    next   the next word: right, then on to the next row
    down   one row down (back to the top row after the last)

On the 5x5 grid any word is at most four `next` and four `down` presses away
(on a rows x cols grid, cols - 1 and rows - 1). The grid is the game's
(`Game.grid`); the cursor is view state of that seat alone: never journaled,
never on the partner's screen.
"""

from __future__ import annotations

from .rules import Grid, Seat
from .rules.card import GRID


def start(seat: Seat, grid: Grid = GRID) -> int:
    """Where a seat's cursor starts: the top-left word of its own screen."""
    return to_table(seat, 0, grid)


def to_table(seat: Seat, screen: int, grid: Grid = GRID) -> int:
    """The table cell at index `screen` of `seat`'s screen (row by row from its
    top left); seat B's screen is the table turned a half turn."""
    return screen if seat is Seat.A else grid.turned(screen)


def to_screen(seat: Seat, cell: int, grid: Grid = GRID) -> int:
    return to_table(seat, cell, grid)  # a half turn is its own inverse


def next_word(seat: Seat, cell: int, grid: Grid = GRID) -> int:
    """The word after table `cell` as `seat` reads its screen: right, then the next row."""
    return to_table(seat, (to_screen(seat, cell, grid) + 1) % grid.cells, grid)


def down(seat: Seat, cell: int, grid: Grid = GRID) -> int:
    """The word one row down on `seat`'s screen (the top row after the last)."""
    return to_table(seat, (to_screen(seat, cell, grid) + grid.cols) % grid.cells, grid)
