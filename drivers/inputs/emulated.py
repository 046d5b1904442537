"""`keystand run --emulate`: a script played on emulated hardware, through the
profile's real input drivers.

`press SEAT KEY [long]` drives the key's MockFactory pin to its pressed level
and back: a short press for `tap` seconds (above the bounce time, far below the
hold time), a long one until the driver has said it was held (gpiozero's hold
timer runs on real time, so waiting for the event is what makes it
deterministic). `touch R C` puts a finger on the grid cell under table cell
(R, C), as the grid driver's orientation has it now, until the driver emits the
touch, then lifts it and waits for the grid to be clear. Each line waits until
its event was taken (`Tapped` sees the driver emit it) and handled (`sync`),
so a scripted game plays the same every time. Lines with no emulated device
(`clue A`, a `touch` on a build without a grid) are emitted as the script
input does.

`emulated_grid` builds a grid driver over emulated hardware: the MPR121 chips
of `mpr121_emu` behind a fake SMBus, or the grid firmware's logic on a real
pty (`serialgrid_emu`). With `noise` the serial stream gets random bytes and
broken frames, the I2C reads transient NACKs and flipped status bits; what
the script touched is the same.
"""

from __future__ import annotations

import abc
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .base import Emit, InputDriver, Report
from .events import InputEvent, Press, Touch

if TYPE_CHECKING:  # a grid's only: a keys-only build never loads the touch filter
    from .touchfilter import Cell

log = logging.getLogger(__name__)

TAKEN_WITHIN = 10.0  # seconds an emulated press or touch gets to come out of its driver
TRIES = 3  # a touch the grid lost (noise took the link down) is tried again


class Tapped(InputDriver):
    """A driver whose events are also queued here, after the service has them."""

    def __init__(self, inner: InputDriver) -> None:
        self.inner = inner
        self.name = inner.name
        self.events: queue.Queue[InputEvent] = queue.Queue()

    def start(self, emit: Emit, report: Report) -> None:
        def tapped(event: InputEvent) -> None:
            emit(event)
            self.events.put(event)

        self.inner.start(tapped, report)

    def stop(self) -> None:
        self.inner.stop()

    def next(self, timeout: float, stop: threading.Event | None = None) -> InputEvent | None:
        """The next event it emitted, waiting up to `timeout` (less once `stop` is set)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.events.get(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                    return None


class Twin(abc.ABC):
    """A device's emulated twin: plays the script lines it `takes` on the
    emulated hardware, through the real driver, and says whether the driver
    gave the event back (each kind's module makes its own: docs/drivers.md)."""

    @abc.abstractmethod
    def takes(self, step: InputEvent) -> bool:
        """Whether this device can play `step` (else the next twin, or the
        script emits it as it is)."""

    @abc.abstractmethod
    def play(self, step: InputEvent, stop: threading.Event) -> bool:
        """Play it and wait for the driver's event; True if it came out as `step`."""


class KeysTwin(Twin):
    """`press SEAT KEY [long]` on the seat keys' MockFactory pins."""

    def __init__(self, keys: Tapped, pins: Any, tap: float = 0.05) -> None:
        self.keys, self.pins, self.tap = keys, pins, tap

    def takes(self, step: InputEvent) -> bool:
        return isinstance(step, Press)

    def play(self, step: InputEvent, stop: threading.Event) -> bool:
        assert isinstance(step, Press)
        driver: Any = self.keys.inner
        pin = self.pins.pin(driver.pin_of(step.seat, step.key))
        pressed_low = bool(getattr(driver, "pull_up", True))
        down, up = (
            (pin.drive_low, pin.drive_high) if pressed_low else (pin.drive_high, pin.drive_low)
        )
        down()
        if step.long:
            got = self.keys.next(TAKEN_WITHIN, stop)  # the hold timer runs on real time
            up()
        else:
            time.sleep(self.tap)
            up()  # a short press is decided on release, in this call
            got = self.keys.next(TAKEN_WITHIN, stop)
        # The next press of a key must not look like this one's contact chatter.
        time.sleep(float(getattr(driver, "bounce_time", 0.0)) + 0.01)
        if got != step:
            log.error("emulate: %s came out as %s", step, got)
        return got == step


class GridTwin(Twin):
    """`touch R C`: a finger on the emulated grid's cell under table cell (R, C)."""

    def __init__(self, grid: Tapped, finger: Any, mat: Any = None) -> None:
        self.grid, self.finger = grid, finger
        # How the emulated mat really lies (an Orientation); None: as the grid
        # driver believes, so a script's table cells land where the stand expects.
        self.mat = mat
        self._last_touch: tuple[Cell, float] | None = None

    def takes(self, step: InputEvent) -> bool:
        return isinstance(step, Touch)

    def play(self, step: InputEvent, stop: threading.Event) -> bool:
        assert isinstance(step, Touch)
        driver: Any = self.grid.inner
        for _ in range(TRIES):
            lie = self.mat if self.mat is not None else driver.orientation
            cell = lie.to_grid((step.row, step.col))
            # What the driver will say it was: the same cell unless the mat lies
            # otherwise than the driver believes (not calibrated yet).
            expected = Touch(*driver.orientation.to_table(cell))
            self._after_bounce(driver, cell, stop)
            self.finger.press([cell])
            got = self.grid.next(TAKEN_WITHIN, stop)
            self.finger.lift()
            self._wait_clear(driver, stop)
            self._last_touch = (cell, time.monotonic())
            if got is None:
                got = self.grid.next(0)  # counted just before the lift
            if got is not None:
                if got != expected:
                    log.error("emulate: %s came out as %s", step, got)
                return got == expected
            if stop.is_set():
                return False
            log.warning("emulate: %s not taken by the grid yet; touching again", step)
        return False

    def _after_bounce(self, driver: Any, cell: Cell, stop: threading.Event) -> None:
        """The same word again: wait out the bounce window, or it is a bounce."""
        if self._last_touch is None or self._last_touch[0] != cell:
            return
        left = driver.filter.bounce - (time.monotonic() - self._last_touch[1])
        if left > 0:
            stop.wait(left + 0.05)

    def _wait_clear(self, driver: Any, stop: threading.Event) -> None:
        deadline = time.monotonic() + TAKEN_WITHIN
        while time.monotonic() < deadline and not stop.is_set():
            if driver.filter.idle:
                return
            time.sleep(0.005)
        log.warning("emulate: the grid did not clear after a touch")


class EmulatedScript(InputDriver):
    """Plays parsed script steps on emulated devices (see the module doc): each
    step on the first of `twins` that takes it, else emitted as it is. `keys`
    (with `pins`) and `grid` (with `finger`, the mat lying `mat`) add the seat
    keys' and the grid's twins."""

    name = "script"

    def __init__(
        self,
        steps: Iterable[tuple[int, InputEvent | float]],  # iterated once, as played
        *,
        sync: Callable[[], threading.Event],
        twins: Sequence[Twin] = (),
        keys: Tapped | None = None,
        pins: Any = None,
        grid: Tapped | None = None,
        finger: Any = None,
        speed: float = 1.0,
        on_done: Callable[[], None] | None = None,
        tap: float = 0.05,
        mat: Any = None,
    ) -> None:
        if keys is not None and pins is None:
            raise ValueError("emulated keys need the pin factory they were made on")
        if grid is not None and finger is None:
            raise ValueError("an emulated grid needs its finger (the emulated hardware)")
        self.steps = steps
        self.sync = sync
        self.twins: list[Twin] = [
            *([KeysTwin(keys, pins, tap)] if keys is not None else []),
            *([GridTwin(grid, finger)] if grid is not None else []),
            *twins,
        ]
        if mat is not None:  # how the emulated mat really lies, for every grid
            for twin in self.twins:
                if isinstance(twin, GridTwin):
                    twin.mat = mat
        self.speed = speed
        self.on_done = on_done
        self.missed: list[str] = []  # lines whose event never came out of its driver
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, emit: Emit, report: Report) -> None:
        self._thread = threading.Thread(
            target=self._run, args=(emit,), name="emulated-script", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    def _run(self, emit: Emit) -> None:
        for line, step in self.steps:
            if self._stop.is_set():
                return
            if isinstance(step, float):
                self._stop.wait(step * self.speed)
                continue
            twin = next((t for t in self.twins if t.takes(step)), None)
            if twin is not None:
                taken = twin.play(step, self._stop)
            else:
                emit(step)
                taken = True
            if not taken and not self._stop.is_set():
                self.missed.append(f"line {line}: {step}")
                log.error("emulate: line %d: %s was not taken by its driver", line, step)
            handled = self.sync()  # set once the service has handled the line's event
            while not handled.wait(0.1):
                if self._stop.is_set():
                    return
        if self.on_done and not self._stop.is_set():
            self.on_done()


def emulated_grid(
    kind: str,
    *,
    folder: Path,
    noise: bool = False,
    options: dict[str, Any],
    driver_class: type[InputDriver],
) -> tuple[InputDriver, Any]:
    """(the grid driver over emulated hardware, the hardware: `press(cells)`,
    `lift()`, `close()`) for a profile's `mpr121` or `serial-grid`."""
    if kind == "mpr121":
        from .mpr121 import COLS, ROWS, electrode_map
        from .mpr121_emu import EmulatedGrid, IrqLine

        emap = options["electrodes"]
        if not hasattr(emap, "addresses"):
            emap = electrode_map(emap, options.get("rows", ROWS), options.get("cols", COLS))
        irq = options.get("irq")  # the chips drive it on the emulation's MockFactory pin
        line = IrqLine(options["pin_factory"].pin(irq)) if irq is not None else None
        chips = EmulatedGrid(emap, glitches=0.05 if noise else 0.0, seed=7, irq=line)
        hardware = _MatOnChips(chips)
        driver = driver_class(**{**options, "electrodes": emap, "smbus": hardware.grid.smbus})
        return driver, hardware
    if kind == "serial-grid":
        from .serialgrid_emu import EmulatedBoard

        shape = {k: options[k] for k in ("rows", "cols") if k in options}  # the game's grid
        board = EmulatedBoard(folder / "grid-tty", noise=0.2 if noise else 0.0, seed=7, **shape)
        board.plug()
        driver = driver_class(**{**options, "port": str(board.link)})
        return driver, _Board(board)
    raise ValueError(f"no emulated grid for input kind {kind!r} (mpr121 or serial-grid)")


class _MatOnChips:
    def __init__(self, grid: Any) -> None:
        self.grid = grid

    def press(self, cells: list[Cell]) -> None:
        self.grid.press(cells)

    def lift(self) -> None:
        self.grid.lift()

    def close(self) -> None:
        bus = self.grid.bus
        if bus.glitches:
            log.info(
                "emulate: grid: %d of %d I2C transactions glitched", bus.glitched, bus.transactions
            )


class _Board:
    def __init__(self, board: Any) -> None:
        self.board = board

    def press(self, cells: list[Cell]) -> None:
        self.board.press(cells)

    def lift(self) -> None:
        self.board.lift()

    def close(self) -> None:
        self.board.unplug()
        if self.board.noise:
            log.info(
                "emulate: grid: %d of %d frames sent mangled",
                self.board.mangled,
                len(self.board.sent),
            )
