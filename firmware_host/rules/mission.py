"""Missions: how many timer tokens the bank holds and how many mistakes they allow."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import MissionError

_MISSION = re.compile(r"^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*$")
MAX_TURNS = 25


@dataclass(frozen=True)
class Mission:
    """A mission `T-M`: T timer tokens (turns), M of them bystander side up (mistakes).

    The standard game is 9-9; the rulebook offers 10-10 and 11-11 to make it
    easier, and the mission map names more (see NAMED).
    """

    turns: int
    mistakes: int

    def __post_init__(self) -> None:
        if not 1 <= self.turns <= MAX_TURNS:
            raise MissionError(f"{self.turns} turns, expected 1..{MAX_TURNS}", text=str(self))
        if not 0 <= self.mistakes <= self.turns:
            raise MissionError(
                f"{self.mistakes} mistakes, expected 0..{self.turns} (no more than the turns)",
                text=str(self),
            )

    @classmethod
    def parse(cls, text: str) -> Mission:
        """`T-M` (like 9-9 or 9-5), or the name of a mission the rulebooks give."""
        named = NAMED.get(text.strip().lower())
        if named:
            return named
        m = _MISSION.match(text)
        if not m:
            raise MissionError(
                "expected T-M, like 9-9 (9 turns, 9 mistakes), or a named mission: "
                + ", ".join(sorted(NAMED)),
                text=text,
            )
        return cls(int(m.group(1)), int(m.group(2)))

    @property
    def name(self) -> str | None:
        """The rulebook's name for this mission (`cairo` for 9-5), None for the
        standard game and for a mission of one's own."""
        if self == STANDARD:
            return None
        return next((n for n, m in NAMED.items() if m == self), None)

    def __str__(self) -> str:
        return f"{self.turns}-{self.mistakes}"

    def __repr__(self) -> str:
        return f"Mission({self.turns}, {self.mistakes})"


STANDARD = Mission(9, 9)
# The missions the rulebooks name with both numbers (docs/rules.md "The time bank").
NAMED: dict[str, Mission] = {
    "prague": STANDARD,
    "moscow": Mission(8, 8),
    "cairo": Mission(9, 5),
    "jakarta": Mission(7, 7),
    "bangkok": Mission(7, 7),
    "singapore": Mission(6, 6),
}
# The missions the menu steps through, in this order (then one's own T-M), and the
# order the campaign lists its missions won in.
PRESETS = (
    Mission(9, 9),
    Mission(10, 10),
    Mission(11, 11),
    NAMED["moscow"],
    NAMED["cairo"],
    NAMED["jakarta"],
    NAMED["singapore"],
)
