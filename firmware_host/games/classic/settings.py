"""Classic's own settings: the turn timer's length (the rulebook's variant) and
whether the clue's number is chosen on the keys. Both act at once (the timer
times the turn in play; the numbers, the next clue).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules import Seat
from ..settings import Setting, Shown

# The turn timer's lengths the menu offers, in seconds (0: off, the default).
TIMER_CHOICES = (0, 60, 90, 120, 180, 240, 300)


@dataclass(frozen=True)
class TimerSetting(Setting[int]):
    """Off, 1:00, 1:30, 2:00, 3:00, 4:00, 5:00, then off again."""

    def next(self, value: int, seat: Seat, custom: bool) -> tuple[int, bool]:
        at = TIMER_CHOICES.index(value) if value in TIMER_CHOICES else -1
        return TIMER_CHOICES[(at + 1) % len(TIMER_CHOICES)], False

    def shown(self, value: int, seat: Seat) -> Shown:
        return Shown(text=f"{value // 60}:{value % 60:02d}") if value else Shown("timer_off")

    def loaded(self, data: Any) -> int:
        if type(data) is not int or data not in TIMER_CHOICES:
            raise ValueError(f"expected one of {TIMER_CHOICES}")
        return data


@dataclass(frozen=True)
class OnOffSetting(Setting[bool]):
    """On or off, shown as `<item>_on` / `<item>_off`."""

    def next(self, value: bool, seat: Seat, custom: bool) -> tuple[bool, bool]:
        return not value, False

    def shown(self, value: bool, seat: Seat) -> Shown:
        return Shown(f"{self.item}_{'on' if value else 'off'}")

    def loaded(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise ValueError("expected true or false")
        return data


TIMER = TimerSetting("timer", "timer", 0, next_game=False)  # seconds a turn may take
# A clue's number chosen on the keys before the clue (the rulebook's "Baum: 2");
# off, the clue key gives the clue in one press with no number, for a group that
# keeps the count itself.
NUMBERS = OnOffSetting("numbers", "numbers", True, next_game=False)
SETTINGS = (TIMER, NUMBERS)
