"""The one place a driver is chosen by name: a profile says `sim` or `waveshare`
(its panels) and `simulator`, `script`, `keyboard`, `keys`, `mpr121` or
`serial-grid` (its inputs), and this module finds the class.

Each entry names its class as "module:Class" and is imported only when asked for,
so a desktop run never imports a hardware library, and the host never names a
concrete driver class. A driver added later is its module and one entry here
(and one in `EMULATORS` for a panel that runs over emulated hardware), plus, in
the host, a panel's name among a profile's allowed values and the code that
builds it, or an input's kind module (docs/drivers.md, "Adding a driver" and
"Adding an input kind").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from keystand.errors import KeystandError

from .display.base import Panel
from .inputs.base import InputDriver


class DriverError(KeystandError, LookupError):
    """A driver name no entry has, or a driver whose module cannot be imported
    on this machine (a Pi-only library missing)."""


@dataclass(frozen=True)
class Entry:
    """A driver by name: where its class lives and what it is for."""

    name: str
    target: str  # "module:Class", the module relative to keystand.drivers
    about: str

    def load(self) -> type:
        module_name, _, class_name = self.target.partition(":")
        try:
            module = importlib.import_module(f"{__package__}.{module_name}")
        except ImportError as e:
            raise DriverError(
                f"driver {self.name!r} needs {e.name or 'a module'} (not installed here: {e})"
            ) from e
        cls: type = getattr(module, class_name)
        return cls


PANELS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry("sim", "display.sim:SimPanel", "simulated panel: PNG frames, real timing"),
        Entry("waveshare", "display.waveshare:WavesharePanel", "Waveshare panel on SPI + GPIO"),
    )
}

# Panels whose real driver can run over emulated hardware (`--emulate`).
EMULATORS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "waveshare",
            "display.emulator:emulated_waveshare",
            "the real Waveshare driver over an emulated controller and MockFactory pins",
        ),
    )
}

INPUTS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry("simulator", "inputs.simulator:SimulatorPage", "the simulator page on loopback"),
        Entry("script", "inputs.script:ScriptInput", "script lines (--script FILE)"),
        Entry("keyboard", "inputs.keyboard:KeyboardInput", "touch/press lines typed on stdin"),
        Entry("keys", "inputs.keys:SeatKeys", "the seats' keys on GPIO (gpiozero Buttons)"),
        Entry("mpr121", "inputs.mpr121:MPR121Grid", "the touch grid: MPR121 chips on I2C"),
        Entry(
            "serial-grid", "inputs.serialgrid:SerialGrid", "the touch grid's board on USB serial"
        ),
    )
}


def _entry(table: dict[str, Entry], kind: str, name: str) -> Entry:
    try:
        return table[name]
    except KeyError:
        raise DriverError(f"{kind} driver {name!r}: expected one of {', '.join(table)}") from None


def panel_class(name: str) -> type[Panel]:
    cls = _entry(PANELS, "panel", name).load()
    if not issubclass(cls, Panel):
        raise TypeError(f"panel driver {name!r}: {cls!r} is not a Panel")
    return cls


def input_class(name: str) -> type[InputDriver]:
    cls = _entry(INPUTS, "input", name).load()
    if not issubclass(cls, InputDriver):
        raise TypeError(f"input driver {name!r}: {cls!r} is not an InputDriver")
    return cls


def make_panel(driver: str, model: str, *, rotation: int = 0, **options: Any) -> Panel:
    """A panel of `model` by the driver named `driver`, with its own options.
    Wired drivers take their pins as `wiring={"rst": 17, "dc": 25, ...}`."""
    if "wiring" in options:
        options["wiring"] = _wiring(options["wiring"])
    return panel_class(driver)(model, rotation=rotation, **options)


def make_emulated_panel(
    driver: str, model: str, *, rotation: int = 0, **options: Any
) -> tuple[Panel, Any]:
    """The real driver named `driver` over emulated hardware: (panel, the emulated
    hardware, whose `shown` is what its controller decoded)."""
    entry = EMULATORS.get(driver)
    if entry is None:
        raise DriverError(
            f"panel driver {driver!r} has no emulated hardware (--emulate runs a Pi profile's "
            f"real drivers: {', '.join(EMULATORS)})"
        )
    if "wiring" in options:
        options["wiring"] = _wiring(options["wiring"])
    if isinstance(options.get("fault"), str):
        from .display.emulator import Fault

        options["fault"] = Fault(options["fault"])
    make: Any = entry.load()
    panel, hardware = make(model, rotation=rotation, **options)
    return panel, hardware


def emulated_pins() -> Any:
    """The pin factory emulated hardware shares: gpiozero's MockFactory (its
    panels' and keys' pins on one header, as on the Pi)."""
    from gpiozero.pins.mock import MockFactory

    return MockFactory()


def _wiring(pins: dict[str, Any]) -> Any:
    from .display.hal import Wiring

    return Wiring(**pins)


def make_input(kind: str, **options: Any) -> InputDriver:
    """An input driver by name, with the options that kind takes."""
    return input_class(kind)(**options)


def make_emulated_grid(
    kind: str, *, folder: Any, noise: bool = False, **options: Any
) -> tuple[InputDriver, Any]:
    """The real grid driver named `kind` over emulated hardware (`--emulate`):
    (driver, hardware with `press(cells)`, `lift()`, `close()`); `noise` mixes
    garbage into what the hardware says (`--emulate-fault grid:noise`)."""
    from .inputs.emulated import emulated_grid

    return emulated_grid(
        kind, folder=folder, noise=noise, options=options, driver_class=input_class(kind)
    )


def make_emulated_script(steps: Any, **options: Any) -> InputDriver:
    """A script played on emulated keys and grid (`inputs.emulated.EmulatedScript`)."""
    from .inputs.emulated import EmulatedScript

    return EmulatedScript(steps, **options)


def tapped(driver: InputDriver) -> Any:
    """`driver` with its events also queued, for the emulated script to wait on."""
    from .inputs.emulated import Tapped

    return Tapped(driver)
