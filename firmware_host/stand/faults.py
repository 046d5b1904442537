"""What is wrong at the table, as the screens say it: the disk refused the last
input, an input device stopped answering, a seat's panel fails, or the journal
was damaged at start."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from ..rules import Seat
from .redraw import Redraw


class Repair(enum.Enum):
    """What start-up did with a damaged journal (both screens say it)."""

    RESUMED = "resumed"  # the game resumed from the records before the damage
    NEW_GAME = "new_game"  # nothing usable: a new game was dealt


@dataclass
class Faults:
    redraw: Redraw
    saving: str | None = None  # why the last accepted input could not be saved (not taken)
    inputs_lost: frozenset[str] = frozenset()  # input devices that stopped answering
    panels: dict[Seat, str] = field(default_factory=dict)  # panels failing, and how
    repaired: Repair | None = None  # the journal was damaged on start (until the next event)

    def cannot_save(self, why: str | None) -> None:
        """The disk refused (`why`), or took a write again (None)."""
        if why != self.saving:
            self.saving = why
            self.redraw.moved()

    def input(self, source: str, lost: bool) -> bool:
        """`source` stopped answering (`lost`) or answers again; True when the
        last lost one is back."""
        now_lost = self.inputs_lost | {source} if lost else self.inputs_lost - {source}
        if now_lost == self.inputs_lost:
            return False
        self.inputs_lost = now_lost
        self.redraw.moved()
        return not lost and not now_lost

    def panel(self, seat: Seat, fault: str | None) -> None:
        """`seat`'s panel fails (`fault` says how) or shows frames again (None)."""
        if self.panels.get(seat) != fault:
            if fault is None:
                del self.panels[seat]
            else:
                self.panels[seat] = fault
            self.redraw.moved()

    def repair(self, repaired: Repair | None) -> None:
        """What start-up repaired (None: the players have gone on from it)."""
        if repaired is not self.repaired:
            self.repaired = repaired
            self.redraw.moved()
