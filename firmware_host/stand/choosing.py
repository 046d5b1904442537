"""What a seat chooses on its own keys, shown on its own screen only and never
journaled: the word under its cursor (a stand with keys and no grid) and its
clue's number (a game whose clue has one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..rules import Seat
from .redraw import Redraw


@dataclass
class Choosing:
    redraw: Redraw
    picking: set[Seat] = field(default_factory=set)  # the seats whose cursor shows
    cursors: dict[Seat, int] = field(default_factory=dict)  # each seat's, table cells
    # The number each seat choosing its clue's number shows (a value of the
    # game's `clue_numbers`).
    numbering: dict[Seat, str] = field(default_factory=dict)

    def pick(self, seat: Seat, picks: bool = True) -> None:
        """`seat`'s cursor shows (`picks`), or goes."""
        if (seat in self.picking) is not picks:
            if picks:
                self.picking.add(seat)
            else:
                self.picking.discard(seat)
            self.redraw.moved()

    def keep_picking(self, may: Callable[[Seat], bool]) -> None:
        """Only the seats that `may` pick keep their cursors showing."""
        for seat in [s for s in self.picking if not may(s)]:
            self.pick(seat, False)

    def move(self, seat: Seat, cell: int) -> None:
        if self.cursors.get(seat) != cell:
            self.cursors[seat] = cell
            self.redraw.moved()

    def number(self, seat: Seat, value: str | None) -> None:
        """`seat` chooses its clue's number, now `value` (None: no longer)."""
        if self.numbering.get(seat) != value:
            if value is None:
                del self.numbering[seat]
            else:
                self.numbering[seat] = value
            self.redraw.moved()

    def no_numbers(self) -> None:
        """The clue awaited was given (or its turn ended): no number is chosen."""
        if self.numbering:
            self.numbering.clear()
            self.redraw.moved()

    def clear(self) -> None:
        """A new game: every seat's cursor back at its start, none shown."""
        if self.picking or self.cursors or self.numbering:
            self.picking.clear()
            self.cursors.clear()
            self.numbering.clear()
            self.redraw.moved()
