"""How long each panel takes to refresh, from the vendor's figures.

The simulated panel waits this long (times a speed factor), so latency can be
measured on a desktop and the simulator page shows what players would wait.
"""

from __future__ import annotations

from dataclasses import dataclass

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


# Waveshare's wiki figures for each panel (full refresh / fast / partial), except
# the ones listed in ESTIMATED.
TIMINGS: dict[str, Timing] = {
    "epd2in13_V4": Timing(full=2.0, fast=2.0, partial=0.3),
    "epd2in7_V2": Timing(full=6.0, fast=1.5, partial=0.3),  # fast: an estimate (ESTIMATED)
    "epd2in9_V2": Timing(full=2.0, fast=2.0, partial=0.3),
    "epd4in2_V2": Timing(full=4.0, fast=1.5, partial=0.5),
}

# Figures Waveshare does not publish, estimated (model, refresh kind). The 2.7" V2's
# init_Fast picks the controller's fast waveform by writing a high temperature
# (0x1A), as the 4.2" V2's init_fast mode 0 does, whose published figure is 1.5 s.
ESTIMATED: frozenset[tuple[str, str]] = frozenset({("epd2in7_V2", "fast")})
