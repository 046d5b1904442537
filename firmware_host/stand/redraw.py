"""When the screens must be drawn again: one counter the stand's parts move where
they change something a screen shows, and whether the next frames want a full
refresh.

Each part of the stand (stand/*.py) owns its state and moves the counter in the
method that changes it, only when what a screen may show changed; the service
redraws when the counter moved since its last frames (`Service.redraw`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Redraw:
    """One stand's redraw counter, shared by its parts."""

    version: int = 0  # moves with every change a screen may show
    full: bool = True  # the next frames want a full refresh (the deal, the end)

    def moved(self, full: bool = False) -> None:
        """Something a screen shows changed (`full`: and wants a full refresh)."""
        self.version += 1
        self.full = self.full or full

    def drawn(self) -> None:
        """The service handed the frames of this version: the full refresh is done."""
        self.full = False
