"""The turn timer (a game that has one, as classic): how long the turn in play has
left, by the service's clock, and the coarse step the screens draw it at.

No clock of its own and no game to end: the stand runs it at each tick and input
and, when it has run out, ends the turn with the game's own timeout event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import games


@dataclass
class TurnTimer:
    """One stand's turn timer. Two timers look the same on a screen when they
    draw the same step: the seconds left change more often than the screens."""

    step: int | None = None  # what the screens draw (None: no timer running)
    left: int | None = field(default=None, compare=False)  # seconds left on the turn
    started: float | None = field(default=None, compare=False)  # when its clock started
    turn: object = field(default=None, compare=False)  # the turn it runs for

    def arm(self, length: int, game: games.Game | None) -> None:
        """A new game (or a restart) of `game` (None: no timer): the screens show the
        full `length`, and the clock starts at the next `run`."""
        self.turn = self.started = None
        self.left = length if game is not None else None
        self.step = game.timer_step(length) if game is not None else None

    def armed(self, length: int) -> bool:
        """Showing the full `length`, its clock not started: `arm` would change nothing."""
        return self.started is None and self.turn is None and self.left == length

    @property
    def stopped(self) -> bool:
        """No timer: `stop` would change nothing."""
        return (self.step, self.left, self.started, self.turn) == (None, None, None, None)

    def stop(self) -> None:
        """No timer: the game has none, it is off, or the game is over."""
        self.step = self.left = self.started = self.turn = None

    def run(self, now: float, length: int, turn: object) -> bool:
        """Count `turn` down from `length` seconds (a new turn starts the clock again);
        True if it has run out."""
        if self.started is None or turn != self.turn:
            self.turn, self.started = turn, now
        self.left = max(0, math.ceil(length - (now - self.started)))
        return self.left == 0

    def show(self, game: games.Game) -> None:
        """Draw the seconds left at `game`'s step for them."""
        self.step = None if self.left is None else game.timer_step(self.left)
