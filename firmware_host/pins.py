"""A build's pin plan, checked: every GPIO a profile wires has one use, sits on
the 40-pin header, and keeps off the buses the build needs.

Pure (standard library, no hardware): `profile.load` runs it on every profile,
`keystand profile check` and `keystand doctor` report it. What it guards against
is wiring that cannot work however the software behaves: two lines on one GPIO,
a key on an SPI or I2C line (the kernel's bus driver owns those), a pin that is
not on the header (GPIO0 and GPIO1 are the HAT ID EEPROM's I2C lines; 28 and up
are not brought out).

A simulated build (`driver = "sim"`) wires no panel, so only its keys, if any,
are planned.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from .rules import KeystandError

HEADER_GPIOS = range(2, 28)  # BCM GPIO2..GPIO27 on the 40-pin header

# BCM GPIO -> physical pin of the 40-pin header (the same on every 40-pin Pi).
HEADER_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27,
    5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16,
    24: 18, 25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}  # fmt: skip

# The buses' own lines, by what needs them.
SPI0 = {10: "SPI0 MOSI", 9: "SPI0 MISO", 11: "SPI0 SCLK", 8: "SPI0 CE0", 7: "SPI0 CE1"}
I2C1 = {2: "I2C1 SDA", 3: "I2C1 SCL"}
UART0 = {14: "UART TXD", 15: "UART RXD"}
CHIP_SELECTS = {0: 8, 1: 7}  # spi_device -> its CE line on SPI0
# Serial ports that are the header's UART (GPIO14/15), not a USB device.
UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0", "/dev/ttyAMA10")


class PinClash(KeystandError, ValueError):
    """A GPIO with two uses, or a use on a pin that is not a header GPIO."""

    def __init__(self, pin: int, detail: str) -> None:
        self.pin, self.detail = pin, detail
        super().__init__(f"GPIO {pin}: {detail}")


# What the plan reads of a profile (profile.Profile has these fields).
class PanelLines(Protocol):
    @property
    def spi_device(self) -> int: ...
    @property
    def rst(self) -> int: ...
    @property
    def dc(self) -> int: ...
    @property
    def busy(self) -> int: ...
    @property
    def pwr(self) -> int: ...


class _Stand(Protocol):
    @property
    def driver(self) -> str: ...


class _Input(Protocol):
    """The input kinds' wiring, each as its kind declares it (profile.Input)."""

    def buses(self) -> Iterable[Use]: ...
    def lines(self) -> Iterable[Use]: ...


class Wired(Protocol):
    @property
    def stand(self) -> _Stand: ...
    @property
    def panels(self) -> Mapping[str, PanelLines]: ...
    @property
    def input(self) -> _Input: ...


@dataclass(frozen=True)
class Use:
    """One GPIO and what it is for ("seat A panel dc", "SPI0 MOSI")."""

    pin: int
    what: str

    @property
    def where(self) -> str:
        """The pin as a builder finds it: GPIO and header pin."""
        header = HEADER_PIN.get(self.pin)
        return f"GPIO{self.pin}" + (f" (pin {header})" if header else " (not on the header)")


def needs_spi(profile: Wired) -> bool:
    return profile.stand.driver == "waveshare"


def uses(profile: Wired) -> Iterator[Use]:
    """Every GPIO the build wires: the buses (the panels', then each input
    kind's), then each seat's panel lines, then each input kind's lines."""
    if needs_spi(profile):
        for pin, what in SPI0.items():
            yield Use(pin, what)
    yield from profile.input.buses()
    if needs_spi(profile):
        for seat, panel in profile.panels.items():
            lines = {"rst": panel.rst, "dc": panel.dc, "busy": panel.busy, "pwr": panel.pwr}
            for name, pin in lines.items():
                if name != "pwr" or pin >= 0:  # pwr -1: always powered, no line
                    yield Use(pin, f"seat {seat} panel {name}")
    yield from profile.input.lines()


def check(profile: Wired) -> list[Use]:
    """The plan, or PinClash naming the first pin that is wrong and its uses.

    A panel's chip select is SPI0 CE0 or CE1: two panels on one CE clash there."""
    taken: dict[int, Use] = {}
    plan: list[Use] = []
    selects: dict[int, str] = {}
    if needs_spi(profile):
        for seat, panel in profile.panels.items():
            cs = CHIP_SELECTS[panel.spi_device]
            here = f"seat {seat} panel CE{panel.spi_device}"
            if cs in selects:
                raise PinClash(cs, f"{selects[cs]} and {here} (one panel per chip select)")
            selects[cs] = here
    for use in uses(profile):
        if use.pin not in HEADER_GPIOS:
            raise PinClash(
                use.pin,
                f"{use.what}: not a header GPIO (BCM 2..27; 0 and 1 are the HAT ID EEPROM lines)",
            )
        if use.pin in taken:
            first = taken[use.pin]
            # The panel's own chip select is its CE line: the bus use says which seat.
            first_what = selects.get(use.pin, first.what) if use.pin in (7, 8) else first.what
            raise PinClash(use.pin, f"{first_what} and {use.what}")
        taken[use.pin] = use
        plan.append(use)
    return plan


__all__ = ["HEADER_PIN", "PinClash", "Use", "Wired", "check", "uses"]
