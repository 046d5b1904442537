"""The per-panel HAL: one write per data run, BUSY that ends, pins of its own.

The HAL is driven here the way the vendor's send_command/send_data/ReadBusy
drive it, over gpiozero's MockFactory and a recording SPI device.
"""

from __future__ import annotations

import ast
import threading

import pytest

pytest.importorskip("gpiozero", reason="gpiozero is needed for the HAL's pins")
from gpiozero.pins.mock import MockFactory

from keystand.drivers.display import PanelError
from keystand.drivers.display import waveshare as ws
from keystand.drivers.display.hal import (
    PanelBusError,
    PanelBusyStuck,
    PanelGpioError,
    PanelHal,
    PanelUnplugged,
    PanelWiringError,
    SpidevBus,
    Wiring,
)
from keystand.drivers.display.waveshare import RECIPES

HAT = Wiring(rst=17, dc=25, busy=24, pwr=18)
SECOND = Wiring(rst=5, dc=6, busy=13, pwr=26, spi_device=1)


class RecordingSpi:
    """An SPI device that keeps each write, and can answer a write (as a panel's
    controller raises BUSY when it gets the refresh command)."""

    def __init__(self, on_write=None) -> None:
        self.writes: list[bytes] = []
        self.is_open = False
        self.on_write = on_write

    def open(self) -> None:
        self.is_open = True

    def write(self, data: bytes) -> None:
        assert self.is_open
        self.writes.append(data)
        if self.on_write:
            self.on_write(data)

    def close(self) -> None:
        self.is_open = False


@pytest.fixture
def factory():
    pins = MockFactory()
    yield pins
    pins.reset()


def make_hal(factory, wiring=HAT, spi=None, **kwargs) -> PanelHal:
    hal = PanelHal(
        "A",
        "epd2in7_V2",
        wiring,
        spi if spi is not None else RecordingSpi(),
        pin_factory=factory,
        delay=lambda seconds: None,
        **kwargs,
    )
    hal.module_init()
    return hal


def send_command(hal, byte) -> None:
    """The vendor's send_command, as every model file has it."""
    hal.digital_write(hal.DC_PIN, 0)
    hal.digital_write(hal.CS_PIN, 0)
    hal.spi_writebyte([byte])
    hal.digital_write(hal.CS_PIN, 1)


def send_data(hal, byte) -> None:
    hal.digital_write(hal.DC_PIN, 1)
    hal.digital_write(hal.CS_PIN, 0)
    hal.spi_writebyte([byte])
    hal.digital_write(hal.CS_PIN, 1)


def test_a_run_of_data_bytes_is_one_write(factory) -> None:
    spi = RecordingSpi()
    hal = make_hal(factory, spi=spi)
    send_command(hal, 0x24)
    for byte in range(200):
        send_data(hal, byte)
    send_command(hal, 0x22)
    send_data(hal, 0xF7)
    hal.spi_writebyte2([1, 2, 3])  # send_data2 inside the same run (DC still high)
    hal.delay_ms(10)  # a delay sends what is buffered
    assert spi.writes == [b"\x24", bytes(range(200)), b"\x22", b"\xf7\x01\x02\x03"]
    assert hal.counts.vendor_calls == 204  # one per send_data byte, one per list
    assert hal.counts.by_kind == {"command": 2, "data": 2}
    # DC changed four times; the stock HAL writes DC and CS around every byte.
    assert hal.counts.gpio_writes == 4


@pytest.mark.parametrize(
    "flush",
    [
        lambda hal: hal.digital_read(hal.BUSY_PIN),
        lambda hal: hal.digital_write(hal.RST_PIN, 0),
        lambda hal: hal.module_exit(),
        lambda hal: hal.flush(),
    ],
    ids=["busy read", "reset", "module_exit", "flush"],
)
def test_buffered_data_goes_out_before_anything_else_happens(factory, flush) -> None:
    spi = RecordingSpi()
    hal = make_hal(factory, spi=spi)
    send_command(hal, 0x4E)
    send_data(hal, 0x00)
    assert spi.writes == [b"\x4e"]
    flush(hal)
    assert spi.writes == [b"\x4e", b"\x00"]


def test_data_bytes_out_of_range_are_a_panel_error(factory) -> None:
    hal = make_hal(factory)
    hal.digital_write(hal.DC_PIN, 1)
    with pytest.raises(PanelError, match=r"data bytes must be 0\.\.255"):
        hal.spi_writebyte([256])


def test_busy_stuck_high_times_out_naming_seat_model_and_pin(factory) -> None:
    hal = make_hal(factory, busy_timeout=0.05)
    factory.pin(24).drive_high()
    with pytest.raises(PanelBusyStuck) as caught:
        hal.digital_read(hal.BUSY_PIN)
    error = caught.value
    assert (error.seat, error.model, error.pin) == ("A", "epd2in7_V2", 24)
    assert "seat A (epd2in7_V2): BUSY on GPIO24 stayed high" in str(error)
    assert isinstance(error, PanelError) and isinstance(error, TimeoutError)


def test_a_refresh_command_nobody_answers_is_an_unplugged_panel(factory) -> None:
    hal = make_hal(factory, wiring=SECOND, rise_timeout=0.05)
    send_command(hal, 0x22)
    send_data(hal, 0xF7)
    send_command(hal, 0x20)
    with pytest.raises(PanelUnplugged) as caught:
        hal.digital_read(hal.BUSY_PIN)
    error = caught.value
    assert (error.seat, error.pin) == ("A", 13)
    assert "never went high" in str(error) and "/dev/spidev0.1, CS on GPIO7" in str(error)
    assert isinstance(error, ConnectionError)


def test_a_busy_pulse_shorter_than_any_poll_is_still_seen(factory) -> None:
    """The controller raises and drops BUSY before the host reads it: the edge is
    latched, so this is a panel that answered, not an unplugged one."""
    busy = factory.pin(24)

    def answer(data: bytes) -> None:
        if data == b"\x20":
            busy.drive_high()
            busy.drive_low()

    hal = make_hal(factory, spi=RecordingSpi(on_write=answer), rise_timeout=0.05)
    send_command(hal, 0x20)
    assert hal.digital_read(hal.BUSY_PIN) == 0


def test_busy_released_from_another_thread_ends_the_wait(factory) -> None:
    busy = factory.pin(24)

    def answer(data: bytes) -> None:
        if data == b"\x20":
            busy.drive_high()
            threading.Timer(0.05, busy.drive_low).start()

    hal = make_hal(factory, spi=RecordingSpi(on_write=answer), busy_timeout=5)
    send_command(hal, 0x20)
    assert hal.digital_read(hal.BUSY_PIN) == 0
    assert not busy.state


def test_module_exit_drops_only_this_panels_lines(factory) -> None:
    a_spi, b_spi = RecordingSpi(), RecordingSpi()
    a = make_hal(factory, spi=a_spi)
    b = make_hal(factory, wiring=SECOND, spi=b_spi)
    for hal in (a, b):
        hal.digital_write(hal.RST_PIN, 1)
    a.module_exit()
    assert not a.powered and not a_spi.is_open
    assert [factory.pin(n).state for n in (17, 25, 18)] == [False, False, False]
    assert b.powered and b_spi.is_open
    assert factory.pin(26).state and factory.pin(5).state


def test_a_pin_another_panel_holds_is_refused_and_nothing_leaks(factory) -> None:
    first = make_hal(factory)
    with pytest.raises(PanelWiringError, match=r"GPIO25 for DC is already in use") as caught:
        make_hal(factory, wiring=Wiring(rst=5, dc=25, busy=13))
    assert caught.value.pin == 25
    # The failed panel's RST (GPIO5) was released again.
    second = make_hal(factory, wiring=Wiring(rst=5, dc=6, busy=13, spi_device=1))
    assert first.powered and second.RST_PIN == 5


@pytest.mark.parametrize(
    ("wiring", "message"),
    [
        (dict(rst=17, dc=17, busy=24), "GPIO17 is used twice: as DC and as RST"),
        (dict(rst=17, dc=10, busy=24), "GPIO10 is used twice: as DC and as SPI0 MOSI"),
        (dict(rst=17, dc=25, busy=8), "GPIO8 is used twice: as BUSY and as SPI0 CS"),
        (dict(rst=17, dc=25, busy=7, spi_device=1), "GPIO7 is used twice: as BUSY and as SPI0 CS"),
        (dict(rst=17, dc=25, busy=24, pwr=11), "GPIO11 is used twice: as PWR and as SPI0 SCLK"),
        (dict(rst=40, dc=25, busy=24), "RST pin 40: expected a GPIO number 0..27"),
        (dict(rst=17, dc=25, busy=24, spi_device=2), "spi_device 2 on SPI0: expected 0..1"),
        (dict(rst=17, dc=25, busy=24, spi_bus=3), "spi_bus 3: expected one of"),
    ],
)
def test_wiring_mistakes_name_the_pin_and_both_uses(wiring, message) -> None:
    with pytest.raises(PanelWiringError, match=message):
        Wiring(**wiring)


def test_wiring_on_the_second_chip_select() -> None:
    wiring = Wiring(rst=5, dc=6, busy=13, spi_device=1)
    assert (wiring.cs, wiring.device_path) == (7, "/dev/spidev0.1")
    assert wiring.lines() == {"RST": 5, "DC": 6, "BUSY": 13}


def test_the_vendor_touching_a_pin_not_its_own_is_refused(factory) -> None:
    hal = make_hal(factory)
    with pytest.raises(PanelWiringError, match="wrote pin 4"):
        hal.digital_write(4, 1)
    with pytest.raises(PanelWiringError, match="read pin 4"):
        hal.digital_read(4)


def test_a_write_before_module_init_is_refused(factory) -> None:
    hal = PanelHal("B", "epd2in9_V2", SECOND, RecordingSpi(), pin_factory=factory)
    with pytest.raises(PanelBusError, match=r"seat B \(epd2in9_V2\): SPI write before module_init"):
        send_command(hal, 0x12)


def test_close_releases_the_pins(factory) -> None:
    hal = make_hal(factory)
    hal.close()
    hal.close()  # twice is harmless
    again = make_hal(factory)  # the same pins, claimed again
    assert again.powered and not hal.is_open


@pytest.mark.parametrize("model", tuple(RECIPES))
def test_the_hal_has_every_name_the_vendor_file_uses(factory, model) -> None:
    try:
        source = ws.vendor_file(model).path.read_text()
    except ws.VendorMissing as missing:
        pytest.skip(str(missing))
    used = {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "epdconfig"
    }
    assert {"RST_PIN", "DC_PIN", "BUSY_PIN", "spi_writebyte", "module_exit"} <= used
    hal = make_hal(factory)
    assert [name for name in sorted(used) if not hasattr(hal, name)] == []


def test_the_real_spi_device_needs_spidev() -> None:
    try:
        import spidev  # noqa: F401
    except ImportError:
        with pytest.raises(PanelBusError, match="spidev is not installed"):
            SpidevBus(0, 1).open()
    else:
        pytest.skip("spidev is installed here: the real device is tested by test_waveshare_hw")


def test_no_gpio_access_is_a_panel_error_naming_the_pin(monkeypatch) -> None:
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    with pytest.raises(PanelGpioError, match=r"seat A \(epd2in7_V2\): cannot claim GPIO17 for RST"):
        PanelHal("A", "epd2in7_V2", HAT, RecordingSpi())


def vendor_reset(hal) -> None:
    """The 2.7" V2's reset, as its display_Partial does it before every partial."""
    hal.digital_write(hal.RST_PIN, 1)
    hal.delay_ms(200)
    hal.digital_write(hal.RST_PIN, 0)
    hal.delay_ms(2)
    hal.digital_write(hal.RST_PIN, 1)
    hal.delay_ms(200)


def test_the_reset_waits_are_the_vendors_unless_shortened(factory) -> None:
    waits: list[float] = []
    hal = PanelHal("A", "epd2in7_V2", HAT, RecordingSpi(), pin_factory=factory, delay=waits.append)
    hal.module_init()
    vendor_reset(hal)
    send_command(hal, 0x3C)
    assert waits == [0.2, 0.002, 0.2]
    hal.close()


def test_a_shortened_reset_waits_for_busy_before_the_next_byte(factory) -> None:
    waits: list[float] = []
    spi = RecordingSpi()
    hal = PanelHal(
        "A",
        "epd2in7_V2",
        HAT,
        spi,
        pin_factory=factory,
        delay=waits.append,
        reset_wait=0.02,
        busy_timeout=0.05,
    )
    hal.module_init()
    vendor_reset(hal)
    assert waits == [0.02, 0.002, 0.02]
    factory.pin(HAT.busy).drive_high()  # the controller still busy after the reset
    with pytest.raises(PanelBusyStuck, match="BUSY on GPIO24 stayed high"):
        send_command(hal, 0x3C)
    assert spi.writes == []  # nothing sent to a controller that is not ready
    factory.pin(HAT.busy).drive_low()
    vendor_reset(hal)
    send_command(hal, 0x3C)
    assert spi.writes == [b"\x3c"]
    send_command(hal, 0x44)  # only the first byte after a reset waits
    delay_after = len(waits)
    hal.delay_ms(200)  # a wait that is not part of a reset is the vendor's
    assert waits[delay_after:] == [0.2]
    with pytest.raises(ValueError, match="reset_wait 0"):
        PanelHal("B", "epd2in7_V2", SECOND, RecordingSpi(), pin_factory=factory, reset_wait=0)
    hal.close()
