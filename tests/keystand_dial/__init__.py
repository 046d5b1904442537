"""A test-only input kind: a rotary encoder with a push switch at each seat, in
one module and one entry point, as an input kind packaged apart from keystand
is (docs/drivers.md, "Adding an input kind", walks through it).

Installed for a test by `dial_plugin.install` (a distribution's metadata naming
`dial = keystand_dial:KIND` in the `keystand.inputs` entry points). It stands
in for a seat's four keys: a detent clockwise is the clue key, one
anticlockwise the pass key, a push the undo key and a push held the menu key
held; so, as keys alone, it gives clues and picks words with the cursor.

    [input]
    kinds = ["dial"]

    [input.dial]
    hold_time = 1.0     # seconds: a held push

    [input.dial.A]      # BCM GPIOs of the encoder's A and B lines and its switch
    a = 5
    b = 6
    push = 13
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from keystand import schema
from keystand.drivers.inputs import (
    Emit,
    Health,
    HealthReport,
    InputDriver,
    InputEvent,
    KeyName,
    Press,
    Report,
)
from keystand.drivers.inputs.emulated import TAKEN_WITHIN, Tapped, Twin
from keystand.inputkinds import Built, Check, InputKind, Probe, Wiring, Word
from keystand.pins import Use
from keystand.schema import setting

SEATS = ("A", "B")
LINES = ("a", "b", "push")
TURNS = {KeyName.CLUE: "clockwise", KeyName.PASS: "anticlockwise"}


@dataclass(frozen=True)
class Dial:
    """[input.dial]: the seats' dials; [input.dial.A] / [input.dial.B] their GPIOs."""

    hold_time: float = setting(1.0, between=(0.2, 10), unit="seconds", doc="a held push")
    pins: dict[str, dict[str, int]] = field(default_factory=dict)  # {seat: {line: GPIO}}


class DialDriver(InputDriver):
    """Both seats' dials as gpiozero's RotaryEncoder and Button."""

    name = "dial"

    def __init__(self, pins: dict[str, dict[str, int]], hold_time: float, pin_factory: Any) -> None:
        self.pins, self.hold_time, self.pin_factory = pins, hold_time, pin_factory
        self._devices: list[Any] = []

    def start(self, emit: Emit, report: Report) -> None:
        from gpiozero import Button, RotaryEncoder  # only a build with dials needs gpiozero

        for seat, lines in self.pins.items():
            dial = RotaryEncoder(lines["a"], lines["b"], max_steps=0, pin_factory=self.pin_factory)
            dial.when_rotated_clockwise = lambda s=seat: emit(Press(s, KeyName.CLUE))
            dial.when_rotated_counter_clockwise = lambda s=seat: emit(Press(s, KeyName.PASS))
            push = Button(lines["push"], hold_time=self.hold_time, pin_factory=self.pin_factory)
            _Push(seat, push, emit)
            self._devices += [dial, push]
        report(HealthReport(self.name, Health.CONNECTED, f"{len(self.pins)} dials"))

    def stop(self) -> None:
        for device in self._devices:
            device.close()
        self._devices.clear()


class _Push:
    """A seat's push switch: undo when let go, menu (held) once held; never both."""

    def __init__(self, seat: str, button: Any, emit: Emit) -> None:
        self.seat, self.emit, self.held = seat, emit, False
        button.when_pressed = self.pressed
        button.when_held = self.hold
        button.when_released = self.released

    def pressed(self) -> None:
        self.held = False

    def hold(self) -> None:
        self.held = True
        self.emit(Press(self.seat, KeyName.MENU, long=True))

    def released(self) -> None:
        if not self.held:
            self.emit(Press(self.seat, KeyName.UNDO))


class DialTwin(Twin):
    """Plays `press SEAT clue|pass|undo` and `press SEAT menu long` on the dials'
    MockFactory pins: a detent is the encoder's four edges in quadrature."""

    def __init__(self, dials: Tapped, pins: Any, settings: Dial) -> None:
        self.dials, self.pins, self.settings = dials, pins, settings

    def takes(self, step: InputEvent) -> bool:
        if not isinstance(step, Press) or step.seat not in self.settings.pins:
            return False
        return step.long == (step.key is KeyName.MENU)

    def play(self, step: InputEvent, stop: threading.Event) -> bool:
        assert isinstance(step, Press)
        lines = {name: self.pins.pin(gpio) for name, gpio in self.settings.pins[step.seat].items()}
        if step.key in TURNS:
            first, second = ("a", "b") if step.key is KeyName.CLUE else ("b", "a")
            for name, level in ((first, 0), (second, 0), (first, 1), (second, 1)):
                (lines[name].drive_low if level == 0 else lines[name].drive_high)()
        else:
            lines["push"].drive_low()
            if step.long:  # gpiozero's hold timer runs on real time: wait for the event
                got = self.dials.next(TAKEN_WITHIN, stop)
                lines["push"].drive_high()
                return got == step
            lines["push"].drive_high()
        return self.dials.next(TAKEN_WITHIN, stop) == step


class DialKind(InputKind[Dial]):
    name = "dial"
    about = "a rotary encoder with a push switch at each seat (the tests' example kind)"
    clue = True  # clockwise is the clue key
    word = Word.CURSOR  # the keys' cursor, turned
    table = "dial"
    settings = Dial
    needs = "[input.dial.A] and [input.dial.B]"

    def read(self, table: Any, where: str) -> Dial:
        if not isinstance(table, dict):
            raise schema.SchemaError(where, "expected a table")
        pins: dict[str, dict[str, int]] = {}
        for seat in SEATS:
            lines = table.get(seat)
            if not isinstance(lines, dict) or sorted(lines) != sorted(LINES):
                raise schema.SchemaError(f"{where}.{seat}", f"expected {', '.join(LINES)} (GPIO)")
            for name, pin in lines.items():
                if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 27:
                    raise schema.SchemaError(f"{where}.{seat}.{name}", f"{pin!r}: a GPIO 0..27")
            pins[seat] = dict(lines)
        rest = {k: v for k, v in table.items() if k not in SEATS}
        return replace(schema.build(Dial, rest, where), pins=pins)

    def lines(self, settings: Dial) -> Iterable[Use]:
        for seat, lines in settings.pins.items():
            for name, pin in lines.items():
                yield Use(pin, f"seat {seat} dial {name}")

    def groups(self, settings: Dial) -> Iterable[str]:
        return ("gpio",)

    def modules(self, settings: Dial) -> Iterable[tuple[str, str]]:
        return (("lgpio", "gpiozero's pins on a Pi"),)

    def doctor(self, settings: Dial, probe: Probe) -> Iterator[Check]:
        wired = "; ".join(
            f"{seat}: " + ", ".join(f"{name} GPIO{pin}" for name, pin in lines.items())
            for seat, lines in settings.pins.items()
        )
        yield Check("dials", True, f"{wired} (turn each: keystand run shows the presses)")

    def build(self, settings: Dial, wiring: Wiring) -> InputDriver:
        return DialDriver(settings.pins, settings.hold_time, wiring.pins)

    def emulate(self, settings: Dial, wiring: Wiring) -> Built:
        from keystand.drivers import factory

        tapped = factory.tapped(self.build(settings, wiring))
        return Built(tapped, DialTwin(tapped, wiring.pins, settings))


KIND = DialKind()
