"""The guesser's cursor on a buttons-only stand (docs/buttons-only.md).

A stand with keys and no grid has no way to touch a word, so the seat whose
turn it is to guess picks the word with a cursor on its own screen, moving in
the order that seat reads its screen (seat B's screen is the table turned a
half turn, so its "right" is the table's left):

    clue        next word (right, then on to the next row)
    clue, held  the word before
    undo        one row down (back to the top row after the last)
    pass        touch the word under the cursor (the normal touch event)
    pass, held  end the turn (the normal pass)
    undo, held  ask to undo (the normal undo: both seats press it)
    menu, held  the menu

On the 5x5 grid any word is at most four `clue` and four `undo` presses away
(on a rows x cols grid, cols - 1 and rows - 1). The grid is the game's
(`Game.grid`); the cursor is view state of that seat alone: never journaled,
never on the partner's screen.
"""

from __future__ import annotations

from keystand.drivers.inputs import KeyName, Press

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


def move(seat: Seat, cell: int, press: Press, grid: Grid = GRID) -> int | None:
    """Where `press` moves the cursor from table `cell`, or None if the press is
    not a cursor move (a touch, a pass, an undo, the menu)."""
    at = to_screen(seat, cell, grid)
    if press.key is KeyName.CLUE:
        return to_table(seat, (at + (-1 if press.long else 1)) % grid.cells, grid)
    if press.key is KeyName.UNDO and not press.long:
        return to_table(seat, (at + grid.cols) % grid.cells, grid)  # same column, a row down
    return None


def confirms(press: Press) -> bool:
    """Whether `press` touches the word under the cursor."""
    return press.key is KeyName.PASS and not press.long
