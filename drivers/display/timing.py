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

    @property
    def fast_is_quicker(self) -> bool:
        """The panel has a fast full-screen waveform worth drawing a full frame with."""
        return self.fast < self.full

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


# Seconds to wait around a hardware reset before the controller's BUSY line takes
# over (`PanelHal.reset_wait`): the vendor's files wait fixed times (20 + 2 + 20 ms
# on the 2.13" V4, 50 on the 2.9" V2, 100 on the 4.2" V2, 200 on the 2.7" V2, the
# last before every partial refresh), far past what their controllers ask.
# All four are Solomon Systech SSD16xx controllers: the SSD1680 (2.13" V4, 2.7" V2,
# 2.9" V2; SSD1680 Rev 0.14, Jun 2019) and the SSD1683 (4.2" V2; Rev 1.0, Jan
# 2021). RES# needs a low pulse of at least 10 us (the vendor's 2 ms pulse is kept)
# and at least 10 ms at power-on; after it the controller holds BUSY high until it
# is ready, and the host waits for BUSY low before the next command. (The figures
# as summarised in RichAyotte/russignol, libs/epd-2in13-v4/docs/
# SSD1680_datasheet_notes.md; Waveshare's own 2.13" V4 file resets the same SSD1680
# in 20 + 2 + 20 ms.) 20 ms, then BUSY, keeps every figure with room to spare;
# `[panels] vendor_reset = true` restores the vendor's waits for a panel that
# misbehaves.
RESET_WAIT: dict[str, float] = {
    "epd2in13_V4": 0.02,
    "epd2in7_V2": 0.02,
    "epd2in9_V2": 0.02,
    "epd4in2_V2": 0.02,
}
