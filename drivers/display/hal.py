"""One panel's hardware, in the shape of the vendor's `epdconfig` module.

The Waveshare model files do `from . import epdconfig` and then call only a few
names on it (pins, digital_write/read, delay_ms, spi_writebyte(2),
module_init/exit). `PanelHal` provides those names for one panel: its own SPI
device (CE0 or CE1), its own RST, DC, BUSY and optional PWR lines as gpiozero
devices on the pin factory it is given. Two panels are two `PanelHal`s, so
neither can reach the other's pins, bus or power.

What it adds to the vendor's behaviour:
- every run of data bytes (DC high) goes out as one SPI write; a command byte is
  one write of its own (the protocol's floor);
- a BUSY wait that ends: `PanelBusyStuck` after `busy_timeout` seconds;
- a refresh command (0x20, master activation) that BUSY never answers means no
  controller is listening: `PanelUnplugged`;
- `reset_wait`: shorter waits around a hardware reset, then a wait for BUSY low
  before the next byte, as the controllers' datasheets ask (each panel
  record's `reset_wait`, the default). The 2.7" V2's partial refresh resets the controller each
  time and the vendor waits 402 ms doing so; None keeps the vendor's waits.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .. import PI_INSTALL
from ..gpio import GpioClaimError, GpioTrouble, diagnose, keep_cwd
from .base import PanelError

if TYPE_CHECKING:
    from gpiozero import DigitalInputDevice, DigitalOutputDevice, Factory

MASTER_ACTIVATION = 0x20  # SSD16xx: run the update sequence set by 0x22; BUSY goes high
SPI_HZ = 4_000_000  # the vendor's clock; the controllers take up to 20 MHz for writes

# The SPI controllers' own lines on the 40-pin header, by bus: (MOSI, SCLK, MISO)
# and the chip selects by device number. A panel line must not sit on these.
SPI_LINES: dict[int, tuple[int, int, int]] = {0: (10, 11, 9), 1: (20, 21, 19)}
SPI_CHIP_SELECTS: dict[int, tuple[int, ...]] = {0: (8, 7), 1: (18, 17, 16)}


class PanelBusyStuck(PanelError, TimeoutError):
    """BUSY stayed high longer than any refresh takes: a hung or miswired controller."""

    def __init__(self, seat: str, model: str, pin: int, seconds: float) -> None:
        self.seat, self.model, self.pin, self.seconds = seat, model, pin, seconds
        super().__init__(
            f"seat {seat} ({model}): BUSY on GPIO{pin} stayed high for {seconds:g} s; "
            f"check the panel's ribbon cable and the BUSY wire to GPIO{pin}"
        )


class PanelUnplugged(PanelError, ConnectionError):
    """The controller never went busy after a refresh command: nobody is listening."""

    def __init__(self, seat: str, model: str, pin: int, where: str) -> None:
        self.seat, self.model, self.pin, self.where = seat, model, pin, where
        super().__init__(
            f"seat {seat} ({model}): BUSY on GPIO{pin} never went high after the refresh "
            f"command; the panel looks unplugged or unpowered: check its cable, power and "
            f"chip select ({where})"
        )


class PanelWiringError(PanelError, ValueError):
    """A panel's pins clash (with each other, the SPI lines or another device)."""

    def __init__(self, message: str, pin: int | str) -> None:
        self.pin = pin
        super().__init__(message)


class PanelBusError(PanelError, OSError):
    """The SPI device cannot be opened or written (SPI disabled, no permission)."""


class PanelGpioError(PanelError, GpioClaimError):
    """A panel's line cannot be had: no pin factory (not on a Pi), no gpiochip or
    no permission for it, a line another program holds. `trouble` says which,
    `pin` and `chip` where."""

    def __init__(
        self,
        message: str,
        trouble: GpioTrouble = GpioTrouble.OTHER,
        *,
        pin: int,
        chip: str | None = None,
    ) -> None:
        super().__init__(message, pin=pin, trouble=trouble, chip=chip)


@dataclass(frozen=True)
class Wiring:
    """Where one panel is wired: BCM GPIO numbers, and its SPI bus and chip select.

    `pwr` is the HAT's panel power switch (GPIO18 on the Waveshare HAT Rev2.3);
    None when the panel is always powered.
    """

    rst: int
    dc: int
    busy: int
    pwr: int | None = None
    spi_bus: int = 0
    spi_device: int = 0

    def __post_init__(self) -> None:
        if self.spi_bus not in SPI_LINES:
            raise PanelWiringError(
                f"spi_bus {self.spi_bus!r}: expected one of {sorted(SPI_LINES)}", self.spi_bus
            )
        selects = SPI_CHIP_SELECTS[self.spi_bus]
        if not 0 <= self.spi_device < len(selects):
            raise PanelWiringError(
                f"spi_device {self.spi_device!r} on SPI{self.spi_bus}: expected 0.."
                f"{len(selects) - 1}",
                self.spi_device,
            )
        taken: dict[int, str] = {}
        mosi, sclk, miso = SPI_LINES[self.spi_bus]
        for gpio, use in ((mosi, "MOSI"), (sclk, "SCLK"), (miso, "MISO"), (self.cs, "CS")):
            taken[gpio] = f"SPI{self.spi_bus} {use}"
        for name, gpio in self.lines().items():
            if not isinstance(gpio, int) or isinstance(gpio, bool) or not 0 <= gpio <= 27:
                raise PanelWiringError(f"{name} pin {gpio!r}: expected a GPIO number 0..27", gpio)
            if gpio in taken:
                raise PanelWiringError(
                    f"GPIO{gpio} is used twice: as {name} and as {taken[gpio]}", gpio
                )
            taken[gpio] = name

    @property
    def cs(self) -> int:
        """The chip-select GPIO spidev drives for this device (CE0 = GPIO8, CE1 = GPIO7)."""
        return SPI_CHIP_SELECTS[self.spi_bus][self.spi_device]

    @property
    def device_path(self) -> str:
        return f"/dev/spidev{self.spi_bus}.{self.spi_device}"

    def lines(self) -> dict[str, int]:
        """The GPIO lines the panel driver claims, by name."""
        lines = {"RST": self.rst, "DC": self.dc, "BUSY": self.busy}
        if self.pwr is not None:
            lines["PWR"] = self.pwr
        return lines


class SpiDevice(Protocol):
    """What the HAL needs of an SPI device: open, write a run of bytes, close."""

    def open(self) -> None: ...

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class SpidevBus:
    """The real SPI device, `/dev/spidevB.D` through `spidev` (imported on open)."""

    def __init__(self, bus: int, device: int, *, hz: int = SPI_HZ) -> None:
        self.bus, self.device, self.hz = bus, device, hz
        self._dev: object | None = None

    def __repr__(self) -> str:
        return f"SpidevBus({self.bus}, {self.device}, hz={self.hz})"

    def open(self) -> None:
        if self._dev is not None:
            return
        try:
            import spidev  # the hardware library, only on a Pi
        except ImportError as error:
            raise PanelBusError(
                f"spidev is not installed ({error}); on the Pi: {PI_INSTALL}"
            ) from error
        dev = spidev.SpiDev()
        try:
            dev.open(self.bus, self.device)
        except OSError as error:
            raise PanelBusError(
                f"/dev/spidev{self.bus}.{self.device}: {error.strerror or error}; enable SPI "
                f"(dtparam=spi=on) and add the user to the spi group"
            ) from error
        dev.max_speed_hz = self.hz
        dev.mode = 0
        self._dev = dev

    def write(self, data: bytes) -> None:
        if self._dev is None:
            raise PanelBusError(f"/dev/spidev{self.bus}.{self.device} written before open")
        # writebytes2 takes any length and splits it by the kernel's bufsiz.
        self._dev.writebytes2(data)  # type: ignore[attr-defined]

    def close(self) -> None:
        if self._dev is not None:
            self._dev.close()  # type: ignore[attr-defined]
            self._dev = None


class VendorSpi:
    """The stock epdconfig's `SPI` attribute (its spidev device), as far as a model
    file uses it: the 4.26"'s `send_data2` calls `epdconfig.SPI.writebytes2(data)`
    where the others call `epdconfig.spi_writebyte2(data)`; both are one vendor
    call, the same bytes."""

    def __init__(self, hal: PanelHal) -> None:
        self.hal = hal

    def writebytes2(self, data: Iterable[int]) -> None:
        self.hal.spi_writebyte2(data)


@dataclass
class HalCounts:
    """What went over the wires, for tests and the benchmark."""

    vendor_calls: int = 0  # spi_writebyte(2) calls: the SPI writes the stock epdconfig makes
    spi_writes: int = 0  # the writes this HAL made
    spi_bytes: int = 0
    gpio_writes: int = 0  # pin changes (the stock HAL also writes unchanged levels and CS)
    delays: float = 0.0  # seconds the vendor code asked to wait
    busy_waits: int = 0
    by_kind: dict[str, int] = field(default_factory=lambda: {"command": 0, "data": 0})


class PanelHal:
    """The vendor's `epdconfig`, for one panel. Pins are claimed on construction;
    the SPI device is opened by `module_init()` (the vendor's init) and closed
    by `module_exit()` (the vendor's sleep).

    `delay` waits the vendor's fixed delays (reset pulses, the 2 s before
    power-down); the emulator passes a scaled one.
    """

    def __init__(
        self,
        seat: str,
        model: str,
        wiring: Wiring,
        spi: SpiDevice,
        *,
        pin_factory: Factory | None = None,
        busy_timeout: float = 30.0,
        rise_timeout: float = 0.5,
        delay: Callable[[float], None] = time.sleep,
        reset_wait: float | None = None,
    ) -> None:
        if busy_timeout <= 0 or rise_timeout <= 0:
            raise ValueError(
                f"busy_timeout {busy_timeout!r}, rise_timeout {rise_timeout!r}: expected > 0"
            )
        if reset_wait is not None and not 0 < reset_wait <= 1:
            raise ValueError(f"reset_wait {reset_wait!r}: expected 0 < seconds <= 1, or None")
        self.reset_wait = reset_wait
        self._in_reset = False  # RST was written and no byte has gone out since
        self.seat, self.model, self.wiring = seat, model, wiring
        self.busy_timeout, self.rise_timeout = busy_timeout, rise_timeout
        self.counts = HalCounts()
        self.RST_PIN, self.DC_PIN, self.BUSY_PIN = wiring.rst, wiring.dc, wiring.busy
        self.PWR_PIN = wiring.pwr
        self.CS_PIN = wiring.cs  # the vendor toggles it per byte; spidev drives it per write
        self.MOSI_PIN, self.SCLK_PIN = SPI_LINES[wiring.spi_bus][:2]
        self._spi = spi
        self._delay = delay
        self._open = False
        self._dc = False
        self._pending = bytearray()
        self._expect_rise = False
        self._rose = threading.Event()
        self._closed = False
        self._rst, self._dc_out, self._busy, self._pwr = self._claim(pin_factory)

    def __repr__(self) -> str:
        return f"PanelHal({self.seat!r}, {self.model!r}, {self.wiring!r}, {self._spi!r})"

    def _claim(
        self, pin_factory: Factory | None
    ) -> tuple[
        DigitalOutputDevice, DigitalOutputDevice, DigitalInputDevice, DigitalOutputDevice | None
    ]:
        from gpiozero import DigitalInputDevice, DigitalOutputDevice
        from gpiozero.exc import GPIOPinInUse, PinInvalidPin

        made: list[DigitalInputDevice | DigitalOutputDevice] = []

        def claim(name: str, gpio: int, make: Callable[[], object]) -> object:
            try:
                with warnings.catch_warnings(), keep_cwd():
                    # gpiozero warns of each pin library it tries and passes over;
                    # the error below says it once if none would do.
                    warnings.simplefilter("ignore")
                    device = make()
            except GPIOPinInUse as error:
                raise PanelWiringError(
                    f"seat {self.seat} ({self.model}): GPIO{gpio} for {name} is already in use "
                    f"({error})",
                    gpio,
                ) from error
            except PinInvalidPin as error:
                raise PanelWiringError(
                    f"seat {self.seat} ({self.model}): GPIO{gpio} for {name}: {error}", gpio
                ) from error
            except Exception as error:  # lgpio's own error type is not an OSError
                found = diagnose(error)
                if found is None:
                    raise
                raise PanelGpioError(
                    f"seat {self.seat} ({self.model}): cannot claim GPIO{gpio} for {name}: "
                    f"{found.detail}",
                    found.trouble,
                    pin=gpio,
                    chip=found.chip,
                ) from error
            made.append(device)
            return device

        w = self.wiring
        try:
            rst = claim("RST", w.rst, lambda: DigitalOutputDevice(w.rst, pin_factory=pin_factory))
            dc = claim("DC", w.dc, lambda: DigitalOutputDevice(w.dc, pin_factory=pin_factory))
            busy = claim(
                "BUSY",
                w.busy,
                lambda: DigitalInputDevice(w.busy, pull_up=False, pin_factory=pin_factory),
            )
            pwr = (
                None
                if w.pwr is None
                else claim(
                    "PWR", w.pwr, lambda: DigitalOutputDevice(w.pwr, pin_factory=pin_factory)
                )
            )
        except PanelError:
            for device in made:
                device.close()
            raise
        # The rise is latched by an edge callback, so a pulse shorter than our
        # polling (or a zero-length emulated one) is still seen.
        busy.when_activated = self._rose.set  # type: ignore[attr-defined]
        return rst, dc, busy, pwr

    # -- the names the vendor's model files call ------------------------------------

    def digital_write(self, pin: int, value: int) -> None:
        level = bool(value)
        if pin == self.DC_PIN:
            if level != self._dc:
                self.flush()  # the buffered data must go out while DC is still high
                self._dc_out.value = level
                self._dc = level
                self.counts.gpio_writes += 1
        elif pin == self.CS_PIN:
            pass  # spidev asserts the chip select for each write
        elif pin == self.RST_PIN:
            self.flush()
            self._rst.value = level
            self.counts.gpio_writes += 1
            self._in_reset = self.reset_wait is not None
        elif self._pwr is not None and pin == self.PWR_PIN:
            self.flush()
            self._pwr.value = level
            self.counts.gpio_writes += 1
        else:
            raise PanelWiringError(
                f"seat {self.seat} ({self.model}): the vendor code wrote pin {pin!r}, which is "
                f"not one of this panel's lines {self.wiring.lines()}",
                pin,
            )

    def digital_read(self, pin: int) -> int:
        self.flush()
        if pin == self.BUSY_PIN:
            self._wait_until_idle()
            return int(self._busy.value)
        if pin == self.RST_PIN:
            return int(self._rst.value)
        if pin == self.DC_PIN:
            return int(self._dc_out.value)
        if self._pwr is not None and pin == self.PWR_PIN:
            return int(self._pwr.value)
        raise PanelWiringError(
            f"seat {self.seat} ({self.model}): the vendor code read pin {pin!r}, which is not "
            f"one of this panel's lines {self.wiring.lines()}",
            pin,
        )

    def delay_ms(self, delaytime: float) -> None:
        self.flush()
        seconds = delaytime / 1000
        if self._in_reset and self.reset_wait is not None:
            seconds = min(seconds, self.reset_wait)
        self.counts.delays += seconds
        self._delay(seconds)

    @property
    def SPI(self) -> VendorSpi:  # the stock epdconfig's name for its spidev device
        return VendorSpi(self)

    def spi_writebyte(self, data: Iterable[int]) -> None:
        self.counts.vendor_calls += 1
        self._send(data)

    def spi_writebyte2(self, data: Iterable[int]) -> None:
        self.counts.vendor_calls += 1
        self._send(data)

    def module_init(self, cleanup: bool = False) -> int:
        """Power the panel (its own PWR line only) and open its SPI device."""
        if self._pwr is not None and not self._pwr.value:
            self._pwr.on()
            self.counts.gpio_writes += 1
        if not self._open:
            try:
                self._spi.open()
            except PanelBusError:
                raise
            except OSError as error:
                raise PanelBusError(
                    f"seat {self.seat} ({self.model}): {self.wiring.device_path}: {error}"
                ) from error
            self._open = True
        return 0

    def module_exit(self, cleanup: bool = False) -> None:
        """Close this panel's SPI device and drop its RST, DC and PWR; no other panel's."""
        self.flush()
        if self._open:
            self._spi.close()
            self._open = False
        for line in (self._rst, self._dc_out, self._pwr):
            if line is not None and line.value:
                line.off()
                self.counts.gpio_writes += 1
        self._dc = False

    # -- ours ---------------------------------------------------------------------

    @property
    def switches_power(self) -> bool:
        """True when sleep cuts the panel's power (so its RAM is lost)."""
        return self._pwr is not None

    @property
    def powered(self) -> bool:
        return self._pwr is None or bool(self._pwr.value)

    @property
    def is_open(self) -> bool:
        return self._open

    def flush(self) -> None:
        """Send the buffered data bytes as one write."""
        if self._pending:
            data = bytes(self._pending)
            self._pending.clear()
            self._write(data, "data")

    def close(self) -> None:
        """Power the panel down and release its pins (the HAL is unusable afterwards)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.module_exit()
        finally:
            for line in (self._rst, self._dc_out, self._busy, self._pwr):
                if line is not None:
                    line.close()

    def _send(self, data: Iterable[int]) -> None:
        if self._dc:
            try:
                self._pending.extend(data)
            except (TypeError, ValueError) as error:
                raise PanelError(
                    f"seat {self.seat} ({self.model}): data bytes must be 0..255: {error}"
                ) from error
            return
        self.flush()
        for byte in bytes(data):
            if byte == MASTER_ACTIVATION:
                self._rose.clear()
                self._expect_rise = True
            self._write(bytes((byte,)), "command")

    def _write(self, data: bytes, kind: str) -> None:
        if self._in_reset:  # a shortened reset: the controller says when it is ready
            self._in_reset = False
            if not self._busy.wait_for_inactive(timeout=self.busy_timeout):
                raise PanelBusyStuck(self.seat, self.model, self.BUSY_PIN, self.busy_timeout)
        if not self._open:
            raise PanelBusError(
                f"seat {self.seat} ({self.model}): SPI write before module_init "
                f"({self.wiring.device_path} is closed)"
            )
        try:
            self._spi.write(data)
        except PanelError:
            raise
        except OSError as error:
            raise PanelBusError(
                f"seat {self.seat} ({self.model}): writing {self.wiring.device_path}: {error}"
            ) from error
        self.counts.spi_writes += 1
        self.counts.spi_bytes += len(data)
        self.counts.by_kind[kind] += 1

    def _wait_until_idle(self) -> None:
        self.counts.busy_waits += 1
        self._in_reset = False  # this wait is the one a shortened reset needs
        if self._expect_rise:
            self._expect_rise = False
            rose = self._rose.wait(self.rise_timeout)
            if not rose and not self._busy.is_active:
                raise PanelUnplugged(
                    self.seat,
                    self.model,
                    self.BUSY_PIN,
                    f"{self.wiring.device_path}, CS on GPIO{self.CS_PIN}",
                )
        if not self._busy.wait_for_inactive(timeout=self.busy_timeout):
            raise PanelBusyStuck(self.seat, self.model, self.BUSY_PIN, self.busy_timeout)


class StockPathHal(PanelHal):
    """The traffic of the vendor's own `epdconfig`, for comparison (`bench/`, tests):
    every `spi_writebyte(2)` call is one SPI write (the 2.7" V2 sends its frame one
    byte per write), every `digital_write` of RST, DC or PWR a GPIO write, changed
    or not (the stock HAL ignores CS: spidev drives it). Same pins, same checks."""

    def digital_write(self, pin: int, value: int) -> None:
        level = bool(value)
        if pin == self.CS_PIN:
            return
        if pin == self.DC_PIN:
            self._dc_out.value = level
            self._dc = level
        elif pin == self.RST_PIN:
            self._rst.value = level
        elif self._pwr is not None and pin == self.PWR_PIN:
            self._pwr.value = level
        else:
            super().digital_write(pin, value)  # refuses a pin not this panel's
            return
        self.counts.gpio_writes += 1

    def _send(self, data: Iterable[int]) -> None:
        payload = bytes(data)
        if not self._dc and MASTER_ACTIVATION in payload:
            self._rose.clear()
            self._expect_rise = True
        self._write(payload, "data" if self._dc else "command")
