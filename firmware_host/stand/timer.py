"""The turn timer (a game that has one, as classic): how long the turn in play has
left, by the service's clock, and the coarse step the screens draw it at.

No clock of its own and no game to end: the stand runs it at each tick and input
and, when it has run out, ends the turn with the game's own timeout event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import games
from .redraw import Redraw

# Turns the timer may end in a row with no input at the table: one each, then the
# table is taken for empty (a turn's timeout is the timer's, not the players').
IDLE_TIMEOUTS = 2


@dataclass
class TurnTimer:
    """One stand's turn timer. The screens draw its `step`: the seconds left
    change more often than the screens do."""

    redraw: Redraw
    step: int | None = None  # what the screens draw (None: no timer running)
    left: int | None = None  # seconds left on the turn
    started: float | None = None  # when its clock started
    turn: object = None  # the turn it runs for
    # Turns it ended with no input at the table since: at IDLE_TIMEOUTS (each
    # team's turn run out, nobody there) it waits, showing a full turn, for the
    # next input, so a table left alone settles and its panels sleep.
    idle_timeouts: int = 0

    @property
    def idle(self) -> bool:
        """Whether the table is taken for empty: the timer waits for an input."""
        return self.idle_timeouts >= IDLE_TIMEOUTS

    def arm(self, length: int, game: games.Game | None) -> None:
        """A new game (or a restart) of `game` (None: no timer): the screens show the
        full `length`, and the clock starts at the next `run`."""
        self.turn = self.started = None
        self.left = length if game is not None else None
        self._draw(game.timer_step(length) if game is not None else None)

    def armed(self, length: int) -> bool:
        """Showing the full `length`, its clock not started: `arm` would change nothing."""
        return self.started is None and self.turn is None and self.left == length

    @property
    def stopped(self) -> bool:
        """No timer: `stop` would change nothing."""
        return (self.step, self.left, self.started, self.turn) == (None, None, None, None)

    def stop(self) -> None:
        """No timer: the game has none, it is off, or the game is over."""
        self.left = self.started = self.turn = None
        self._draw(None)

    def run(self, now: float, length: int, turn: object) -> bool:
        """Count `turn` down from `length` seconds (a new turn starts the clock again);
        True if it has run out."""
        if self.started is None or turn != self.turn:
            self.turn, self.started = turn, now
        self.left = max(0, math.ceil(length - (now - self.started)))
        return self.left == 0

    def show(self, game: games.Game) -> None:
        """Draw the seconds left at `game`'s step for them."""
        self._draw(None if self.left is None else game.timer_step(self.left))

    def _draw(self, step: int | None) -> None:
        if step != self.step:
            self.step = step
            self.redraw.moved()
