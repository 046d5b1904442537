"""Duet's own settings: the mission, the clue order, who gives the first clue
(the menu's entries, settings.json's keys, `keystand play`'s and `render`'s
options). Each is fixed at a game's start, so a choice made during a game waits
for the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules import Mission, Seat
from ...rules.mission import MAX_TURNS, PRESETS, STANDARD
from ..settings import Setting, Shown


@dataclass(frozen=True)
class MissionSetting(Setting[Mission]):
    """9-9, 10-10, 11-11, the named missions, then any T-M set on the keys (turns,
    then mistakes), then 9-9 again."""

    def next(self, value: Mission, seat: Seat, custom: bool) -> tuple[Mission, bool]:
        if custom or value not in PRESETS:
            return PRESETS[0], False
        if value == PRESETS[-1]:
            return value, True  # the keys set its numbers now
        return PRESETS[PRESETS.index(value) + 1], False

    def nudge(self, value: Mission, field: str, step: int) -> Mission:
        turns, mistakes = value.turns, value.mistakes
        if field == "turns":
            turns = min(max(turns + step, 1), MAX_TURNS)
            return Mission(turns, min(mistakes, turns))
        return Mission(turns, min(max(mistakes + step, 0), turns))

    def shown(self, value: Mission, seat: Seat) -> Shown:
        return Shown(named=(value.name, str(value)))

    def saved(self, value: Mission) -> str:
        return str(value)

    def loaded(self, data: Any) -> Mission:
        return Mission.parse(str(data))


@dataclass(frozen=True)
class OrderSetting(Setting[bool]):
    """Strict (the clue givers alternate) or loose (a seat may give two in a row)."""

    def next(self, value: bool, seat: Seat, custom: bool) -> tuple[bool, bool]:
        return not value, False

    def shown(self, value: bool, seat: Seat) -> Shown:
        return Shown("loose" if value else "strict")

    def loaded(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise ValueError(f"{data!r}: expected true or false")
        return data


@dataclass(frozen=True)
class FirstSetting(Setting[Seat | None]):
    """Who gives the first clue: either (the rulebook), this seat, the partner."""

    def next(self, value: Seat | None, seat: Seat, custom: bool) -> tuple[Seat | None, bool]:
        cycle = [None, seat, seat.partner]
        return cycle[(cycle.index(value) + 1) % 3], False

    def shown(self, value: Seat | None, seat: Seat) -> Shown:
        return Shown(f"first_{'either' if value is None else 'me' if value is seat else 'partner'}")

    def saved(self, value: Seat | None) -> str | None:
        return value.value if value else None

    def loaded(self, data: Any) -> Seat | None:
        if data not in (None, "A", "B"):
            raise ValueError(f"{data!r}: expected A, B or null")
        return Seat(data) if data else None

    def parse(self, text: str | bool) -> Seat | None:
        return Seat.parse(str(text))


MISSION = MissionSetting(
    "mission",
    "mission",
    STANDARD,
    flag="--mission",
    meta="T-M",
    help="Duet: T turns, M mistakes (default 9-9)",
    fields=("turns", "mistakes"),
    config_doc="T-M (9-9, 9-5...) or a named mission",
)
ORDER = OrderSetting(
    "order", "loose_order", False, flag="--loose-order", help="a seat may give two clues in a row"
)
FIRST = FirstSetting(
    "first_clue",
    "first",
    None,
    flag="--first",
    meta="A|B",
    help="only this seat may give the first clue",
)
SETTINGS = (MISSION, ORDER, FIRST)
