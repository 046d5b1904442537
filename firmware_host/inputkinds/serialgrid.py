"""`serial-grid`: the touch grid's own board on USB serial (or the header's
UART), read with pyserial (drivers/inputs/serialgrid.py). Its table,
`[input.serial]`, gives the port and the baud rate."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from keystand.drivers import factory
from keystand.drivers.inputs import InputDriver

from .. import schema
from ..pins import UART0, UART_PORTS, Use
from ..schema import setting
from .base import Built, Check, Probe, TouchGrid, Wiring

# The URL handlers pyserial ships (serial.protocol_handler_packages' `protocol_*`
# modules); anything else fails only at the table ("protocol ... not known").
SERIAL_URL_SCHEMES = ("socket", "rfc2217", "loop", "spy", "hwgrep", "alt", "cp2110")


def _serial_port(port: str) -> str | None:
    """A device's absolute path, or a pyserial URL (`socket://`, `rfc2217://`: a grid
    reached over the network, or the tests' loop): a bare `ttyACM0` or an empty
    string would be opened relative to the service's folder, and fail at the table."""
    scheme = port.split("://", 1)[0] if "://" in port else None
    if port.startswith("/") or scheme in SERIAL_URL_SCHEMES:
        return None
    return (
        f"{schema.toml(port)}: expected a device path such as /dev/ttyACM0 or a pyserial "
        f"URL ({', '.join(f'{s}://' for s in SERIAL_URL_SCHEMES)})"
    )


@dataclass(frozen=True)
class Serial:
    """[input.serial]: the touch grid's controller on USB serial."""

    port: str = setting("/dev/ttyACM0", check=_serial_port, doc="better a /dev/serial/by-id/ name")
    baudrate: int = setting(115200, choices=(9600, 57600, 115200, 230400, 460800, 921600))


def on_uart(port: str) -> bool:
    """The header's UART (GPIO14/15), not a USB device."""
    return port in UART_PORTS or port.startswith("/dev/ttyAMA")


class SerialTouchGrid(TouchGrid[Serial]):
    name = "serial-grid"
    about = "the touch grid's board on USB serial"
    table = "serial"
    settings = Serial
    needs = "[input.serial]"

    def buses(self, settings: Serial) -> Iterable[Use]:
        if on_uart(settings.port):
            for pin, what in UART0.items():
                yield Use(pin, what)

    def bus_names(self, settings: Serial) -> Iterable[str]:
        return ("UART",) if on_uart(settings.port) else ()

    def groups(self, settings: Serial) -> Iterable[str]:
        return ("dialout",)

    def modules(self, settings: Serial) -> Iterable[tuple[str, str]]:
        return (("serial", "the grid's serial port (pyserial)"),)

    def doctor(self, settings: Serial, probe: Probe) -> Iterator[Check]:
        port = settings.port
        if not port.startswith("/"):
            yield Check(f"serial {port}", True, "not a device path (a pyserial URL): not checked")
            return
        fix = "plug in the grid (ls /dev/serial/by-id/ names it)"
        yield probe.device(port, "the touch grid", fix)

    def _options(self, settings: Serial, wiring: Wiring) -> dict[str, Any]:
        return {**wiring.grid_options(), "port": settings.port, "baudrate": settings.baudrate}

    def build(self, settings: Serial, wiring: Wiring) -> InputDriver:
        return factory.make_input(self.name, **self._options(settings, wiring))

    def emulate(self, settings: Serial, wiring: Wiring) -> Built:
        from keystand.drivers.inputs.emulated import GridTwin

        assert wiring.emulate is not None
        driver, hardware = factory.make_emulated_grid(
            self.name, folder=wiring.emulate, noise=wiring.noise, **self._options(settings, wiring)
        )
        tapped = factory.tapped(driver)
        return Built(tapped, GridTwin(tapped, hardware), hardware)


KIND = SerialTouchGrid()
