"""What one frame costs on each panel model: SPI and GPIO writes (our HAL against
the vendor's stock path), bytes, the vendor's fixed delays, and so the seconds a
refresh keeps the panel busy on the virtual clock.

The vendor's model classes run unmodified over the HAL and the emulated
controller (the recording backend), which also checks the picture arrived.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from gpiozero.pins.mock import MockFactory
from PIL import Image

from keystand.drivers.display import MODELS as MODELS_BY_NAME
from keystand.drivers.display import TIMINGS, Refresh
from keystand.drivers.display.emulator import emulated_waveshare
from keystand.drivers.display.hal import SPI_HZ, PanelHal, StockPathHal, Wiring
from keystand.drivers.display.waveshare import RECIPES, WavesharePanel

MODELS = tuple(RECIPES)  # every model the Waveshare driver builds: one record each
WIRING = (Wiring(rst=17, dc=25, busy=24, pwr=18), Wiring(rst=5, dc=6, busy=13, spi_device=1))
KINDS = (Refresh.FULL, Refresh.PARTIAL, Refresh.FAST)


@dataclass(frozen=True)
class FrameCost:
    """One refresh kind on one model, through one HAL."""

    spi_writes: int
    gpio_writes: int
    spi_bytes: int
    delays: float  # seconds of the vendor's fixed delays (reset pulses)
    at_floor: bool  # one write per command byte and one per run of data bytes

    @property
    def wire(self) -> float:
        """Seconds the bytes take on the wire at the vendor's SPI clock."""
        return self.spi_bytes * 8 / SPI_HZ


def noise(size: tuple[int, int], seed: int) -> Image.Image:
    rnd = random.Random(seed)
    w, h = size
    return Image.frombytes("1", size, rnd.randbytes((w + 7) // 8 * h))


def frame_costs(
    model: str, hal_class: type[PanelHal], vendor_reset: bool = False
) -> dict[Refresh, FrameCost]:
    """Each refresh kind once (a full first: the panel wakes), counted from the
    recording backend and the HAL; the emulated glass must show each frame. The
    stock path (`StockPathHal`) is the vendor's all the way: its frame loops and
    its reset waits; `vendor_reset` keeps only the waits (the profile's fallback)."""
    stock = hal_class is StockPathHal
    factory = MockFactory()
    panel, hardware = emulated_waveshare(
        model,
        seat="A",
        wiring=WIRING[0],
        pin_factory=factory,
        speed=0,
        hal_class=hal_class,
        vendor_reset=vendor_reset or stock,
        whole_buffers=not stock,
    )
    costs: dict[Refresh, FrameCost] = {}
    try:
        for n, kind in enumerate(KINDS):
            before = (hardware.write_count, panel.hal.counts.gpio_writes)
            bytes_before, delays_before = panel.hal.counts.spi_bytes, panel.hal.counts.delays
            image = noise(panel.size, n)
            panel.display(image, kind)
            if panel.last_refresh is not kind or hardware.shown.tobytes() != image.tobytes():
                raise RuntimeError(f"{model} {kind.value}: the emulated glass shows another frame")
            writes = hardware.writes[before[0] :]
            floor = all(w.dc or len(w.data) == 1 for w in writes) and not any(
                a.dc and b.dc for a, b in itertools.pairwise(writes)
            )
            costs[kind] = FrameCost(
                spi_writes=hardware.write_count - before[0],
                gpio_writes=panel.hal.counts.gpio_writes - before[1],
                spi_bytes=panel.hal.counts.spi_bytes - bytes_before,
                delays=panel.hal.counts.delays - delays_before,
                at_floor=floor,
            )
    finally:
        panel.close()
        hardware.close()
        factory.reset()
    return costs


def seconds(model: str, costs: dict[Refresh, FrameCost]) -> dict[Refresh, float]:
    """Busy seconds per refresh kind on the virtual clock: the timing model's
    refresh, the vendor's fixed delays and the bytes on the wire."""
    timing = TIMINGS[model]
    return {k: timing.seconds(k) + costs[k].delays + costs[k].wire for k in KINDS}


class CountingSpi:
    """A recording SPI device that keeps only counts (cheap enough to time our own
    path through): BUSY answers the refresh command at once, as a panel at speed 0."""

    def __init__(self, factory: MockFactory, wiring: Wiring) -> None:
        self._dc = factory.pin(wiring.dc)
        self._busy = factory.pin(wiring.busy)
        self.writes = 0
        self.bytes = 0
        self.is_open = False

    def open(self) -> None:
        self.is_open = True

    def write(self, data: bytes) -> None:
        self.writes += 1
        self.bytes += len(data)
        if not self._dc.state and 0x20 in data:  # master activation: busy, then done
            self._busy.drive_high()
            self._busy.drive_low()

    def close(self) -> None:
        self.is_open = False


def counting_panels(
    model: str, factory: MockFactory, hal_class: type[PanelHal] = PanelHal
) -> list[WavesharePanel]:
    """Two real panels (vendor code, HAL) over counting SPI devices, mounted as the
    stand reads them (landscape)."""
    native = MODELS_BY_NAME[model]
    rotation = 90 if native.width < native.height else 0  # the long side across
    panels = []
    for seat, wiring in zip("AB", WIRING, strict=True):
        panels.append(
            WavesharePanel(
                model,
                seat=seat,
                wiring=wiring,
                rotation=rotation,
                pin_factory=factory,
                spi=CountingSpi(factory, wiring),
                delay=lambda seconds: None,
                hal_class=hal_class,
                vendor_reset=hal_class is StockPathHal,
                whole_buffers=hal_class is not StockPathHal,
            )
        )
    return panels
