"""The menus open on the stand, one a seat: each drawn on its seat's screen only,
stepped by its keys (menu.py says what each key does there)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from keystand.drivers.inputs import KeyName

from ..menu import Choice, Entry, Menu
from ..rules import Seat
from ..settings import Settings
from .redraw import Redraw


@dataclass
class OpenMenus:
    redraw: Redraw
    open: dict[Seat, Menu] = field(default_factory=dict)

    def __contains__(self, seat: Seat) -> bool:
        return seat in self.open

    def __getitem__(self, seat: Seat) -> Menu:
        return self.open[seat]

    def __len__(self) -> int:
        return len(self.open)

    def show(self, seat: Seat, items: tuple[Entry, ...]) -> None:
        """Open `seat`'s menu at its first entry."""
        self.open[seat] = Menu(seat, items=items)
        self.redraw.moved()

    def close(self, seat: Seat) -> None:
        if self.open.pop(seat, None) is not None:
            self.redraw.moved()

    def close_all(self) -> None:
        if self.open:
            self.open.clear()
            self.redraw.moved()

    def press(self, seat: Seat, key: KeyName, settings: Settings, unfinished: bool) -> Choice:
        """`key` in `seat`'s menu (`unfinished`: a game is in play)."""
        menu = self.open[seat]
        before = copy.copy(menu)
        choice = menu.press(key, settings, unfinished)
        if menu != before:
            self.redraw.moved()
        return choice

    def page(
        self,
        seat: Seat,
        history: list[dict[str, Any]] | None = None,
        record: dict[str, Any] | None = None,
    ) -> None:
        """`seat`'s menu shows the finished games or the game's record (read once,
        not at every redraw)."""
        menu = self.open[seat]
        menu.history, menu.record = history, record
        self.redraw.moved()
