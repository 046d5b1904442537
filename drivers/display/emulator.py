"""Emulated panel hardware: what a real panel's HAL talks to, on a desktop.

`EmulatedPanel` stands behind one panel's `PanelHal`: its `spi` records every
SPI write (and can write the transfer log: `C hh` for a byte sent with DC low,
`D hhhh...` for one write sent with DC high), and a `Controller` decodes the
byte stream the way an SSD1680, SSD1683 or SSD1677 does (RAM windows, address
counters, data entry mode, the black/white RAM 0x24 and the second RAM 0x26,
display update control, master activation) into the picture the glass would
show (a panel whose gates run in reverse shows the RAM upside down). It
watches the RST, DC and PWR pins and drives BUSY on gpiozero's `MockFactory`
for as long as the timing model says, times `speed`.

Faults: `busy-stuck` holds BUSY high from the second refresh on;
`unplugged` is a bus with nobody on it (BUSY never goes high).
"""

from __future__ import annotations

import enum
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from PIL import Image, ImageChops

from .base import MODELS, PanelError, PanelModel, Refresh
from .hal import PanelHal, Wiring
from .timing import Timing
from .waveshare import WavesharePanel

if TYPE_CHECKING:
    from collections.abc import Callable

    from gpiozero.pins.mock import MockFactory, MockPin

# Estimates (no vendor figure): how long BUSY stays high for a software reset and
# for an update sequence that draws nothing (loading the temperature or a LUT).
SWRESET_SECONDS = 0.01
ACTIVATION_SECONDS = 0.05


class Fault(enum.Enum):
    """A fault to inject into one emulated panel."""

    BUSY_STUCK = "busy-stuck"
    UNPLUGGED = "unplugged"


@dataclass(frozen=True)
class ControllerSpec:
    """An SSD16xx controller: its RAM in pixels (sources x gates), and how it is
    addressed. `x_pixels`: an X address (window 0x44, counter 0x4E) counts pixels
    in two bytes, ten bits (the counter moving 8 a data byte), where the smaller
    chips count bytes in one; a Y address has as many bits as the gates need."""

    name: str
    ram_width: int
    ram_height: int
    x_pixels: bool = False

    @property
    def x_params(self) -> int:
        """Bytes of one X address."""
        return 2 if self.x_pixels else 1

    @property
    def y_mask(self) -> int:
        return (1 << (self.ram_height - 1).bit_length()) - 1


SSD1680 = ControllerSpec("SSD1680", 176, 296)
SSD1683 = ControllerSpec("SSD1683", 400, 300)
# SSD1677: 960 sources x 680 gates (GxEPD2's GDEQ0426T82 driver: "source, max
# 960", "gates, max 680"), X addressed in pixels.
SSD1677 = ControllerSpec("SSD1677", 960, 680, x_pixels=True)
# The controllers this module plays, by name; a panel record names its own.
CHIPS: dict[str, ControllerSpec] = {c.name: c for c in (SSD1680, SSD1683, SSD1677)}
# The models it can emulate: those whose record names a controller it plays.
CONTROLLERS: dict[str, ControllerSpec] = {
    m.name: CHIPS[m.controller] for m in MODELS.values() if m.controller in CHIPS
}


class NotEmulated(PanelError, ValueError):
    """A panel model the emulator cannot play: no record, or no controller it plays."""


def controller_of(model_name: str) -> ControllerSpec:
    """The controller `model_name`'s record names; NotEmulated, one line naming the
    models the emulator plays, when there is none."""
    spec = CONTROLLERS.get(model_name)
    if spec is not None:
        return spec
    known = f"emulated models: {', '.join(CONTROLLERS)}"
    if model_name not in MODELS:
        raise NotEmulated(f"panel model {model_name!r}: no such model ({known})")
    chip = MODELS[model_name].controller
    said = f"its controller {chip}" if chip else "its record names no controller"
    raise NotEmulated(
        f"panel model {model_name!r}: {said} is not one the emulator plays "
        f"({', '.join(CHIPS)}; {known})"
    )


# Commands the controller model acts on; the rest (driver output, voltages,
# border, LUT bytes, booster...) change the waveform, not the picture.
SWRESET, DEEP_SLEEP, DATA_ENTRY, TEMPERATURE = 0x12, 0x10, 0x11, 0x1A
ACTIVATE, UPDATE_1, UPDATE_2 = 0x20, 0x21, 0x22
WRITE_BW, WRITE_RED = 0x24, 0x26
X_WINDOW, Y_WINDOW, X_COUNTER, Y_COUNTER = 0x44, 0x45, 0x4E, 0x4F
# Display update control 2 (0x22) option bits.
LOAD_TEMPERATURE, LOAD_LUT, MODE_2, DISPLAY = 0x20, 0x10, 0x08, 0x04


@dataclass(frozen=True)
class Write:
    """One SPI write as the panel saw it: DC's level and the bytes."""

    dc: bool
    data: bytes

    def line(self) -> str:
        """The transfer-log line: `C hh` (DC low) or `D hhhh...` (DC high)."""
        return f"{'D' if self.dc else 'C'} {self.data.hex()}"


@dataclass(frozen=True)
class Update:
    """One drawing update: what the glass shows afterwards (native, 1 bit).

    `stale_base` is a partial refresh whose "old image" RAM did not hold the
    picture on the glass: on a real panel those pixels are driven wrongly.
    """

    number: int
    option: int
    refresh: Refresh
    image: Image.Image
    stale_base: bool


class Activation(enum.Enum):
    """What a command set off in the controller (so BUSY goes high)."""

    SWRESET = "swreset"
    SEQUENCE = "sequence"  # an update sequence that draws nothing


class Controller:
    """An SSD1680/SSD1683 as far as the picture goes. Pure state: no pins, no time."""

    def __init__(self, model: PanelModel, spec: ControllerSpec) -> None:
        self.model, self.spec = model, spec
        self.stride = spec.ram_width // 8
        self.bw = bytearray(self.stride * spec.ram_height)
        self.red = bytearray(self.stride * spec.ram_height)
        self.shown = Image.new("1", (model.width, model.height), 1)
        self.powered = False
        self.in_reset = False
        self.asleep = False
        self.draws = 0
        self.outside_ram = 0  # data bytes that fell outside the RAM
        self.unmodelled: set[int] = set()
        self._registers()

    def _registers(self) -> None:
        """The values a hardware or software reset leaves. X addresses are kept in
        bytes whatever the chip counts them in."""
        self.entry = 0x03  # X increments first, then Y
        self.x_window = (0, self.stride - 1)
        self.y_window = (0, self.spec.ram_height - 1)
        self.x, self.y = 0, 0
        self._x_pixels: dict[int, int] = {}  # a pixel-addressed X, as written so far
        self.option = 0xFF
        self.ram_option = 0x00  # 0x21 A: RED RAM option (high nibble), BW RAM option (low)
        self.temperature_forced = False
        self.fast_lut = False
        self.command_byte: int | None = None
        self.params = 0

    @property
    def listening(self) -> bool:
        return self.powered and not self.in_reset and not self.asleep

    def power(self, on: bool) -> None:
        if on and not self.powered:
            # RAM content after power-up is undefined; zeros (black) make a
            # partial refresh with no base image visibly wrong.
            self.bw[:] = bytes(len(self.bw))
            self.red[:] = bytes(len(self.red))
            self.asleep = False
            self._registers()
        self.powered = on

    def reset_line(self, level: bool) -> None:
        """RST low holds the controller in reset; the rising edge restarts it (RAM kept)."""
        if not level:
            self.in_reset = True
        elif self.in_reset:
            self.in_reset = False
            self.asleep = False
            self._registers()

    def would_draw(self, command: int) -> bool:
        return command == ACTIVATE and bool(self.option & DISPLAY)

    def command(self, byte: int) -> Activation | Update | None:
        self.command_byte, self.params = byte, 0
        if byte == SWRESET:
            self._registers()
            return Activation.SWRESET
        if byte == ACTIVATE:
            return self._activate()
        if byte not in (
            DEEP_SLEEP,
            DATA_ENTRY,
            TEMPERATURE,
            UPDATE_1,
            UPDATE_2,
            WRITE_BW,
            WRITE_RED,
            X_WINDOW,
            Y_WINDOW,
            X_COUNTER,
            Y_COUNTER,
        ):
            self.unmodelled.add(byte)
        return None

    def data(self, byte: int) -> None:
        command, index = self.command_byte, self.params
        self.params += 1
        if command in (WRITE_BW, WRITE_RED):
            self._ram_write(self.bw if command == WRITE_BW else self.red, byte)
        elif command == DATA_ENTRY and index == 0:
            self.entry = byte & 0x07
        elif command == X_WINDOW and index < 2 * self.spec.x_params:
            self._x_param(index, byte)
        elif command == Y_WINDOW and index < 4:
            start, end = self.y_window
            if index < 2:
                start = self._y_byte(start, index, byte)
            else:
                end = self._y_byte(end, index - 2, byte)
            self.y_window = (start, end)
        elif command == X_COUNTER and index < self.spec.x_params:
            self._x_param(index + 2 * self.spec.x_params, byte)
        elif command == Y_COUNTER and index < 2:
            self.y = self._y_byte(self.y, index, byte)
        elif command == UPDATE_1 and index == 0:
            self.ram_option = byte
        elif command == UPDATE_2 and index == 0:
            self.option = byte
        elif command == TEMPERATURE:
            self.temperature_forced = True
        elif command == DEEP_SLEEP and index == 0 and byte & 0x03:
            self.asleep = True

    def _y_byte(self, value: int, index: int, byte: int) -> int:
        """A Y address with its low (index 0) or high (1) byte replaced."""
        if index == 0:
            return (value & ~0xFF) | byte
        return ((value & 0xFF) | byte << 8) & self.spec.y_mask

    def _x_param(self, index: int, byte: int) -> None:
        """One byte of an X address: the window's start and end (0, 1), then the
        counter (2). In bytes on the byte-addressed chips (six bits); on the others
        in pixels (low byte, then the high bits), kept as the byte it falls in."""
        if self.spec.x_pixels:
            slot, high = divmod(index, 2)
            pixels = self._x_pixels.get(slot, 0)
            pixels = (pixels & 0xFF) | (byte & 0x03) << 8 if high else (pixels & ~0xFF) | byte
            self._x_pixels[slot] = pixels
            value = pixels >> 3
        else:
            slot, value = index, byte & 0x3F
        start, end = self.x_window
        if slot == 0:
            self.x_window = (value, end)
        elif slot == 1:
            self.x_window = (start, value)
        else:
            self.x = value

    def data_bytes(self, data: bytes) -> None:
        """Data bytes in order, as `data` takes them one by one. A frame is
        thousands of RAM bytes: where the counter moves along X, upwards, within a
        window that lies in the RAM, each row's run is stored at once (the
        emulator's own cost is no Pi's: it spent more CPU than the frame's render)."""
        at = 0
        while at < len(data):
            run = self._row_run(len(data) - at)
            if run == 0:
                self.data(data[at])
                at += 1
                continue
            ram = self.bw if self.command_byte == WRITE_BW else self.red
            start = self.y * self.stride + self.x
            ram[start : start + run] = data[at : at + run]
            self.params += run
            at += run
            if self.x + run - 1 == self.x_window[1]:  # the row is full: as _step_x wraps
                self.x = self.x_window[0]
                self._step_y()
            else:
                self.x += run

    def _row_run(self, left: int) -> int:
        """How many of the next `left` data bytes go to one RAM row, each at the
        next X up (0: take the next byte alone, as `data` does)."""
        if self.command_byte not in (WRITE_BW, WRITE_RED) or self.entry & 0x05 != 0x01:
            return 0  # not a RAM write, or Y first, or X down
        end = self.x_window[1]
        if not (0 <= self.x <= end < self.stride and 0 <= self.y < self.spec.ram_height):
            return 0  # outside the window or the RAM: counted byte by byte
        return min(left, end - self.x + 1)

    def _ram_write(self, ram: bytearray, byte: int) -> None:
        if 0 <= self.x < self.stride and 0 <= self.y < self.spec.ram_height:
            ram[self.y * self.stride + self.x] = byte
        else:
            self.outside_ram += 1
        x_first = not self.entry & 0x04
        if x_first:
            if self._step_x():
                self._step_y()
        elif self._step_y():
            self._step_x()

    def _step_x(self) -> bool:
        """Move the X counter within its window; True when it wrapped."""
        start, end = self.x_window
        if self.x == end:
            self.x = start
            return True
        self.x += 1 if self.entry & 0x01 else -1
        return False

    def _step_y(self) -> bool:
        start, end = self.y_window
        if self.y == end:
            self.y = start
            return True
        self.y += 1 if self.entry & 0x02 else -1
        return False

    def _activate(self) -> Activation | Update:
        option = self.option
        if option & LOAD_TEMPERATURE:
            self.temperature_forced = False  # the sensor's reading replaces a written one
        if option & LOAD_LUT:
            # A forced high temperature makes the controller pick its fast waveform.
            self.fast_lut = self.temperature_forced
        if not option & DISPLAY:
            return Activation.SEQUENCE
        new = self._image(self.bw, self.ram_option & 0x0F)
        stale = False
        if option & MODE_2:
            old = self._image(self.red, self.ram_option >> 4)
            stale = old.tobytes() != self.shown.tobytes()
            # Mode 2 drives only the pixels where the new image differs from the
            # old one; the rest keep whatever the glass shows.
            self.shown = Image.composite(new, self.shown, ImageChops.logical_xor(new, old))
            self.red[:] = self.bw
            refresh = Refresh.PARTIAL
        else:
            self.shown = new
            refresh = Refresh.FAST if self.fast_lut else Refresh.FULL
        self.draws += 1
        return Update(self.draws, option, refresh, self.shown.copy(), stale)

    def _image(self, ram: bytearray, ram_option: int) -> Image.Image:
        """A RAM as the native picture; the option nibble: 4 reads as 0, 8 inverts."""
        if ram_option & 0x04:
            return Image.new("1", (self.model.width, self.model.height), 0)
        size = (self.spec.ram_width, self.spec.ram_height)
        image = Image.frombytes("1", size, bytes(ram)).crop(
            (0, 0, self.model.width, self.model.height)
        )
        if self.model.gates_reversed:  # the glass's top row is the last RAM row used
            image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
        return ImageChops.invert(image) if ram_option & 0x08 else image


def _watched_pin_class() -> type[MockPin]:
    """A MockPin that reports its level changes to a listener and keeps no history
    (a long emulated run would otherwise grow MockPin.states without bound)."""
    from gpiozero.pins.mock import MockPin  # gpiozero only when emulating

    class WatchedPin(MockPin):
        def __init__(
            self, factory: Any, info: Any, listener: Callable[[bool], None] | None = None
        ) -> None:
            self.listener = listener
            super().__init__(factory, info)

        def _change_state(self, value: bool) -> bool:
            if self._state == value:  # type: ignore[has-type]  # gpiozero sets it untyped
                return False
            self._state = value
            if self.listener is not None:
                self.listener(bool(value))
            return True

    return WatchedPin


class TransferLog:
    """The transfer log file: one line per SPI write, in order."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file: IO[str] | None = self.path.open("w", encoding="ascii")

    def write(self, write: Write) -> None:
        if self._file is not None:
            self._file.write(write.line() + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class EmulatedSpi:
    """The SPI device the HAL opens: every write goes to the emulated panel."""

    def __init__(self, panel: EmulatedPanel) -> None:
        self.panel = panel
        self.is_open = False

    def __repr__(self) -> str:
        return f"EmulatedSpi({self.panel.model.name!r})"

    def open(self) -> None:
        self.is_open = True

    def write(self, data: bytes) -> None:
        if not self.is_open:
            raise OSError(9, "SPI device is not open")
        self.panel.receive(bytes(data))

    def close(self) -> None:
        self.is_open = False


class EmulatedPanel:
    """One panel's hardware on a `MockFactory`: create it before the HAL claims the
    pins. `speed` scales the BUSY times (0: BUSY pulses with no wait); `keep`
    bounds the updates kept; `record` keeps every write in `writes`."""

    def __init__(
        self,
        model_name: str,
        *,
        wiring: Wiring,
        pin_factory: MockFactory,
        timing: Timing | None = None,
        speed: float = 1.0,
        fault: Fault | None = None,
        log: Path | None = None,
        keep: int = 100,
        record: bool = True,
    ) -> None:
        from gpiozero.pins.mock import MockFactory  # gpiozero only when emulating

        chip = controller_of(model_name)
        if not isinstance(pin_factory, MockFactory):
            raise ValueError(
                f"emulated panels need gpiozero's MockFactory, not {type(pin_factory).__name__}"
            )
        if speed < 0:
            raise ValueError(f"speed {speed!r}: expected 0 or more")
        self.model = MODELS[model_name]
        self.wiring = wiring
        self.timing = timing or self.model.timing
        self.speed = speed
        self.fault = fault
        self.controller = Controller(self.model, chip)
        self.spi = EmulatedSpi(self)
        self.record = record
        self.writes: list[Write] = []
        self.write_count = 0
        self.updates: deque[Update] = deque(maxlen=keep)
        self.pulses: deque[float | None] = deque(maxlen=keep)  # BUSY times asked (None: stuck)
        self.violations: list[str] = []
        self.stuck = False
        self._lock = threading.Lock()
        self._token = 0
        self._timer: threading.Timer | None = None
        pin_class = _watched_pin_class()
        pins: dict[str, MockPin] = {}
        listeners = {"RST": self.controller.reset_line, "PWR": self.controller.power}
        for name, gpio in wiring.lines().items():
            pin = pin_factory.pin(gpio, pin_class=pin_class, listener=listeners.get(name))
            if not isinstance(pin, pin_class):
                raise ValueError(
                    f"GPIO{gpio} ({name}) already exists on this MockFactory; create the "
                    f"emulated panel before anything uses its pins"
                )
            pins[name] = pin
        self._dc, self._busy = pins["DC"], pins["BUSY"]
        self.controller.in_reset = not pins["RST"].state
        if wiring.pwr is None:
            self.controller.power(True)  # no power switch: powered with the Pi
        self.log = TransferLog(log) if log is not None else None

    def __repr__(self) -> str:
        fault = f", fault={self.fault}" if self.fault else ""
        return (
            f"EmulatedPanel({self.model.name!r}, wiring={self.wiring!r}, speed={self.speed}{fault})"
        )

    @property
    def shown(self) -> Image.Image:
        """What the glass shows now (native, 1 bit)."""
        return self.controller.shown.copy()

    @property
    def busy(self) -> bool:
        return bool(self._busy.state)

    def receive(self, data: bytes) -> None:
        """One SPI write from the host (called by `spi.write`)."""
        write = Write(bool(self._dc.state), data)
        self.write_count += 1
        if self.record:
            self.writes.append(write)
        if self.log is not None:
            self.log.write(write)
        controller = self.controller
        if self.fault is Fault.UNPLUGGED or not controller.listening or self.stuck:
            return
        if self.busy:
            self.violations.append(f"write {self.write_count} ({write.line()[:12]}) while busy")
        if write.dc:
            controller.data_bytes(data)
            return
        for byte in data:
            self._command(byte)

    def _command(self, byte: int) -> None:
        controller = self.controller
        if self.fault is Fault.BUSY_STUCK and controller.would_draw(byte) and controller.draws:
            self.stuck = True
            self._pulse(None)
            return
        outcome = controller.command(byte)
        if outcome is Activation.SWRESET:
            self._pulse(SWRESET_SECONDS * self.speed)
        elif outcome is Activation.SEQUENCE:
            self._pulse(ACTIVATION_SECONDS * self.speed)
        elif isinstance(outcome, Update):
            self.updates.append(outcome)
            self._pulse(self.timing.seconds(outcome.refresh) * self.speed)

    def _pulse(self, seconds: float | None) -> None:
        """BUSY high, and low again after `seconds` (None: never)."""
        self.pulses.append(seconds)
        with self._lock:
            self._token += 1
            token = self._token
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self._busy.drive_high()
        if seconds is None:
            return
        if seconds <= 0:
            self._busy.drive_low()
            return
        timer = threading.Timer(seconds, self._release, (token,))
        timer.daemon = True
        with self._lock:
            self._timer = timer
        timer.start()

    def _release(self, token: int) -> None:
        with self._lock:
            if token != self._token or self.stuck:
                return
            self._timer = None
        self._busy.drive_low()

    def clear_fault(self) -> None:
        """The panel is repaired: no fault, BUSY released (the host still re-inits it)."""
        self.fault = None
        self.stuck = False
        with self._lock:
            self._token += 1
        self._busy.drive_low()

    def close(self) -> None:
        """Stop the BUSY timer and close the transfer log."""
        with self._lock:
            self._token += 1
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if self.log is not None:
            self.log.close()


@dataclass(frozen=True)
class ScaledSleep:
    """The vendor's fixed delays, times `speed` (0: no wait)."""

    speed: float

    def __call__(self, seconds: float) -> None:
        if self.speed > 0 and seconds > 0:
            time.sleep(seconds * self.speed)


def emulated_waveshare(
    model_name: str,
    *,
    seat: str,
    wiring: Wiring,
    pin_factory: MockFactory,
    rotation: int = 0,
    speed: float = 1.0,
    fault: Fault | None = None,
    log: Path | None = None,
    busy_timeout: float | None = None,
    rise_timeout: float = 0.5,
    keep: int = 100,
    record: bool = True,
    hal_class: type[PanelHal] = PanelHal,
    reset_wait: float | None = None,
    vendor_reset: bool = False,
    whole_buffers: bool = True,
) -> tuple[WavesharePanel, EmulatedPanel]:
    """A real `WavesharePanel` (vendor code, HAL) over an emulated panel."""
    hardware = EmulatedPanel(
        model_name,
        wiring=wiring,
        pin_factory=pin_factory,
        speed=speed,
        fault=fault,
        log=log,
        keep=keep,
        record=record,
    )
    try:
        panel = WavesharePanel(
            model_name,
            seat=seat,
            wiring=wiring,
            rotation=rotation,
            pin_factory=pin_factory,
            spi=hardware.spi,
            busy_timeout=busy_timeout,
            rise_timeout=rise_timeout,
            delay=ScaledSleep(speed),
            hal_class=hal_class,
            reset_wait=reset_wait,
            vendor_reset=vendor_reset,
            whole_buffers=whole_buffers,
        )
    except BaseException:
        hardware.close()
        raise
    return panel, hardware


def replay(lines: list[str], model_name: str) -> list[Update]:
    """The pictures a controller decodes from a transfer log (`SEAT.spi` lines),
    in order: so a log on disk can be checked without the run that wrote it.
    A write after deep sleep implies the hardware reset the vendor code always
    does before its next init (the log holds SPI writes only, not pin levels)."""
    controller = Controller(MODELS[model_name], controller_of(model_name))
    controller.power(True)
    updates: list[Update] = []
    for number, line in enumerate(lines, start=1):
        kind, _, hexes = line.strip().partition(" ")
        try:
            data = bytes.fromhex(hexes)
        except ValueError:
            raise ValueError(f"transfer log line {number}: {line[:40]!r}: not hex bytes") from None
        if kind not in ("C", "D") or not data:
            raise ValueError(f"transfer log line {number}: {line[:40]!r}: expected C hh or D hh..")
        if controller.asleep:
            controller.reset_line(False)
            controller.reset_line(True)
        if kind == "D":
            for byte in data:
                controller.data(byte)
        else:
            for byte in data:
                outcome = controller.command(byte)
                if isinstance(outcome, Update):
                    updates.append(outcome)
    return updates
