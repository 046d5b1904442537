"""The touch grids under fault, through their real drivers and the builds' touch
filters: the serial grid over a real pty with the firmware's own logic on the
far end (drivers/inputs/serialgrid_emu.py), in real time; the MPR121 on
emulated chips behind a fake SMBus (mpr121_emu.py), on a virtual clock.

A case is a few taps (a finger down on one cell until its touch comes out, as a
player waits for the screens, then up) with its
fault: garbage, broken frames and overlong lines on the wire, a noisy line, the
cable unplugged and plugged between taps, a flaky I2C bus, electrode jitter;
or one finger held on a cell across an unplug and replug, a silent board, a
board that reboots, a chip that resets or trips its over-current guard. Each
tap (each held finger) must give exactly one touch of its own cell: none is
`lost`, a second of it is `double`, any other cell is `phantom`.
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keystand.drivers.inputs import Health, HealthReport, Touch
from keystand.drivers.inputs.mpr121 import MPR121Grid, electrode_map
from keystand.drivers.inputs.mpr121_emu import EmulatedGrid
from keystand.drivers.inputs.serialgrid import SerialGrid, frame
from keystand.drivers.inputs.serialgrid_emu import EmulatedBoard
from keystand.drivers.inputs.touchfilter import Cell, TouchFilter
from keystand.inputkinds.mpr121 import Mpr121
from keystand.profile import load as load_profile

SERIAL_KINDS = (
    "taps",
    "garbage",
    "partial-frames",
    "long-lines",
    "noise",
    "replug",
    "held-replug",
    "held-silent",
    "held-reboot",
)
MPR121_KINDS = (
    "taps",
    "glitches",
    "jitter",
    "replug",
    "held-replug",
    "held-reset",
    "held-overcurrent",
)
TAPS = 5
WAIT = 5.0  # seconds a touch gets to come out (a bound, never a measurement)


@dataclass
class Count:
    """Taps (held fingers) and what came of them."""

    taps: int = 0
    touches: int = 0
    lost: int = 0
    double: int = 0
    phantom: int = 0
    said: list[str] = field(default_factory=list)

    def judge(self, cell: Cell, got: list[Cell]) -> None:
        """One contact on `cell`; `got` the touches its window gave."""
        self.taps += 1
        self.touches += len(got)
        mine = [c for c in got if c == cell]
        others = [c for c in got if c != cell]
        if not mine:
            self.lost += 1
            self.said.append(f"a contact on {cell} gave no touch")
        if len(mine) > 1:
            self.double += len(mine) - 1
            self.said.append(f"a contact on {cell} gave {len(mine)} touches")
        if others:
            self.phantom += len(others)
            self.said.append(f"a contact on {cell} gave touches of {others}")


def _filter(build: str, clock: Callable[[], float] | None = None) -> TouchFilter:
    t = load_profile(build).input.touch
    extra: dict[str, Any] = {"clock": clock} if clock is not None else {}
    return TouchFilter(dwell=t.dwell, palm=t.palm, bounce=t.bounce, stuck=t.stuck, **extra)


def _cells(rng: random.Random, n: int) -> list[Cell]:
    """n cells, no two in a row the same (a second tap of one word within the
    bounce window is a bounce, on purpose)."""
    out: list[Cell] = []
    while len(out) < n:
        cell = (rng.randrange(5), rng.randrange(5))
        if not out or cell != out[-1]:
            out.append(cell)
    return out


# -- the serial grid, in real time ---------------------------------------------------------


class SerialRig:
    """The touch-serial build's grid driver on an emulated board behind a pty."""

    def __init__(self, folder: Path, seed: int) -> None:
        self.board = EmulatedBoard(folder / "grid", seed=seed)
        self.events: queue.Queue[Cell] = queue.Queue()
        self.reports: queue.Queue[Health] = queue.Queue()
        self.driver = SerialGrid(str(folder / "grid"), touch_filter=_filter("touch-serial"))

    def start(self) -> bool:
        self.board.plug()
        self.driver.start(self._emit, lambda r: self.reports.put(r.health))
        return self.until_health((Health.CONNECTED, Health.BACK))

    def _emit(self, event: object) -> None:
        if isinstance(event, Touch):
            self.events.put((event.row, event.col))

    def until_health(self, wanted: tuple[Health, ...]) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.reports.get(timeout=0.1) in wanted:
                    return True
            except queue.Empty:
                continue
        return False

    def clear(self) -> None:
        """Wait until the driver has seen the grid clear: two taps with no clear
        between them are one episode to the touch filter, on purpose (a slide)."""
        deadline = time.monotonic() + WAIT
        while not self.driver.filter.idle and time.monotonic() < deadline:
            time.sleep(0.01)

    def drain(self, settle: float) -> list[Cell]:
        """The touches that came, waiting `settle` seconds of quiet for late ones."""
        got = []
        while True:
            try:
                got.append(self.events.get(timeout=settle))
            except queue.Empty:
                return got

    def first(self) -> list[Cell]:
        try:
            return [self.events.get(timeout=WAIT)]
        except queue.Empty:
            return []

    def close(self) -> None:
        self.driver.stop()
        self.board.unplug()


def serial_case(folder: Path, kind: str, rng: random.Random) -> Count:
    rig = SerialRig(folder, rng.randrange(1000))
    count = Count()
    try:
        if not rig.start():
            count.said.append("the grid never said hello")
            count.lost += 1
            return count
        if kind.startswith("held-"):
            _serial_held(rig, kind, rng, count)
        else:
            _serial_taps(rig, kind, rng, count)
    finally:
        rig.close()
    return count


def _serial_taps(rig: SerialRig, kind: str, rng: random.Random, count: Count) -> None:
    rig.board.noise = 0.3 if kind == "noise" else 0.0
    for cell in _cells(rng, TAPS):
        _serial_fault(rig, kind, rng)
        rig.board.press([cell])
        time.sleep(rng.uniform(0.0, 0.1))
        _serial_fault(rig, kind, rng)  # while the finger is down
        got = rig.first()  # a player keeps the finger there until the screens show it
        time.sleep(rng.uniform(0.0, 0.2))
        rig.board.lift()
        count.judge(cell, got + rig.drain(0.4))
        rig.clear()  # the lift seen (a noisy line may take a while to tell it)
        if kind == "replug":
            rig.board.unplug()
            time.sleep(rng.uniform(0.1, 1.5))
            rig.board.plug()
            rig.until_health((Health.BACK,))
    late = rig.drain(0.5)
    if late:  # after the last tap's window: no contact made these
        count.phantom += len(late)
        count.said.append(f"touches after the last contact: {late}")


def _serial_fault(rig: SerialRig, kind: str, rng: random.Random) -> None:
    if kind == "garbage":
        rig.board.inject(bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))))
    elif kind == "partial-frames":
        whole = frame(f"{rng.randrange(1000)},T,{rng.randrange(1 << 25):07X}")
        rig.board.inject(whole[: rng.randrange(1, len(whole) - 1)])
    elif kind == "long-lines":
        body = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randint(70, 2000)))
        rig.board.inject(b"$" + body + b"\n")


def _serial_held(rig: SerialRig, kind: str, rng: random.Random, count: Count) -> None:
    """A finger on one cell, held across the fault, then lifted: one touch."""
    cell = _cells(rng, 1)[0]
    rig.board.press([cell])
    got = rig.first()
    if kind == "held-replug":
        rig.board.unplug()
        time.sleep(rng.uniform(0.6, 2.0))
        rig.board.plug()
    elif kind == "held-silent":
        rig.board.silent = True
        time.sleep(rig.driver.silent_after + rng.uniform(0.3, 1.5))  # past it: lost
        rig.board.silent = False
    else:  # held-reboot: the board resets and says hello again at once
        rig.board.unplug()
        rig.board.plug()
    rig.until_health((Health.BACK,))
    time.sleep(rng.uniform(0.5, 1.5))
    rig.board.lift()
    count.judge(cell, got + rig.drain(1.0))


# -- the MPR121, on a virtual clock --------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


Until = Callable[[], bool]


class MprRig:
    """The touch-mpr121 build's grid driver on emulated chips. Its story (a
    generator of conditions to wait for) moves on in the driver's own waits,
    each of which moves the virtual clock on: a run is the same every time."""

    def __init__(self, seed: int, glitches: float) -> None:
        m = load_profile("touch-mpr121").input.table("mpr121")
        assert isinstance(m, Mpr121)
        self.clock = Clock()
        emap = electrode_map(m.electrodes)
        self.grid = EmulatedGrid(emap, clock=self.clock, glitches=glitches, seed=seed)
        self.events: list[tuple[float, Cell]] = []
        self.contacts: list[tuple[float, Cell]] = []  # when each contact began, and where
        self.ready: float | None = None  # when the chips were set up: the story's time 0
        self.done = threading.Event()
        self._story: Iterator[Until] | None = None
        self._until: Until = lambda: True
        self.driver = MPR121Grid(
            emap,
            touch_threshold=m.touch_threshold,
            release_threshold=m.release_threshold,
            poll=m.poll,
            smbus=self.grid.smbus,
            clock=self.clock,
            wait=self._wait,
            touch_filter=_filter("touch-mpr121", self.clock),
        )

    @property
    def chip(self) -> Any:
        return next(iter(self.grid.chips.values()))

    @property
    def at(self) -> float:
        return self.clock.now - (self.ready or 0.0)

    def after(self, seconds: float) -> Until:
        then = self.at + seconds
        return lambda: self.at >= then

    def press(self, cell: Cell) -> None:
        self.contacts.append((self.at, cell))
        self.grid.press([cell])

    def taken(self, within: float = WAIT) -> Until:
        """Until the touch of the contact just made comes out (or `within` passes)."""
        start, seen = self.at, len(self.events)
        return lambda: len(self.events) > seen or self.at - start >= within

    def _emit(self, event: object) -> None:
        if isinstance(event, Touch):
            self.events.append((self.at, (event.row, event.col)))

    def _report(self, report: HealthReport) -> None:
        if self.ready is None and report.health in (Health.CONNECTED, Health.BACK):
            self.ready = self.clock.now

    def _wait(self, seconds: float) -> None:
        self.clock.now = round(self.clock.now + seconds, 6)
        if self.ready is None and self.clock.now < 60:
            return  # not set up yet (60 s: the story runs anyway, and its contacts are lost)
        assert self._story is not None
        while not self.done.is_set() and self._until():
            try:
                self._until = next(self._story)
            except StopIteration:
                self.done.set()
        if self.done.is_set():
            time.sleep(0.001)

    def run(self, story: Callable[[MprRig], Iterator[Until]]) -> bool:
        self._story = story(self)
        self.driver.start(self._emit, self._report)
        finished = self.done.wait(60)
        self.driver.stop()
        return finished

    def judge(self, count: Count) -> None:
        for n, (start, cell) in enumerate(self.contacts):
            end = self.contacts[n + 1][0] if n + 1 < len(self.contacts) else float("inf")
            count.judge(cell, [c for at, c in self.events if start <= at < end])
        if self.contacts:
            before = [c for at, c in self.events if at < self.contacts[0][0]]
            if before:
                count.phantom += len(before)
                count.said.append(f"touches before any contact: {before}")


def mpr121_case(kind: str, rng: random.Random) -> Count:
    glitches = rng.uniform(0.05, 0.2) if kind == "glitches" else 0.0
    rig = MprRig(rng.randrange(1000), glitches)
    count = Count()
    story = _held if kind.startswith("held-") else _taps
    if not rig.run(lambda r: story(r, kind, rng)):
        count.said.append("the driver's thread did not get through the story")
    rig.judge(count)
    return count


def _taps(rig: MprRig, kind: str, rng: random.Random) -> Iterator[Until]:
    """Taps, each held until its touch comes out (as a player waits for the
    screens), the grid clear before the next; `replug`: the chip away between."""
    if kind == "jitter":
        rig.chip.noise = rng.randint(1, 4)
    yield rig.after(0.3)
    for cell in _cells(rng, TAPS):
        rig.press(cell)
        yield rig.taken()
        yield rig.after(rng.uniform(0.0, 0.2))
        rig.grid.lift()
        yield lambda: rig.driver.filter.idle
        if kind == "replug":
            yield rig.after(0.2)
            rig.chip.present = False
            yield rig.after(rng.uniform(0.2, 2.0))
            rig.chip.present = True
            yield rig.after(3.0)  # set up again (its retry) and settled
        yield rig.after(rng.uniform(0.3, 0.8))
    yield rig.after(1.5)


def _held(rig: MprRig, kind: str, rng: random.Random) -> Iterator[Until]:
    """One finger held across the fault, then lifted: one touch."""
    yield rig.after(0.3)
    rig.press(_cells(rng, 1)[0])
    yield rig.taken()
    yield rig.after(rng.uniform(0.1, 0.6))
    if kind == "held-replug":
        rig.chip.present = False
        yield rig.after(rng.uniform(0.5, 3.0))
        rig.chip.present = True
    elif kind == "held-reset":
        rig.chip.reset()
    else:
        rig.chip.overcurrent()
        yield rig.after(rng.uniform(0.5, 2.0))
    yield rig.after(rng.uniform(1.0, 3.0))
    rig.grid.lift()
    yield rig.after(1.5)
