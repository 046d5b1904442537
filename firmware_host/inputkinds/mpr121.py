"""`mpr121`: the touch grid on I2C, MPR121 chips under the mat
(drivers/inputs/mpr121.py). Its table, `[input.mpr121]`, gives the bus, the
thresholds and the electrode map: either `pads = {"0x5A" = [cell of electrode
0, ...], ...}` (one pad per cell, up to three chips) or `address`, `rows` and
`cols` (five row and five column strips on one chip); cells are row * cols +
col of the game's grid (row * 5 + col on Codenames' 5x5), -1 for an unused
electrode."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers import PI_INSTALL, factory
from keystand.drivers.inputs import InputDriver

from .. import schema
from ..pins import I2C1, Use
from ..schema import setting
from .base import Built, Check, Probe, TouchGrid, Wiring

MAP_KEYS = ("pads", "address", "rows", "cols")  # the electrode map's, beside the settings
I2C_FIX = (
    "enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in "
    "/boot/firmware/config.txt), then reboot"
)


@dataclass(frozen=True)
class Mpr121:
    """[input.mpr121]: the touch grid on I2C (see the module doc)."""

    bus: int = setting(1, between=(0, 20), doc="/dev/i2c-N")
    touch_threshold: int = setting(12, between=(1, 255))
    release_threshold: int = setting(6, between=(1, 255))
    poll: float = setting(0.01, between=(0.001, 1), unit="seconds")
    irq: int = setting(-1, between=(-1, 27), doc="the chips' IRQ line (BCM GPIO); -1: polled")
    electrodes: dict[str, Any] = field(default_factory=dict)  # pads, or address/rows/cols


class Mpr121Grid(TouchGrid[Mpr121]):
    name = "mpr121"
    about = "the touch grid: MPR121 chips on I2C"
    table = "mpr121"
    settings = Mpr121
    needs = "[input.mpr121] with its electrode map"
    lines_word = ""  # its interrupt line: part of the I2C1 device the summary names

    def read(self, table: Any, where: str) -> Mpr121:
        if not isinstance(table, dict):
            raise schema.SchemaError(where, "expected a table")
        given = {k: v for k, v in table.items() if k not in MAP_KEYS}
        settings = schema.build(Mpr121, given, where)
        electrodes = {k: table[k] for k in MAP_KEYS if k in table}
        if settings.release_threshold >= settings.touch_threshold:
            raise schema.SchemaError(
                f"{where}.release_threshold",
                f"{settings.release_threshold}: must be below touch_threshold "
                f"{settings.touch_threshold}",
            )
        from keystand.drivers.inputs.mpr121 import electrode_map  # pure: no I2C at import

        try:
            electrode_map(electrodes)
        except ValueError as e:
            raise schema.SchemaError(where, str(e)) from None
        return replace(settings, electrodes=electrodes)

    def buses(self, settings: Mpr121) -> Iterable[Use]:
        # Only bus 1 has its pins fixed (GPIO2, GPIO3); another is an overlay's,
        # on the pins its dtoverlay line names.
        if settings.bus == 1:
            for pin, what in I2C1.items():
                yield Use(pin, what)

    def bus_names(self, settings: Mpr121) -> Iterable[str]:
        return (f"I2C{settings.bus}",)

    def lines(self, settings: Mpr121) -> Iterable[Use]:
        if settings.irq >= 0:
            yield Use(settings.irq, "MPR121 irq")

    def groups(self, settings: Mpr121) -> Iterable[str]:
        return ("i2c", "gpio") if settings.irq >= 0 else ("i2c",)

    def modules(self, settings: Mpr121) -> Iterable[tuple[str, str]]:
        smbus = ("smbus2", "the MPR121's I2C")
        if settings.irq >= 0:
            return (smbus, ("lgpio", "gpiozero's pins on a Pi"))
        return (smbus,)

    def doctor(self, settings: Mpr121, probe: Probe) -> Iterator[Check]:
        """The bus opens, each chip of the map answers as an MPR121; and whether
        the driver waits on the IRQ line or polls."""
        yield from self._chips(settings, probe)
        yield _irq(settings)

    def _chips(self, settings: Mpr121, probe: Probe) -> Iterator[Check]:
        from keystand.drivers.inputs.mpr121 import (
            CONFIG2,
            CONFIG2_AFTER_RESET,
            CONFIG2_VALUE,
            electrode_map,
        )

        device = f"/dev/i2c-{settings.bus}"
        check = probe.device(device, "I2C", I2C_FIX)
        yield check
        if not check.ok:
            return
        try:
            bus = probe.open_i2c(probe.path(device))
        except ImportError:
            yield Check("MPR121", False, f"smbus2 is missing: {PI_INSTALL}")
            return
        except OSError as e:
            yield Check("MPR121", False, f"{device}: {probe.open_failed(e)}")
            return
        try:
            for address in electrode_map(settings.electrodes).addresses:
                yield _chip(bus, address, CONFIG2, (CONFIG2_AFTER_RESET, CONFIG2_VALUE))
        finally:
            bus.close()

    def _options(self, settings: Mpr121, wiring: Wiring) -> dict[str, Any]:
        return {
            **wiring.grid_options(),
            "electrodes": settings.electrodes,
            "bus": settings.bus,
            "touch_threshold": settings.touch_threshold,
            "release_threshold": settings.release_threshold,
            "poll": settings.poll,
            "irq": settings.irq if settings.irq >= 0 else None,
            "pin_factory": wiring.pins,
        }

    def build(self, settings: Mpr121, wiring: Wiring) -> InputDriver:
        return factory.make_input(self.name, **self._options(settings, wiring))

    def emulate(self, settings: Mpr121, wiring: Wiring) -> Built:
        from keystand.drivers.inputs.emulated import GridTwin

        assert wiring.emulate is not None
        driver, hardware = factory.make_emulated_grid(
            self.name, folder=wiring.emulate, noise=wiring.noise, **self._options(settings, wiring)
        )
        tapped = factory.tapped(driver)
        return Built(tapped, GridTwin(tapped, hardware), hardware)


def _chip(bus: Any, address: int, config2: int, values: tuple[int, int]) -> Check:
    name = f"MPR121 at 0x{address:02X}"
    try:
        value = bus.read_byte_data(address, config2)
    except OSError:
        return Check(
            name,
            False,
            "no answer: check SDA to GPIO2 (pin 3), SCL to GPIO3 (pin 5), 3V3, GND "
            "and its ADDR pin (0x5A GND, 0x5B 3V3, 0x5C SDA, 0x5D SCL)",
        )
    if value in values:
        return Check(name, True, f"answers (CONFIG2 0x{value:02X})")
    return Check(
        name,
        False,
        f"answers, but CONFIG2 reads 0x{value:02X}, not an MPR121's 0x24 after "
        "reset: another device at this address?",
    )


def _irq(settings: Mpr121) -> Check:
    """Which wait the driver uses: the chips' IRQ line, or polling."""
    if settings.irq < 0:
        return Check(
            "MPR121 IRQ",
            True,
            f"not wired: the chips are read every {settings.poll * 1000:g} ms, touched or not "
            "(wire IRQ to a free GPIO and set irq under [input.mpr121] to wait on it)",
        )
    where = Use(settings.irq, "").where
    return Check("MPR121 IRQ", True, f"{where}: the driver waits on the chips' IRQ line")


KIND = Mpr121Grid()
