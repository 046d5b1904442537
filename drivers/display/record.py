"""Each image handed to a panel's driver, kept as a numbered PNG (`--emulate DIR`).

`DIR/SEAT-0001.png`, `DIR/SEAT-0002.png`, ...: upright, as the seat reads it, in
the order the panel got them. Other tools compare them with what the emulated
controller decoded from the transfer log (`SEAT.spi`). Numbering starts at 0001:
`keystand run --emulate` removes an earlier run's files from DIR first.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PIL import Image


class FrameFiles:
    """Writes `folder/SEAT-NNNN.png` for each image it is called with."""

    def __init__(self, folder: Path, seat: str) -> None:
        self.folder = folder
        self.seat = seat
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, image: Image.Image) -> None:
        with self._lock:
            self.count += 1
            number = self.count
        image.convert("1").save(self.folder / f"{self.seat}-{number:04d}.png")

    def paths(self) -> list[Path]:
        return sorted(self.folder.glob(f"{self.seat}-[0-9][0-9][0-9][0-9].png"))
