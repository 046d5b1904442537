"""A recipe is data for a vendor file whose inits take arguments and whose
partial refresh has an init of its own: the 2.66" (`epd2in66.py`, whose
`init(mode)` takes 0 for a full refresh and 1 for a partial one) as one
test-only record. The driver's byte stream for every refresh kind is the one the
unmodified vendor class sends when called by hand with the record's methods and
arguments.

The record is test-only: the 2.66"'s display() sets its X counter one byte in
and its Y counter on row 295 before writing RAM 0x24, which the emulator's
SSD1680 does not place on the glass, so only the byte streams are compared here
(the emulator records them and answers BUSY), not the picture. Nor does the
driver's own write of the old image (RAM 0x26, after the init) start where
display() starts: the emulator finds each partial's old image stale. A shipped
2.66" needs both placed first (docs/design.md, "Extension trials").
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from PIL import Image

pytest.importorskip("gpiozero", reason="gpiozero is needed for the emulated panels")
from gpiozero.pins.mock import MockFactory

from keystand import panel_models
from keystand.drivers.display import Refresh
from keystand.drivers.display import emulator as em
from keystand.drivers.display import waveshare as ws
from keystand.drivers.display.hal import Wiring
from keystand.panel_models import Call, PanelModel, Recipe, Timing

try:
    ws.vendor_file("epd2in7_V2")
except ws.VendorMissing as missing:
    pytest.skip(f"{missing}", allow_module_level=True)

# Waveshare's 2.66inch e-Paper Module: 152 x 296, an SSD1680. Its display() writes
# only RAM 0x24, so neither the full nor the fast method sets the old image.
EPD2IN66 = PanelModel(
    "epd2in66",
    152,
    296,
    '2.66"',
    (60.088, 30.704),
    "test-only: 296 and 152 pixels at 0.203 mm",
    Timing(full=3.0, fast=3.0, partial=0.5, source="test-only figures"),
    panel_models.DATASHEET_RESET,
    Recipe(
        "epd2in66",
        init=Call("init", (0,)),
        init_fast=Call("init", (0,)),
        full="display",
        full_sets_base=False,
        fast="display",
        fast_sets_base=False,
        partial="display",
        init_partial=Call("init", (1,)),
    ),
    controller="SSD1680",
)
OURS = Wiring(rst=17, dc=25, busy=24, pwr=18)
BY_HAND = Wiring(rst=5, dc=6, busy=13, spi_device=1)


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> PanelModel:
    """The 2.66" as a record the drivers and the emulator find, for this test."""
    monkeypatch.setitem(panel_models.PANELS, EPD2IN66.name, EPD2IN66)
    assert EPD2IN66.vendor is not None
    monkeypatch.setitem(ws.RECIPES, EPD2IN66.name, EPD2IN66.vendor)
    monkeypatch.setitem(em.CONTROLLERS, EPD2IN66.name, em.CHIPS["SSD1680"])
    return EPD2IN66


@pytest.fixture
def both(record: PanelModel):
    """The panel as keystand drives it, and a second one whose vendor object the
    test calls by hand, each over its own emulated controller."""
    pins = MockFactory()
    made = [
        em.emulated_waveshare(record.name, seat=seat, wiring=wiring, pin_factory=pins, speed=0)
        for seat, wiring in (("A", OURS), ("B", BY_HAND))
    ]
    yield made
    for panel, hardware in made:
        panel.close()
        hardware.close()
    pins.reset()


def noise(size: tuple[int, int], seed: int) -> Image.Image:
    rnd = random.Random(seed)
    return Image.frombytes("1", size, rnd.randbytes((size[0] + 7) // 8 * size[1]))


def stream(writes) -> list[tuple[bool, int]]:
    return [(w.dc, byte) for w in writes for byte in w.data]


def by_hand(epd, buffer: bytearray, kind: Refresh, first_partial: bool) -> None:
    """What the 2.66"'s file needs for each refresh kind, as its own demo calls it:
    init(0) and display for a full or fast refresh (RAM 0x26 written first, as
    display() does not), init(1) before the first partial after them."""
    if kind is Refresh.PARTIAL:
        if first_partial:
            epd.init(1)
    else:
        epd.init(0)
        epd.send_command(0x26)
        epd.send_data2(buffer)
    epd.display(buffer)


def test_each_refresh_kind_calls_the_vendor_with_the_records_arguments(both) -> None:
    (panel, hardware), (other, other_hw) = both
    inits: list[tuple[int, ...]] = []
    real_init: Callable[..., object] = panel.epd.init
    panel.epd.init = lambda *args: (inits.append(args), real_init(*args))[1]
    kinds = [Refresh.FULL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.FAST, Refresh.PARTIAL]
    for n, kind in enumerate(kinds):
        frame = noise(panel.size, seed=n)
        before, other_before = len(hardware.writes), len(other_hw.writes)
        panel.display(frame, kind)
        assert panel.last_refresh is kind
        by_hand(other.epd, ws.native_buffer(frame), kind, first_partial=n in (1, 4))
        other.hal.flush()
        ours = stream(hardware.writes[before:])
        assert ours == stream(other_hw.writes[other_before:]), f"frame {n}: {kind.value}"
        assert len(ours) > 2 * 19 * 296 if kind is not Refresh.PARTIAL else len(ours) > 19 * 296
    # Full, then partial mode once for two partials, fast, then partial mode again.
    assert inits == [(0,), (1,), (0,), (1,)]


def test_a_partial_after_sleep_wakes_with_the_partial_init(both) -> None:
    """After a power cut the partial init wakes the panel, the picture on the
    glass goes back into RAM 0x26 and only then the partial follows."""
    (panel, hardware), _ = both
    panel.display(noise(panel.size, seed=1), Refresh.FULL)
    glass = ws.native_buffer(noise(panel.size, seed=1))
    panel.sleep()
    before = len(hardware.writes)
    panel.display(noise(panel.size, seed=2), Refresh.PARTIAL)
    assert panel.last_refresh is Refresh.PARTIAL and panel.upgraded == 0
    sent = stream(hardware.writes[before:])
    lut = [(True, b) for b in panel.epd.WF_PARTIAL]  # init(1) loads the partial waveform
    old_image = [(False, 0x26), *((True, b) for b in glass)]
    at_lut = next(i for i in range(len(sent)) if sent[i : i + len(lut)] == lut)
    at_old = next(i for i in range(len(sent)) if sent[i : i + len(old_image)] == old_image)
    assert at_lut < at_old


def test_a_probe_without_a_probe_init_is_the_plain_init_with_its_arguments(both) -> None:
    (panel, _), _ = both
    calls: list[tuple[int, ...]] = []
    real_init: Callable[..., object] = panel.epd.init
    panel.epd.init = lambda *args: (calls.append(args), real_init(*args))[1]
    assert panel.probe() is False
    assert calls == [(0,)]
