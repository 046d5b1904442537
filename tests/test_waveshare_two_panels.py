"""Two real panel drivers in one process, as on the stand: same model or mixed,
each on its own chip select and pins, refreshing at once from two threads."""

from __future__ import annotations

import random
import threading

import pytest
from PIL import Image

pytest.importorskip("gpiozero", reason="gpiozero is needed for the emulated panels")
from gpiozero.pins.mock import MockFactory

from keystand.drivers.display import Refresh
from keystand.drivers.display import waveshare as ws
from keystand.drivers.display.emulator import Fault, emulated_waveshare
from keystand.drivers.display.hal import PanelBusyStuck, PanelUnplugged, Wiring

try:
    ws.vendor_file("epd2in7_V2")
except ws.VendorMissing as missing:
    pytest.skip(f"{missing}", allow_module_level=True)

# Seat A on the HAT's own pins and CE0; seat B on CE1 and free GPIOs.
WIRING = {
    "A": Wiring(rst=17, dc=25, busy=24, pwr=18, spi_device=0),
    "B": Wiring(rst=5, dc=6, busy=13, pwr=26, spi_device=1),
}
PAIRS = [
    ("epd2in7_V2", "epd2in7_V2"),
    ("epd2in13_V4", "epd4in2_V2"),
    ("epd2in9_V2", "epd2in7_V2"),
]
SCRIPT = [Refresh.FULL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.FAST, Refresh.PARTIAL]


@pytest.fixture
def stand():
    """Makes emulated panels on one MockFactory; closes them afterwards."""
    factory = MockFactory()
    made = []

    def make(seat, model, **kwargs):
        kwargs.setdefault("speed", 0)
        panel, hardware = emulated_waveshare(
            model, seat=seat, wiring=WIRING[seat], pin_factory=factory, **kwargs
        )
        made.append((panel, hardware))
        return panel, hardware

    make.factory = factory
    yield make
    for panel, hardware in made:
        panel.close()
        hardware.close()
    factory.reset()


def noise(size, seed):
    rnd = random.Random(seed)
    return Image.frombytes("1", size, rnd.randbytes((size[0] + 7) // 8 * size[1]))


def run_script(panel, seed):
    for n, kind in enumerate(SCRIPT):
        panel.display(noise(panel.size, seed * 100 + n), kind)
    panel.sleep()


def solo_writes(model, seat, seed, rotation):
    """The writes one panel gets when it is alone in the process."""
    factory = MockFactory()
    panel, hardware = emulated_waveshare(
        model, seat=seat, wiring=WIRING[seat], pin_factory=factory, speed=0, rotation=rotation
    )
    try:
        run_script(panel, seed)
        return list(hardware.writes)
    finally:
        panel.close()
        hardware.close()
        factory.reset()


@pytest.mark.parametrize(("model_a", "model_b"), PAIRS)
def test_two_panels_refreshing_at_once_get_independent_byte_streams(
    stand, model_a, model_b
) -> None:
    # A small speed: BUSY is timed (timer threads), so the two refreshes overlap.
    a, hw_a = stand("A", model_a, rotation=90, speed=0.01)
    b, hw_b = stand("B", model_b, rotation=270, speed=0.01)
    failures = []

    def run(panel, seed):
        try:
            run_script(panel, seed)
        except Exception as error:  # reported below, with the seat
            failures.append((panel.seat, error))

    threads = [threading.Thread(target=run, args=(a, 1)), threading.Thread(target=run, args=(b, 2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    # Each panel received exactly what it receives alone: nothing of the other's.
    assert hw_a.writes == solo_writes(model_a, "A", 1, 90)
    assert hw_b.writes == solo_writes(model_b, "B", 2, 270)
    last_a = noise(a.size, 100 + len(SCRIPT) - 1)
    last_b = noise(b.size, 200 + len(SCRIPT) - 1)
    assert hw_a.shown.rotate(90, expand=True).tobytes() == last_a.tobytes()
    assert hw_b.shown.rotate(270, expand=True).tobytes() == last_b.tobytes()
    assert hw_a.violations == hw_b.violations == []


@pytest.mark.parametrize(("model_a", "model_b"), PAIRS)
def test_each_panel_has_its_own_pins_and_bus(stand, model_a, model_b) -> None:
    a, _ = stand("A", model_a)
    b, _ = stand("B", model_b)
    lines_a = set(a.hal.wiring.lines().values()) | {a.hal.CS_PIN}
    lines_b = set(b.hal.wiring.lines().values()) | {b.hal.CS_PIN}
    assert lines_a.isdisjoint(lines_b)
    assert (a.hal.wiring.device_path, b.hal.wiring.device_path) == (
        "/dev/spidev0.0",
        "/dev/spidev0.1",
    )
    assert a.module is not b.module and a.hal is not b.hal


@pytest.mark.parametrize(("model_a", "model_b"), PAIRS)
def test_one_panels_sleep_leaves_the_other_powered(stand, model_a, model_b) -> None:
    a, hw_a = stand("A", model_a)
    b, hw_b = stand("B", model_b)
    a.display(noise(a.size, 1), Refresh.FULL)
    b.display(noise(b.size, 2), Refresh.FULL)
    b_writes = hw_b.write_count
    a.sleep()
    assert not a.hal.powered and not hw_a.controller.powered
    assert b.hal.powered and b.hal.is_open and hw_b.controller.listening
    assert stand.factory.pin(26).state and stand.factory.pin(5).state  # B's PWR and RST
    assert hw_b.write_count == b_writes  # A's sleep sent nothing on B's bus
    # B carries on with a partial, no re-init needed (no software reset in it).
    before = hw_b.write_count
    image = noise(b.size, 3)
    b.display(image, Refresh.PARTIAL)
    assert b.last_refresh is Refresh.PARTIAL
    assert all(w.dc or w.data != b"\x12" for w in hw_b.writes[before:])
    assert hw_b.shown.tobytes() == image.tobytes()


def test_a_stuck_panel_fails_alone(stand) -> None:
    a, hw_a = stand("A", "epd2in7_V2", fault=Fault.BUSY_STUCK, busy_timeout=0.1)
    b, hw_b = stand("B", "epd2in7_V2")
    a.display(noise(a.size, 1), Refresh.FULL)  # the first refresh still works
    with pytest.raises(PanelBusyStuck, match=r"seat A \(epd2in7_V2\): BUSY on GPIO24") as caught:
        a.display(noise(a.size, 2), Refresh.PARTIAL)
    assert caught.value.pin == 24
    for n, kind in enumerate(SCRIPT):
        image = noise(b.size, 10 + n)
        b.display(image, kind)
        assert hw_b.shown.tobytes() == image.tobytes()
    # Still stuck on a retry (a reset does not free a hung BUSY line) ...
    with pytest.raises(PanelBusyStuck):
        a.display(noise(a.size, 3), Refresh.PARTIAL)
    # ... and used again once it answers: re-initialised, with a full refresh.
    hw_a.clear_fault()
    image = noise(a.size, 4)
    a.display(image, Refresh.PARTIAL)
    assert a.last_refresh is Refresh.FULL
    assert hw_a.shown.tobytes() == image.tobytes()


def test_an_unplugged_panel_fails_alone(stand) -> None:
    a, hw_a = stand("A", "epd4in2_V2")
    b, hw_b = stand("B", "epd2in9_V2", fault=Fault.UNPLUGGED, rise_timeout=0.05)
    with pytest.raises(PanelUnplugged, match=r"seat B \(epd2in9_V2\): BUSY on GPIO13 never"):
        b.display(noise(b.size, 1), Refresh.FULL)
    assert hw_b.write_count > 0 and len(hw_b.updates) == 0  # bytes sent, nothing drawn
    image = noise(a.size, 2)
    a.display(image, Refresh.FULL)
    assert hw_a.shown.tobytes() == image.tobytes()
    # Plugged back in: the next frame goes through.
    hw_b.fault = None
    image = noise(b.size, 3)
    b.display(image, Refresh.PARTIAL)
    assert b.last_refresh is Refresh.FULL and hw_b.shown.tobytes() == image.tobytes()
