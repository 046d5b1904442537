"""The interface every input driver shares: start with an emit callback, stop,
and health reports the screens can show.

A driver turns something at the table (a key, a finger on the grid, a script
line, a click on the simulator page) into `InputEvent`s and hands each to
`emit` from its own thread; it knows nothing of the rules. A driver whose
device can come and go (a serial grid that is unplugged, an I2C chip that stops
answering) says so through `report`: the service shows it on the screens, and
the driver keeps trying by itself.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable
from dataclasses import dataclass

from keystand.errors import KeystandError

from .events import InputEvent


class InputError(KeystandError):
    """An input device that cannot be used as configured (no such port, no chip)."""


class Health(enum.Enum):
    """How an input device is doing, as the screens say it."""

    CONNECTED = "connected"  # answered at start
    LOST = "lost"  # stopped answering (unplugged, a chip gone quiet)
    BACK = "back"  # answers again after being lost


@dataclass(frozen=True)
class HealthReport:
    """One change of an input device's health: which device, and in words what
    to check (`detail`, short enough for a status line)."""

    source: str
    health: Health
    detail: str = ""


Emit = Callable[[InputEvent], None]
Report = Callable[[HealthReport], None]


class InputDriver(abc.ABC):
    """One source of input events. `start` returns at once (the driver runs in
    its own thread, or in callbacks of its library); `stop` ends it and returns
    once no more events will be emitted. Neither raises for a device that is
    missing at run time: that is a `Health.LOST` report."""

    name: str = "input"

    @abc.abstractmethod
    def start(self, emit: Emit, report: Report) -> None:
        """Begin emitting events to `emit` and health changes to `report`."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Stop emitting; release the device."""
