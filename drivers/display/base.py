"""The panel interface every display driver shares (real or simulated).

`Panel.display()` is the one public entry: it takes an image drawn upright for
the reader, turns it by the mounting rotation, converts it to 1 bit once and
hands the driver's `_display()` an image of the controller's native size.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable

from PIL import Image

from keystand.errors import KeystandError
from keystand.panel_models import PANELS, PanelModel, model


class PanelError(KeystandError):
    """A panel that cannot show a frame: BUSY stuck, no answer (unplugged), bad size."""


class Refresh(enum.Enum):
    """How a panel redraws: full (flashes, clears ghosting), fast (a shorter full
    waveform, on panels that have one) or partial (no flash, ghosts build up)."""

    FULL = "full"
    FAST = "fast"
    PARTIAL = "partial"


# The panel models, one record each (keystand.panel_models): the drivers read
# their native frames, timings, reset waits and vendor recipes from there.
MODELS: dict[str, PanelModel] = PANELS


class Panel:
    """One e-paper panel. Subclasses implement `_display`, `_sleep` and `_close`.

    `rotation` is how the panel is mounted: the clockwise turn, in degrees,
    that takes the reader's upright image to the controller's native frame.
    """

    def __init__(self, model_name: str, *, rotation: int = 0) -> None:
        if rotation not in (0, 90, 180, 270):
            raise ValueError(f"rotation {rotation}: expected 0, 90, 180 or 270")
        self.model = model(model_name)
        self.rotation = rotation
        self.asleep = True  # a panel is asleep (powered down) until the first frame
        # What the panel shows, for whoever asks from another thread (the
        # simulator page): set once a refresh has finished, never mid-refresh.
        self._seen = threading.Lock()
        self._shown: Image.Image | None = None
        self._refreshing: Refresh | None = None
        self._frames_shown = 0
        self._last_refresh: Refresh | None = None
        # Told each upright image before the driver gets it (`--emulate` keeps
        # them as PNGs); called from the panel's worker thread.
        self.on_frame: Callable[[Image.Image], None] | None = None

    @property
    def size(self) -> tuple[int, int]:
        """The upright image size `display()` takes."""
        w, h = self.model.width, self.model.height
        return (w, h) if self.rotation in (0, 180) else (h, w)

    def native(self, image: Image.Image) -> Image.Image:
        """The upright image as the controller's 1-bit native frame."""
        if image.size != self.size:
            raise PanelError(
                f"{self.model.name} mounted at {self.rotation}°: image is "
                f"{image.size[0]}x{image.size[1]}, expected {self.size[0]}x{self.size[1]}"
            )
        frame = image.convert("1") if image.mode != "1" else image
        if self.rotation:
            # Image.rotate turns counter-clockwise; mounting is given clockwise.
            frame = frame.rotate(-self.rotation, expand=True)
        return frame

    def display(self, image: Image.Image, refresh: Refresh = Refresh.FULL) -> None:
        """Show `image` (upright, `self.size`); returns when the panel is done."""
        frame = self.native(image)
        if self.on_frame is not None:
            self.on_frame(image)
        with self._seen:
            self._refreshing = refresh
        try:
            done = self._display(frame, refresh) or refresh
        finally:
            with self._seen:
                self._refreshing = None
        self.asleep = False
        upright = frame.rotate(self.rotation, expand=True) if self.rotation else frame.copy()
        with self._seen:
            self._shown = upright
            self._frames_shown += 1
            self._last_refresh = done

    @property
    def shown(self) -> Image.Image | None:
        """What the panel shows now, upright and 1-bit (None before the first frame)."""
        with self._seen:
            return self._shown

    @property
    def refreshing(self) -> Refresh | None:
        """The refresh in progress, if any."""
        with self._seen:
            return self._refreshing

    @property
    def frames_shown(self) -> int:
        """How many frames the panel has finished showing (changes with the picture)."""
        with self._seen:
            return self._frames_shown

    @property
    def last_refresh(self) -> Refresh | None:
        """The kind of the last finished refresh (as done: a driver may upgrade a
        partial to a full one when it knows nothing of the picture on the glass)."""
        with self._seen:
            return self._last_refresh

    def sleep(self) -> None:
        """Power the panel down; it keeps its picture. The next display wakes it."""
        if not self.asleep:
            self._sleep()
            self.asleep = True

    def close(self) -> None:
        self._close()

    def _display(self, frame: Image.Image, refresh: Refresh) -> Refresh | None:
        """Show the native frame; return the kind actually done if not `refresh`."""
        raise NotImplementedError

    def _sleep(self) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        """Release the panel's pins and bus; nothing to do for most drivers."""
