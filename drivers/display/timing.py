"""How long each panel takes to refresh, from the vendor's figures.

The simulated panel waits this long (times a speed factor), so latency can be
measured on a desktop and the simulator page shows what players would wait.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .base import Refresh


@dataclass(frozen=True)
class Timing:
    """Seconds per refresh kind. A panel with no fast waveform has fast == full."""

    full: float
    fast: float
    partial: float

    def seconds(self, refresh: Refresh) -> float:
        return {Refresh.FULL: self.full, Refresh.FAST: self.fast, Refresh.PARTIAL: self.partial}[
            refresh
        ]

    def with_overrides(self, **seconds: float) -> Timing:
        for name, value in seconds.items():
            if name not in ("full", "fast", "partial"):
                raise ValueError(f"timing {name!r}: expected full, fast or partial")
            if not 0 <= value <= 60:
                raise ValueError(f"timing {name}={value!r}: expected 0..60 seconds")
        return replace(self, **seconds)


# Waveshare's wiki figures for each panel (full refresh / fast / partial).
TIMINGS: dict[str, Timing] = {
    "epd2in13_V4": Timing(full=2.0, fast=2.0, partial=0.3),
    "epd2in7_V2": Timing(full=6.0, fast=6.0, partial=0.3),
    "epd2in9_V2": Timing(full=2.0, fast=2.0, partial=0.3),
    "epd4in2_V2": Timing(full=4.0, fast=1.5, partial=0.5),
}
