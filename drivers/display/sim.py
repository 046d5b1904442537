"""The simulated panel: keeps its newest frames, writes PNGs, takes as long as the real one."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from .base import Panel, Refresh
from .timing import Timing


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
        keep: int = 32,
        remember: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(model_name, rotation=rotation)
        if keep < 1:
            raise ValueError(f"keep {keep!r}: expected 1 or more")
        if speed < 0:
            raise ValueError(f"speed {speed!r}: expected 0 or more")
        self.timing = timing or self.model.timing
        self.speed = speed
        self.keep = keep
        # E-ink keeps its picture without power: with `remember`, the panel saves
        # what it shows there and starts with it, as a real one would.
        self.remember = remember
        if remember is not None and remember.is_file():
            try:
                with Image.open(remember) as saved:
                    picture = saved.convert("1")
                if picture.size == self.size:
                    self._shown = picture
            except (OSError, ValueError):
                pass  # an unreadable picture: the panel starts white
        self._clock = clock
        self._wait = wait
        self._lock = threading.Lock()
        self.frames: list[Frame] = []
        self.counts: dict[Refresh, int] = dict.fromkeys(Refresh, 0)
        self.sleeps = 0

    @property
    def busy(self) -> bool:
        """Whether a refresh is in progress (the BUSY line of a real panel)."""
        return self.refreshing is not None

    def _display(self, frame: Image.Image, refresh: Refresh) -> None:
        woke = self.asleep
        started = self._clock()
        self._wait(self.timing.seconds(refresh) * self.speed)
        upright = frame.rotate(self.rotation, expand=True) if self.rotation else frame.copy()
        with self._lock:
            self.frames.append(Frame(upright, refresh, started, self._clock(), woke))
            del self.frames[: -self.keep]  # a long evening keeps a bounded history
            self.counts[refresh] += 1
        if self.remember is not None:
            try:
                tmp = self.remember.with_name(self.remember.name + ".tmp")
                upright.save(tmp, "PNG")
                tmp.replace(self.remember)
            except OSError:
                pass  # the picture is a nicety; the game is in the journal

    def _sleep(self) -> None:
        self.sleeps += 1

    def _close(self) -> None:
        pass

    def save_png(self, path: Path) -> Path:
        """Write what the panel shows now as a PNG (white if nothing yet)."""
        image = self.shown or Image.new("1", self.size, 1)
        image.save(path)
        return path
