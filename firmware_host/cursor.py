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

Any word is at most four `clue` and four `undo` presses away. The cursor is
view state of that seat alone: never journaled, never on the partner's screen.
"""

from __future__ import annotations

from keystand.drivers.inputs import KeyName, Press

from .rules import Seat

CELLS = 25
SIZE = 5


def start(seat: Seat) -> int:
    """Where a seat's cursor starts: the top-left word of its own screen."""
    return to_table(seat, 0)


def to_table(seat: Seat, screen: int) -> int:
    """The table cell at index `screen` of `seat`'s screen (row by row from its
    top left); seat B's screen is the table turned a half turn."""
    return screen if seat is Seat.A else CELLS - 1 - screen


def to_screen(seat: Seat, cell: int) -> int:
    return to_table(seat, cell)  # a half turn is its own inverse


def move(seat: Seat, cell: int, press: Press) -> int | None:
    """Where `press` moves the cursor from table `cell`, or None if the press is
    not a cursor move (a touch, a pass, an undo, the menu)."""
    at = to_screen(seat, cell)
    if press.key is KeyName.CLUE:
        return to_table(seat, (at + (-1 if press.long else 1)) % CELLS)
    if press.key is KeyName.UNDO and not press.long:
        return to_table(seat, (at + SIZE) % CELLS)
    return None


def confirms(press: Press) -> bool:
    """Whether `press` touches the word under the cursor."""
    return press.key is KeyName.PASS and not press.long
