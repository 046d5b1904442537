"""The controller emulator on its own: the transfer log, RAM addressing, the two
RAMs, BUSY timing and the injected faults."""

from __future__ import annotations

import random
import re

import pytest
from PIL import Image

pytest.importorskip("gpiozero", reason="gpiozero is needed for the emulated panels")
from gpiozero.pins.mock import MockFactory

from keystand.drivers.display import MODELS, Refresh
from keystand.drivers.display import waveshare as ws
from keystand.drivers.display.emulator import (
    CONTROLLERS,
    SSD1677,
    SSD1680,
    Controller,
    EmulatedPanel,
    Fault,
    Update,
    Write,
    emulated_waveshare,
)
from keystand.drivers.display.hal import PanelHal, Wiring
from keystand.drivers.display.timing import TIMINGS

WIRING = Wiring(rst=17, dc=25, busy=24, pwr=18)


@pytest.fixture
def factory():
    pins = MockFactory()
    yield pins
    pins.reset()


def noise(size, seed):
    rnd = random.Random(seed)
    return Image.frombytes("1", size, rnd.randbytes((size[0] + 7) // 8 * size[1]))


class Host:
    """Drives an emulated panel through a PanelHal, as the vendor code would."""

    def __init__(self, factory, **kwargs) -> None:
        self.hardware = EmulatedPanel("epd2in9_V2", wiring=WIRING, pin_factory=factory, **kwargs)
        self.hal = PanelHal(
            "A",
            "epd2in9_V2",
            WIRING,
            self.hardware.spi,
            pin_factory=factory,
            delay=lambda seconds: None,
            busy_timeout=0.2,
            rise_timeout=0.05,
        )
        self.hal.module_init()
        self.reset()

    def reset(self) -> None:
        self.hal.digital_write(self.hal.RST_PIN, 0)
        self.hal.digital_write(self.hal.RST_PIN, 1)

    def send(self, command, *data) -> None:
        self.hal.digital_write(self.hal.DC_PIN, 0)
        self.hal.spi_writebyte([command])
        if data:
            self.hal.digital_write(self.hal.DC_PIN, 1)
            self.hal.spi_writebyte2(list(data))
        self.hal.flush()

    def wait(self) -> None:
        self.hal.digital_read(self.hal.BUSY_PIN)

    def close(self) -> None:
        self.hal.close()
        self.hardware.close()


@pytest.fixture
def host(factory):
    made = []

    def make(**kwargs):
        made.append(Host(factory, **kwargs))
        return made[-1]

    yield make
    for one in made:
        one.close()


# -- the transfer log -------------------------------------------------------------------


def test_the_transfer_log_has_one_line_per_spi_write(factory, tmp_path) -> None:
    log = tmp_path / "A.spi"
    panel, hardware = emulated_waveshare(
        "epd2in13_V4", seat="A", wiring=WIRING, pin_factory=factory, speed=0, log=log
    )
    image = noise(panel.size, 1)
    panel.display(image, Refresh.FULL)
    panel.sleep()
    hardware.close()
    lines = log.read_text(encoding="ascii").splitlines()
    assert len(lines) == hardware.write_count == len(hardware.writes)
    assert all(re.fullmatch(r"C [0-9a-f]{2}|D (?:[0-9a-f]{2})+", line) for line in lines)
    assert lines == [write.line() for write in hardware.writes]
    # The vendor's init starts with a software reset; the frame follows 0x24 in one
    # line, then 0x26 (the base) with the same bytes; sleep ends the log.
    assert lines[0] == "C 12"
    frame = "D " + ws.native_buffer(panel.native(image)).hex()
    at = lines.index("C 24")
    assert lines[at + 1] == frame and lines[at + 2 : at + 4] == ["C 26", frame]
    assert lines[-2:] == ["C 10", "D 01"]


def test_a_write_line_is_lower_case_hex() -> None:
    assert Write(False, b"\x4e").line() == "C 4e"
    assert Write(True, b"\xab\x00\xff").line() == "D ab00ff"


# -- RAM addressing ---------------------------------------------------------------------


def controller() -> Controller:
    chip = Controller(MODELS["epd2in9_V2"], SSD1680)
    chip.power(True)
    return chip


def send(chip, command, *data):
    outcome = chip.command(command)
    for byte in data:
        chip.data(byte)
    return outcome


def test_a_window_with_x_then_y_increments_wraps_to_its_start() -> None:
    chip = controller()
    send(chip, 0x11, 0x03)
    send(chip, 0x44, 2, 3)  # bytes 2..3 (pixels 16..31)
    send(chip, 0x45, 10, 0, 11, 0)  # rows 10..11
    send(chip, 0x4E, 2)
    send(chip, 0x4F, 10, 0)
    send(chip, 0x24, 1, 2, 3, 4, 5)  # four fill the window, the fifth wraps to its start
    stride = chip.stride
    assert chip.bw[10 * stride + 2 : 10 * stride + 4] == bytes([5, 2])
    assert chip.bw[11 * stride + 2 : 11 * stride + 4] == bytes([3, 4])
    assert (chip.x, chip.y) == (3, 10)


def test_decrementing_and_y_first_data_entry_modes() -> None:
    chip = controller()
    send(chip, 0x11, 0x00)  # X decrements, Y decrements, X first
    send(chip, 0x44, 1, 0)
    send(chip, 0x45, 1, 0, 0, 0)
    send(chip, 0x4E, 1)
    send(chip, 0x4F, 1, 0)
    send(chip, 0x24, 0xA1, 0xA2, 0xA3, 0xA4)
    s = chip.stride
    assert [chip.bw[1 * s + 1], chip.bw[1 * s], chip.bw[1], chip.bw[0]] == [0xA1, 0xA2, 0xA3, 0xA4]
    send(chip, 0x11, 0x07)  # X and Y increment, Y first (AM = 1)
    send(chip, 0x44, 0, 1)
    send(chip, 0x45, 0, 0, 1, 0)
    send(chip, 0x4E, 0)
    send(chip, 0x4F, 0, 0)
    send(chip, 0x26, 0xB1, 0xB2, 0xB3)
    assert [chip.red[0], chip.red[s], chip.red[1]] == [0xB1, 0xB2, 0xB3]


def test_the_ssd1677_addresses_x_in_pixels_and_y_in_ten_bits() -> None:
    """The 4.26"'s controller: X window and counter in pixels over two bytes (the
    counter moving a byte, 8 pixels, a data byte), Y past 511."""
    chip = Controller(MODELS["epd4in26"], SSD1677)
    chip.power(True)
    send(chip, 0x11, 0x03)
    send(chip, 0x44, 0x10, 0x03, 0x1F, 0x03)  # pixels 784..799: bytes 98..99
    send(chip, 0x45, 0x00, 0x02, 0x01, 0x02)  # rows 512..513
    send(chip, 0x4E, 0x18, 0x03)  # pixel 792: byte 99
    send(chip, 0x4F, 0x00, 0x02)
    assert (chip.x_window, chip.y_window, chip.x, chip.y) == ((98, 99), (512, 513), 99, 512)
    send(chip, 0x24, 0xC1, 0xC2, 0xC3)  # 99 of row 512, then the window's next row
    s = chip.stride
    assert chip.bw[512 * s + 99] == 0xC1 and chip.bw[513 * s + 98 : 513 * s + 100] == b"\xc2\xc3"


def test_the_ssd1677_y_down_window_from_counter_0_and_its_reversed_gates() -> None:
    """The vendor's 4.26" set-up: window Y 479 down to 0, counter at 0, X up (0x01).
    The first row lands on RAM row 0, the next on 479 and on down; the glass's gates
    run in reverse, so its top row shows RAM row 479: the frame one row up, its
    first row at the bottom."""
    chip = Controller(MODELS["epd4in26"], SSD1677)
    chip.power(True)
    frame = noise((800, 480), 6)
    send(chip, 0x11, 0x01)
    send(chip, 0x44, 0, 0, 0x1F, 0x03)
    send(chip, 0x45, 0xDF, 0x01, 0, 0)
    send(chip, 0x4E, 0, 0)
    send(chip, 0x4F, 0, 0)
    send(chip, 0x24, *ws.native_buffer(frame))
    s = chip.stride
    data = frame.tobytes()
    assert chip.bw[:100] == data[:100] and chip.bw[479 * s : 479 * s + 100] == data[100:200]
    send(chip, 0x22, 0xF7)
    chip.command(0x20)
    assert chip.shown.tobytes() == data[100:] + data[:100]


def test_a_full_update_shows_ram_0x24_and_the_inverse_option_inverts_it() -> None:
    chip = controller()
    frame = noise((128, 296), 5)
    send(chip, 0x44, 0, 15)
    send(chip, 0x24, *ws.native_buffer(frame))
    send(chip, 0x22, 0xF7)
    update = chip.command(0x20)
    assert isinstance(update, Update) and update.refresh is Refresh.FULL
    assert chip.shown.tobytes() == frame.tobytes()
    send(chip, 0x21, 0x08)  # BW RAM inverted
    chip.command(0x20)
    assert chip.shown.tobytes() == bytes(b ^ 0xFF for b in frame.tobytes())


def test_mode_2_drives_only_pixels_that_differ_from_the_old_image() -> None:
    chip = controller()
    send(chip, 0x44, 0, 15)
    white = bytes([0xFF]) * (16 * 296)
    send(chip, 0x24, *white)
    send(chip, 0x22, 0xF7)
    chip.command(0x20)  # the glass is white; RAM 0x26 holds zeros (black) since power-up
    black_square = bytearray(white)
    black_square[0] = 0x00  # pixels 0..7 of row 0 black
    send(chip, 0x4E, 0)
    send(chip, 0x4F, 0, 0)
    send(chip, 0x24, *black_square)
    send(chip, 0x22, 0xFF)
    update = chip.command(0x20)
    # Old (0x26) says black where the new image is black: those pixels are not
    # driven and stay white; everything white-on-black is driven white.
    assert update.refresh is Refresh.PARTIAL and update.stale_base
    assert chip.shown.getextrema() == (255, 255)
    assert chip.red == chip.bw  # the controller keeps the new image as the next old one


def test_deep_sleep_ignores_everything_until_a_hardware_reset() -> None:
    chip = controller()
    send(chip, 0x10, 0x01)
    assert chip.asleep and not chip.listening
    chip.reset_line(False)
    chip.reset_line(True)
    assert chip.listening and (chip.x, chip.y, chip.entry) == (0, 0, 0x03)


def test_power_up_leaves_ram_undefined_and_a_reset_keeps_it() -> None:
    chip = controller()
    send(chip, 0x24, 0x5A)
    chip.reset_line(False)
    chip.reset_line(True)
    assert chip.bw[0] == 0x5A
    chip.power(False)
    chip.power(True)
    assert chip.bw[0] == 0x00


@pytest.mark.parametrize("entry", range(8))
@pytest.mark.parametrize(
    ("x_window", "y_window", "counter"),
    [
        ((0, 21), (0, 295), (0, 0)),  # the whole RAM, from its start
        ((2, 5), (10, 12), (3, 11)),  # a window, the counter inside it
        ((5, 3), (4, 2), (2, 3)),  # start past end: the counter wraps to the start
        ((20, 30), (294, 300), (20, 294)),  # running past the RAM's edge
        ((0, 3), (0, 3), (9, 1)),  # the counter outside the window
    ],
)
def test_a_block_of_data_lands_as_byte_by_byte(entry, x_window, y_window, counter) -> None:
    """`data_bytes` (a row's run at once) leaves the RAM, the counters and the
    bytes counted outside the RAM as the same bytes one at a time do."""
    block = bytes((7 * k + 3) % 256 for k in range(300))
    chips = []
    for one_by_one in (True, False):
        chip = controller()
        send(chip, 0x11, entry)
        send(chip, 0x44, *x_window)
        send(chip, 0x45, y_window[0], 0, y_window[1], 0)
        for ram in (0x24, 0x26):
            send(chip, 0x4E, counter[0])
            send(chip, 0x4F, counter[1], 0)
            chip.command(ram)
            if one_by_one:
                for byte in block:
                    chip.data(byte)
            else:
                chip.data_bytes(block)
        chips.append(chip)
    by_byte, by_block = chips
    assert by_block.bw == by_byte.bw and by_block.red == by_byte.red
    assert (by_block.x, by_block.y, by_block.params) == (by_byte.x, by_byte.y, by_byte.params)
    assert by_block.outside_ram == by_byte.outside_ram
    assert any(by_block.bw)  # the data landed somewhere


def test_bytes_past_the_ram_are_counted_not_stored() -> None:
    chip = controller()
    send(chip, 0x44, 30, 30)
    send(chip, 0x4E, 30)
    send(chip, 0x24, 1, 2)
    assert chip.outside_ram == 2 and not any(chip.bw)


# -- BUSY -------------------------------------------------------------------------------


# Every emulated model but the 2.9" V2, whose fast init loads its waveform from the
# host: the emulator times that as a full refresh.
@pytest.mark.parametrize("model", [m for m in CONTROLLERS if m != "epd2in9_V2"])
def test_busy_lasts_the_timing_models_time_times_speed(factory, model) -> None:
    speed = 0.002
    panel, hardware = emulated_waveshare(
        model, seat="A", wiring=WIRING, pin_factory=factory, speed=speed
    )
    try:
        for kind in (Refresh.FULL, Refresh.PARTIAL, Refresh.FAST):
            panel.display(noise(panel.size, 1), kind)
            assert hardware.updates[-1].refresh is kind
            expected = TIMINGS[model].seconds(kind) * speed
            assert any(p == pytest.approx(expected) for p in hardware.pulses)
        assert hardware.violations == [] and not hardware.busy
    finally:
        panel.close()
        hardware.close()


def test_writing_while_busy_is_recorded(host) -> None:
    one = host(speed=1.0)
    one.send(0x22, 0xF7)
    one.send(0x20)
    assert one.hardware.busy
    one.send(0x24, 0xFF)  # the host did not wait for BUSY
    assert one.hardware.violations == ["write 4 (C 24) while busy", "write 5 (D ff) while busy"]


def test_busy_stuck_from_the_second_refresh_and_through_resets(host) -> None:
    one = host(speed=0, fault=Fault.BUSY_STUCK)
    one.send(0x22, 0xF7)
    one.send(0x20)
    one.wait()  # the first refresh completes
    one.send(0x20)
    assert one.hardware.busy and one.hardware.stuck and one.hardware.pulses[-1] is None
    one.reset()
    assert one.hardware.busy
    one.hardware.clear_fault()
    assert not one.hardware.busy
    one.send(0x20)
    one.wait()
    assert one.hardware.controller.draws == 2


def test_unplugged_never_goes_busy_but_the_bus_is_still_logged(host) -> None:
    one = host(speed=0, fault=Fault.UNPLUGGED)
    one.send(0x12)
    one.send(0x22, 0xF7)
    one.send(0x20)
    assert not one.hardware.busy and len(one.hardware.pulses) == 0
    assert [w.line() for w in one.hardware.writes] == ["C 12", "C 22", "D f7", "C 20"]
    assert one.hardware.controller.draws == 0


# -- set-up mistakes --------------------------------------------------------------------


def test_the_emulator_must_come_before_the_pins_are_used(factory) -> None:
    factory.pin(25)
    with pytest.raises(ValueError, match=r"GPIO25 \(DC\) already exists on this MockFactory"):
        EmulatedPanel("epd2in7_V2", wiring=WIRING, pin_factory=factory)


def test_the_emulator_needs_mock_pins() -> None:
    with pytest.raises(ValueError, match="need gpiozero's MockFactory, not object"):
        EmulatedPanel("epd2in7_V2", wiring=WIRING, pin_factory=object())


def test_an_unknown_model_is_refused_naming_the_models_it_plays(factory) -> None:
    with pytest.raises(ValueError, match="'epd7in5_V2': no such model") as caught:
        EmulatedPanel("epd7in5_V2", wiring=WIRING, pin_factory=factory)
    assert f"(emulated models: {', '.join(CONTROLLERS)})" in str(caught.value)
    assert "\n" not in str(caught.value)
