"""Calibrating the touch grid: the next touch, seat A's top-left word wherever the
mat lies, sets the grid's orientation, which is saved before it is used."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from keystand.drivers.inputs import Touch

from ..rules import Seat
from .redraw import Redraw

if TYPE_CHECKING:  # a grid's only: a keys-only build never loads the touch filter
    from keystand.drivers.inputs.touchfilter import Orientation


@dataclass
class Calibration:
    """The grid's orientation on the table (None: no grid) and whether the next
    touch sets it."""

    redraw: Redraw
    grid: Orientation | None = None
    # Tells the grid (and saves) the orientation a calibration touch sets; raises
    # OSError when it cannot be saved.
    on_calibrated: Callable[[Orientation], None] | None = None
    asking: Seat | None = None  # whose top-left word the screens ask for

    def attach(self, grid: Orientation, on_calibrated: Callable[[Orientation], None]) -> None:
        """A stand with a grid lying `grid`'s way; `on_calibrated` saves a new one."""
        self.grid, self.on_calibrated = grid, on_calibrated

    def start(self) -> None:
        self._ask(Seat.A)  # the screens ask for seat A's top-left word

    def cancel(self) -> None:
        self._ask(None)  # the grid as it was

    def touch(self, touch: Touch) -> bool:
        """The touch asked for; True if it set the orientation. Any corner will do
        (the mat may lie any of four ways); another cell is not a corner (False:
        asked again). OSError: the orientation could not be saved (not used)."""
        assert self.asking is not None and self.grid is not None
        try:
            new = self.grid.calibrated((touch.row, touch.col))
        except ValueError:
            return False
        if self.on_calibrated is not None:
            self.on_calibrated(new)
        self.grid, self.asking = new, None
        self.redraw.moved()  # the question goes
        return True

    def _ask(self, seat: Seat | None) -> None:
        if seat is not self.asking:
            self.asking = seat
            self.redraw.moved()
