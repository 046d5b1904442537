"""Real panels on a Raspberry Pi: opt-in with KEYSTAND_HW=1.

KEYSTAND_HW_PANELS lists the panels wired to this Pi, space-separated, each
`SEAT:MODEL:RST,DC,BUSY[,PWR]:CE` (BCM GPIO numbers, CE 0 or 1). Default: one
2.7" V2 HAT on the header, `A:epd2in7_V2:17,25,24,18:0`. Watch the panels: each
test draws a pattern; the assertions check what the host can see (BUSY
answered, the same writes as the emulated panel got for the same frames).
"""

from __future__ import annotations

import os
import threading

import pytest
from PIL import Image, ImageDraw

if os.environ.get("KEYSTAND_HW") != "1":
    pytest.skip(
        "real-hardware test: set KEYSTAND_HW=1 on a Pi with the panels wired "
        '(and KEYSTAND_HW_PANELS if not one 2.7" V2 HAT on the header)',
        allow_module_level=True,
    )

from gpiozero.pins.mock import MockFactory

from keystand.drivers.display import Refresh
from keystand.drivers.display.emulator import emulated_waveshare
from keystand.drivers.display.hal import Wiring
from keystand.drivers.display.waveshare import WavesharePanel


def configured() -> list[tuple[str, str, Wiring]]:
    panels = []
    for spec in os.environ.get("KEYSTAND_HW_PANELS", "A:epd2in7_V2:17,25,24,18:0").split():
        try:
            seat, model, pins, ce = spec.split(":")
            numbers = [int(p) for p in pins.split(",")]
            rst, dc, busy, *pwr = numbers
            wiring = Wiring(rst, dc, busy, pwr=pwr[0] if pwr else None, spi_device=int(ce))
        except ValueError as error:
            raise ValueError(
                f"KEYSTAND_HW_PANELS entry {spec!r}: expected SEAT:MODEL:RST,DC,BUSY[,PWR]:CE "
                f"({error})"
            ) from error
        panels.append((seat, model, wiring))
    return panels


PANELS = configured()


def pattern(size, n) -> Image.Image:
    image = Image.new("1", size, 1)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0] - 1, size[1] - 1), outline=0, width=3)
    draw.text((10, 10), f"keystand hw test {n}", fill=0)
    draw.rectangle((10, 30, 10 + 20 * (n + 1), 50), fill=0)  # grows each frame
    return image


STEPS = [Refresh.FULL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.FAST, Refresh.PARTIAL]


def writes_per_step(panel, steps) -> list[int]:
    counts = []
    for n, kind in enumerate(steps):
        before = panel.hal.counts.spi_writes
        panel.display(pattern(panel.size, n), kind)
        counts.append(panel.hal.counts.spi_writes - before)
    return counts


@pytest.mark.parametrize(("seat", "model", "wiring"), PANELS, ids=[p[0] for p in PANELS])
def test_a_real_panel_draws_every_refresh_kind(seat, model, wiring) -> None:
    panel = WavesharePanel(model, seat=seat, wiring=wiring)
    try:
        real = writes_per_step(panel, STEPS)
        assert [panel.counts[kind] for kind in Refresh] == [STEPS.count(kind) for kind in Refresh]
        panel.sleep()
        assert not panel.hal.powered or wiring.pwr is None
    finally:
        panel.close()
    factory = MockFactory()
    twin, hardware = emulated_waveshare(
        model, seat=seat, wiring=wiring, pin_factory=factory, speed=0
    )
    try:
        assert writes_per_step(twin, STEPS) == real  # the emulator sees what the panel got
    finally:
        twin.close()
        hardware.close()


@pytest.mark.parametrize(("seat", "model", "wiring"), PANELS, ids=[p[0] for p in PANELS])
def test_a_real_panel_answers_a_probe(seat, model, wiring) -> None:
    panel = WavesharePanel(model, seat=seat, wiring=wiring)
    try:
        checked = panel.probe()  # raises PanelUnplugged if BUSY never answers
        assert checked or model == "epd2in9_V2"
    finally:
        panel.close()


@pytest.mark.skipif(len(PANELS) < 2, reason="one panel configured in KEYSTAND_HW_PANELS")
def test_two_real_panels_refresh_at_once() -> None:
    panels = [WavesharePanel(model, seat=seat, wiring=w) for seat, model, w in PANELS[:2]]
    failures = []

    def run(panel) -> None:
        try:
            writes_per_step(panel, STEPS)
            panel.sleep()
        except Exception as error:  # reported with the seat below
            failures.append((panel.seat, error))

    try:
        threads = [threading.Thread(target=run, args=(p,)) for p in panels]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert failures == []
    finally:
        for panel in panels:
            panel.close()
