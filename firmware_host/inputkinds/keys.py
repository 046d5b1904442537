"""`keys`: each seat's four keys (clue, pass, undo, menu) on GPIO, as gpiozero
Buttons (drivers/inputs/keys.py). Its table, `[input.keys]`, gives their
timing, and `[input.keys.A]` / `[input.keys.B]` each key's BCM GPIO."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from keystand.drivers import factory
from keystand.drivers.inputs import InputDriver, KeyName
from keystand.drivers.inputs.events import SEATS

from .. import schema
from ..pins import Use
from ..schema import setting
from .base import Built, InputKind, Wiring, Word

KEY_NAMES = tuple(k.value for k in KeyName)  # a seat's four keys, as labelled


@dataclass(frozen=True)
class Keys:
    """[input.keys]: the seats' keys; [input.keys.A] / [input.keys.B] give each
    key's BCM GPIO (`clue`, `pass`, `undo`, `menu`; wired to ground)."""

    hold_time: float = setting(1.0, between=(0.2, 10), unit="seconds", doc="a long press")
    bounce_time: float = setting(0.03, between=(0, 0.5), unit="seconds", doc="contact chatter")
    pull_up: bool = setting(True, doc="keys switch to ground (the HAT's); false: to 3V3")
    pins: dict[str, dict[str, int]] = field(default_factory=dict)  # {seat: {key: GPIO}}


class SeatKeys(InputKind[Keys]):
    name = "keys"
    about = "the seats' keys on GPIO (gpiozero Buttons)"
    clue = True
    word = Word.CURSOR  # with no grid, the guesser's cursor (docs/buttons-only.md)
    table = "keys"
    settings = Keys
    needs = "[input.keys.A] and [input.keys.B]"
    lines_word = "keys"  # a line a key

    def read(self, table: Any, where: str) -> Keys:
        if not isinstance(table, dict):
            raise schema.SchemaError(where, "expected a table")
        pins: dict[str, dict[str, int]] = {}
        for seat in SEATS:
            seat_table = table.get(seat)
            here = f"{where}.{seat}"
            if not isinstance(seat_table, dict):
                raise schema.SchemaError(here, f"expected a table of {', '.join(KEY_NAMES)} (GPIO)")
            for name, pin in seat_table.items():
                if name not in KEY_NAMES:
                    raise schema.SchemaError(
                        f"{here}.{name}", f"unknown key (expected {schema.or_list(KEY_NAMES)})"
                    )
                if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 27:
                    raise schema.SchemaError(f"{here}.{name}", f"{pin!r}: expected a GPIO 0..27")
            missing = [k for k in KEY_NAMES if k not in seat_table]
            if missing:
                raise schema.SchemaError(here, f"no GPIO for {schema.or_list(missing)}")
            pins[seat] = dict(seat_table)
        timing = {k: v for k, v in table.items() if k not in SEATS}
        return replace(schema.build(Keys, timing, where), pins=pins)

    def lines(self, settings: Keys) -> Iterable[Use]:
        for seat, seat_keys in settings.pins.items():
            for name, pin in seat_keys.items():
                yield Use(pin, f"seat {seat} key {name}")

    def groups(self, settings: Keys) -> Iterable[str]:
        return ("gpio",)

    def modules(self, settings: Keys) -> Iterable[tuple[str, str]]:
        return (("lgpio", "gpiozero's pins on a Pi"),)

    def build(self, settings: Keys, wiring: Wiring) -> InputDriver:
        return factory.make_input(
            "keys",
            pins=settings.pins,
            hold_time=settings.hold_time,
            bounce_time=settings.bounce_time,
            pull_up=settings.pull_up,
            pin_factory=wiring.pins,
        )

    def emulate(self, settings: Keys, wiring: Wiring) -> Built:
        from keystand.drivers.inputs.emulated import KeysTwin

        tapped = factory.tapped(self.build(settings, wiring))
        return Built(tapped, KeysTwin(tapped, wiring.pins))


KIND = SeatKeys()
