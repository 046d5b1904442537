"""Seat keys: gpiozero `Button`s, one per key, emitting `press SEAT KEY [long]`.

Each key is decided when it is let go (a short press) or when it has been
held for `hold_time` (a long press, at once, so the player feels the menu
open under the finger); a key never gives both. Debouncing is ours, not the
pin backend's: a backend that drops edges inside its bounce time can miss a
release and leave a button stuck pressed, while this rule only ever ignores
whole presses:

- a press shorter than `bounce_time` is contact chatter, not a press;
- a press that starts less than `bounce_time` after a counted press was let
  go is the same press chattering (or a contact that opened for a moment).

gpiozero is imported only in `start`, so a desktop without it can still load
this module; `pin_factory` is gpiozero's (a `MockFactory` in tests and under
`--emulate`), and None leaves gpiozero to pick its own on first use.

Each key is a plain `DigitalInputDevice`, not a `Button`: gpiozero gives every
`Button` a thread of its own that wakes ten times a second for ever to look
for a hold (its `HoldThread`), 80 wake-ups a second for a stand's eight keys
with nobody at the table (issue 33). The hold is timed here instead, by one
timer for the press that is down, started when it goes down and cancelled when
it is let go: a stand with no key down keeps no thread of its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..gpio import GpioClaimError, GpioTrouble, diagnose, keep_cwd
from .base import Emit, Health, HealthReport, InputDriver, InputError, Report
from .events import SEATS, KeyName, Press

BCM_PINS = range(28)  # GPIO0..GPIO27 on the 40-pin header


def check_keys(pins: Mapping[str, Mapping[str, int]]) -> dict[tuple[str, KeyName], int]:
    """The profile's key map ({seat: {key name: BCM pin}}) as {(seat, key): pin};
    ValueError names the seat, key or pin that is wrong."""
    if not isinstance(pins, Mapping) or not pins:
        raise ValueError(f"seat keys {pins!r}: expected {{seat: {{key: BCM pin}}}}")
    out: dict[tuple[str, KeyName], int] = {}
    used: dict[int, str] = {}
    for seat, keys in pins.items():
        if seat not in SEATS:
            raise ValueError(f"seat keys: seat {seat!r} is not A or B")
        if not isinstance(keys, Mapping):
            raise ValueError(f"seat keys {seat}: expected {{key: BCM pin}}, not {keys!r}")
        for name, pin in keys.items():
            try:
                key = KeyName(name)
            except ValueError:
                names = ", ".join(k.value for k in KeyName)
                raise ValueError(f"seat keys {seat}: key {name!r} is not one of {names}") from None
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in BCM_PINS:
                raise ValueError(f"seat keys {seat} {name}: pin {pin!r} is not a BCM GPIO 0..27")
            label = f"{seat} {name}"
            if pin in used:
                raise ValueError(f"seat keys: GPIO{pin} is given to both {used[pin]} and {label}")
            used[pin] = label
            out[(seat, key)] = pin
    return out


class KeyPinError(InputError, GpioClaimError):
    """A key's GPIO line cannot be had; `trouble` says why (see keystand.drivers.gpio),
    `pin` and `chip` where."""

    def __init__(
        self, message: str, trouble: GpioTrouble, *, pin: int, chip: str | None = None
    ) -> None:
        super().__init__(message, pin=pin, trouble=trouble, chip=chip)


class _Key:
    """One key's press rule (see the module doc); gpiozero calls it from its
    own threads and the hold timer from its own, so each key has a lock."""

    def __init__(
        self,
        seat: str,
        key: KeyName,
        bounce: float,
        hold: float,
        clock: Callable[[], float],
        emit: Emit,
    ) -> None:
        self.seat, self.key, self.bounce, self.hold = seat, key, bounce, hold
        self.clock, self.emit = clock, emit
        self.lock = threading.Lock()
        self.down: float | None = None  # when the press being decided began
        self.ignoring = False  # the press now down is chatter of the last one
        self.long_sent = False
        self.counted_up = float("-inf")  # when a counted press was let go
        self.live = True
        self.timer: threading.Timer | None = None  # the hold of the press that is down

    def pressed(self) -> None:
        with self.lock:
            now = self.clock()
            if self.down is not None or self.ignoring or not self.live:
                return
            if now - self.counted_up < self.bounce:
                self.ignoring = True
                return
            self.down, self.long_sent = now, False
            self._cancel()
            self.timer = threading.Timer(self.hold, self.held, (now,))
            self.timer.name = f"key-{self.seat}-{self.key.value}-hold"
            self.timer.daemon = True
            self.timer.start()

    def held(self, since: float) -> None:
        """The hold timer of the press that went down at `since` ran out."""
        with self.lock:
            if self.down != since or self.long_sent or not self.live:
                return  # let go meanwhile (a timer cancelled too late), or stopped
            self.long_sent = True
            self.timer = None
            self.emit(Press(self.seat, self.key, long=True))

    def released(self) -> None:
        with self.lock:
            now = self.clock()
            if self.ignoring:
                self.ignoring = False
                return
            if self.down is None:
                return
            self._cancel()
            lasted, self.down = now - self.down, None
            if self.long_sent:
                self.counted_up = now
            elif lasted >= self.bounce:
                self.counted_up = now
                if self.live:
                    self.emit(Press(self.seat, self.key))

    def close(self) -> None:
        with self.lock:
            self.live = False
            self._cancel()

    def _cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class SeatKeys(InputDriver):
    """Both seats' keys as gpiozero input devices (wired to ground, internal
    pull-up unless `pull_up` is False)."""

    name = "keys"

    def __init__(
        self,
        pins: Mapping[str, Mapping[str, int]],
        *,
        hold_time: float = 1.0,
        bounce_time: float = 0.03,
        pull_up: bool = True,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pins = check_keys(pins)
        if isinstance(hold_time, bool) or not (
            isinstance(hold_time, int | float) and 0 < hold_time <= 10
        ):
            raise ValueError(f"seat keys hold_time {hold_time!r}: seconds, above 0 and up to 10")
        if isinstance(bounce_time, bool) or not (
            isinstance(bounce_time, int | float) and 0 <= bounce_time < hold_time
        ):
            raise ValueError(
                f"seat keys bounce_time {bounce_time!r}: seconds, at least 0 and below "
                f"hold_time {hold_time}"
            )
        self.hold_time = float(hold_time)
        self.bounce_time = float(bounce_time)
        self.pull_up = pull_up
        self.pin_factory = pin_factory
        self.clock = clock
        self._buttons: list[Any] = []
        self._keys: list[_Key] = []

    def start(self, emit: Emit, report: Report) -> None:
        """Claim the pins; raises InputError naming the key whose pin cannot be had."""
        import warnings

        # Not `Button`: its hold thread polls ten times a second (the module doc).
        from gpiozero import DigitalInputDevice  # only a build with keys needs gpiozero

        try:
            for (seat, key), pin in self.pins.items():
                state = _Key(seat, key, self.bounce_time, self.hold_time, self.clock, emit)
                try:
                    with warnings.catch_warnings(), keep_cwd():
                        # gpiozero warns of each pin library it tries and passes
                        # over; the error below says it once if none would do.
                        warnings.simplefilter("ignore")
                        button = DigitalInputDevice(
                            pin,
                            pull_up=self.pull_up,
                            bounce_time=None,  # ours, see the module doc
                            pin_factory=self.pin_factory,
                        )
                except Exception as e:  # gpiozero's and lgpio's errors share no root
                    found = diagnose(e)
                    if found is None:
                        raise
                    raise KeyPinError(
                        f"seat {seat} key {key.value} on GPIO{pin}: {found.detail}",
                        found.trouble,
                        pin=pin,
                        chip=found.chip,
                    ) from e
                button.when_activated = state.pressed
                button.when_deactivated = state.released
                self._buttons.append(button)
                self._keys.append(state)
        except InputError:
            self.stop()
            raise
        report(HealthReport(self.name, Health.CONNECTED, f"{len(self._buttons)} keys"))

    def stop(self) -> None:
        for key in self._keys:
            key.close()
        for button in self._buttons:
            button.close()
        self._buttons.clear()
        self._keys.clear()

    def pin_of(self, seat: str, key: KeyName | str) -> int:
        """The BCM pin of one seat's key (for `--emulate`, which presses it)."""
        try:
            return self.pins[(seat, KeyName(key))]
        except (KeyError, ValueError):
            raise KeyError(f"seat {seat} has no key {key!r}") from None
