"""The menu's choices on disk (settings.json): read at start, saved at each change;
a choice the disk refuses holds for this run, its seat's screen says so, and it is
tried again until it is saved."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from ..journal import JournalError
from ..rules import Seat
from ..settings import Settings, Unsaved
from ..store import Store
from .redraw import Redraw

log = logging.getLogger(__name__)


@dataclass
class SavedSettings:
    store: Store
    redraw: Redraw
    unsaved: Unsaved = field(default_factory=Unsaved)

    @property
    def seats(self) -> set[Seat | None]:
        """The seats whose screens say their settings are not saved (None: a
        start-up choice)."""
        return self.unsaved.seats

    def load(self, settings: Settings) -> Settings | None:
        """`settings` with the saved choices, each checked (a bad one keeps its
        default); None if nothing usable is saved."""
        try:
            data = self.store.load_settings()
        except JournalError as e:
            self._set_aside(e, settings)
            return None
        return None if data is None else settings.loaded(data)

    def _set_aside(self, damage: JournalError, defaults: Settings) -> None:
        try:
            kept = self.store.set_aside_settings()
        except OSError as copy_failed:  # the disk refuses: say so, the run goes on
            log.warning("%s; no copy could be kept: %s", damage, copy_failed)
            return
        # Not a file (a FIFO, a folder): nothing to copy, saved over.
        log.warning("%s%s", damage, f"; the file is kept as {kept.name}" if kept else "")
        # The defaults in its place: the next start finds them, not the same damage
        # to copy again (a big file would fill the card start by start).
        if kept is not None:
            self.save(defaults, None)

    def save(self, settings: Settings, seat: Seat | None, now: float | None = None) -> bool:
        """Save a choice of `seat` (None: a start-up choice); refused, `seat`'s
        screen says so until a retry saves it."""
        saved = self.retry(settings, now)
        if not saved and seat not in self.unsaved.seats:
            self.unsaved.seats.add(seat)
            self.redraw.moved()
        return saved

    def due(self, now: float) -> bool:
        return self.unsaved.due(now)

    def retry(self, settings: Settings, now: float | None) -> bool:
        """Save `settings` (the choices refused before among them); False (and
        logged once) if the disk refuses."""
        had = bool(self.unsaved.seats)
        try:
            self.store.save_settings(settings.saved())
        except OSError as e:  # the choice holds for this run; the log says why not after
            return self.unsaved.tried(now, e)
        saved = self.unsaved.tried(now, None)
        if had:
            self.redraw.moved()  # the screens' "not saved" goes
        return saved
