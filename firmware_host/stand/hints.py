"""What the screens say for a few seconds: a seat's hint (a key that does nothing
now says what would) and the rules' refusal of the last input."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules import Seat
from .redraw import Redraw

SHOWN = 4.0  # seconds a hint or a refusal stays on the screens
# Seconds the partner's screen says one seat left the game for a new one (unless
# the new game's first input comes sooner): long enough to be seen by a player
# who looked away, as the board it was playing has gone.
LEFT_SHOWN = 30.0
LEFT = "partner_new_game"  # the hint that stays LEFT_SHOWN


@dataclass
class Hints:
    """Each seat's hint (a word of the screens' hint table) and since when."""

    redraw: Redraw
    said: dict[Seat, tuple[str, float]] = field(default_factory=dict)

    def of(self, seat: Seat) -> str | None:
        return self.said[seat][0] if seat in self.said else None

    def say(self, seats: tuple[Seat, ...], key: str, now: float) -> None:
        for seat in seats:
            if self.said.get(seat) != (key, now):
                self.said[seat] = (key, now)
                self.redraw.moved()

    def drop(self, seat: Seat) -> None:
        if self.said.pop(seat, None) is not None:
            self.redraw.moved()

    def clear(self) -> None:
        if self.said:
            self.said.clear()
            self.redraw.moved()

    def lapse(self, now: float) -> None:
        """The hints shown long enough go."""
        for seat, (hint, at) in list(self.said.items()):
            if now - at >= (LEFT_SHOWN if hint == LEFT else SHOWN):
                self.drop(seat)


@dataclass
class Refusal:
    """Whether the screens show the rules' refusal of the last input (for `SHOWN`
    seconds; a refused touch of the clue giver's hand not at all), or are back on
    the last accepted outcome."""

    redraw: Redraw
    shown: bool = True
    at: float | None = None  # when the refusal on the screens came

    def came(self, now: float, hidden: bool) -> None:
        """A refusal at `now` (`hidden`: the giver's hand, not shown)."""
        self._set(not hidden, None if hidden else now)

    def accepted(self) -> None:
        """An accepted input: its outcome is what the screens show."""
        self._set(True, None)

    def lapse(self, now: float) -> None:
        if self.at is not None and now - self.at >= SHOWN:
            self._set(False, None)

    def _set(self, shown: bool, at: float | None) -> None:
        if (shown, at) != (self.shown, self.at):
            self.shown, self.at = shown, at
            self.redraw.moved()
