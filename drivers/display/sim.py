"""The simulated panel: keeps every frame, writes PNGs, takes as long as the real one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from .base import Panel, Refresh
from .timing import TIMINGS, Timing


@dataclass(frozen=True)
class Frame:
    """One refresh of a simulated panel: the native 1-bit frame, upright image, kind, times."""

    upright: Image.Image
    refresh: Refresh
    started: float
    finished: float
    woke: bool


class SimPanel(Panel):
    """A panel on the desktop. `speed` scales the timing model: 1.0 waits as long as
    the real panel, 0 not at all (tests); `keep` bounds how many frames are kept."""

    def __init__(
        self,
        model_name: str,
        *,
        rotation: int = 0,
        timing: Timing | None = None,
        speed: float = 1.0,
        keep: int = 1000,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(model_name, rotation=rotation)
        if speed < 0:
            raise ValueError(f"speed {speed!r}: expected 0 or more")
        self.timing = timing or TIMINGS[self.model.name]
        self.speed = speed
        self.keep = keep
        self._clock = clock
        self._wait = wait
        self._lock = threading.Lock()
        self.frames: list[Frame] = []
        self.counts: dict[Refresh, int] = dict.fromkeys(Refresh, 0)
        self.sleeps = 0
        self.busy = False
        self.refreshing: Refresh | None = None  # the refresh in progress, if any
        self._shown: Image.Image | None = None

    def _display(self, frame: Image.Image, refresh: Refresh) -> None:
        woke = self.asleep
        started = self._clock()
        self.busy, self.refreshing = True, refresh
        try:
            self._wait(self.timing.seconds(refresh) * self.speed)
        finally:
            self.busy, self.refreshing = False, None
        upright = frame.rotate(self.rotation, expand=True) if self.rotation else frame.copy()
        with self._lock:
            self._shown = upright
            self.frames.append(Frame(upright, refresh, started, self._clock(), woke))
            del self.frames[: -self.keep]
            self.counts[refresh] += 1

    def _sleep(self) -> None:
        self.sleeps += 1

    def _close(self) -> None:
        pass

    @property
    def shown(self) -> Image.Image | None:
        """What the panel shows now, upright (None before the first frame)."""
        with self._lock:
            return self._shown

    def save_png(self, path: Path) -> Path:
        """Write what the panel shows now as a PNG (white if nothing yet)."""
        image = self.shown or Image.new("1", self.size, 1)
        image.save(path)
        return path
