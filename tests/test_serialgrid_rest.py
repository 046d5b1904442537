"""The serial grid at rest (issue 33, item 5), on a simulated clock: the board's
own logic (gridproto.py) behind a stand-in for pyserial's port, the driver's loop
run in the test's thread. A read that waits moves the clock to the board's next
frame or to the read's timeout, so every count here (frames, wake-ups, the
second a grid is found lost) is exact, never a measurement of real time.

The board sends its whole state every 250 ms while the contacts moved within
2 s, and every 3 s at rest; a board of before sends it every 250 ms always.
The driver must wake once per frame at rest (no timeouts between frames),
take both boards, and find a grid that stopped sending lost at silent_after."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from keystand.drivers.inputs import Health, HealthReport, Touch
from keystand.drivers.inputs.serialgrid import REST_S, SILENT_AFTER, SerialGrid
from keystand.drivers.inputs.serialgrid_emu import load_firmware

proto = load_firmware("gridproto")
PASS_MS = 10  # the board's sensing pass (main.py's INTERVAL_MS)
INF = float("inf")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Contact:
    """A finger on `bits` from `down` to `up` (seconds)."""

    down: float
    up: float
    bits: int


@dataclass
class SimPort:
    """pyserial's port as the driver uses it (timeout, in_waiting, read, write,
    close), the board's logic on the other end, sensing every 10 ms of the
    simulated clock. `hush_at`: from then the board sends nothing (hung, or a
    UART's cable pulled); `unplug_at`: a read waiting then fails (USB gone: a
    waiting read wakes on the hangup). The run ends at `end`."""

    logic: Any
    clock: Clock
    stop: threading.Event
    end: float
    contacts: list[Contact] = field(default_factory=list)
    hush_at: float = INF
    unplug_at: float = INF
    timeout: float = 0.0
    buffer: bytes = b""
    board_ms: int = 0  # the board's next sensing pass
    frames: list[tuple[float, bytes]] = field(default_factory=list)  # (sent at, frame)
    wakes: list[tuple[float, bool]] = field(default_factory=list)  # (when, by a frame)

    def __post_init__(self) -> None:
        self._send(self.logic.hello(0))

    @property
    def in_waiting(self) -> int:
        return len(self.buffer)

    def read(self, size: int) -> bytes:
        if not self.buffer:
            self._wait()
        out, self.buffer = self.buffer[:size], self.buffer[size:]
        return out

    def write(self, data: bytes) -> int:
        self._send(self.logic.host(data, round(self.clock.now * 1000)))
        return len(data)

    def close(self) -> None:
        pass

    def _wait(self) -> None:
        deadline = self.clock.now + self.timeout
        while not self.buffer and self.board_ms / 1000 <= deadline:
            self._to(self.board_ms / 1000)
            self._send(self.logic.sense(self.board_ms, self._bits(self.board_ms / 1000)))
            self.board_ms += PASS_MS
        if not self.buffer:
            self._to(deadline)
        self.wakes.append((self.clock.now, bool(self.buffer)))
        if self.clock.now >= self.end:
            self.stop.set()  # the driver's loop ends after this pass

    def _to(self, when: float) -> None:
        """The clock moved on to `when`, unless the cable goes first."""
        if when >= self.unplug_at:
            self.clock.now = max(self.clock.now, self.unplug_at)
            self.stop.set()  # the driver's loop ends once it has said so
            raise OSError(5, "Input/output error")
        self.clock.now = max(self.clock.now, when)

    def _bits(self, now: float) -> int:
        return sum(c.bits for c in self.contacts if c.down <= now < c.up)

    def _send(self, frames: list[bytes]) -> None:
        for f in frames:
            self.frames.append((self.clock.now, f))
            if self.clock.now < self.hush_at:
                self.buffer += f


@dataclass
class Run:
    port: SimPort
    driver: SerialGrid
    reports: list[tuple[float, HealthReport]]
    touches: list[tuple[float, object]]

    def states(self, start: float, end: float) -> list[float]:
        """When the board sent a state (S or T) in [start, end)."""
        return [t for t, f in self.port.frames if start <= t < end and b",H," not in f]

    def wakes(self, start: float, end: float, by_frame: bool) -> int:
        return sum(1 for t, framed in self.port.wakes if start <= t < end and framed == by_frame)


def simulate(end: float, *, logic: Any = None, **port: Any) -> Run:
    """The driver (its defaults) over the simulated board until `end` seconds."""
    clock = Clock()
    reports: list[tuple[float, HealthReport]] = []
    touches: list[tuple[float, object]] = []
    stop = threading.Event()
    sim = SimPort(logic or proto.GridLogic(), clock, stop, end, **port)
    driver = SerialGrid("/dev/ttyACM0", serial_for_url=lambda *a, **k: sim, clock=clock)
    # The driver's loop, in this thread, on the simulated clock: what start()
    # would run in its own thread, ended by the port at `end`.
    driver._emit = lambda event: touches.append((clock.now, event))
    driver._report = lambda report: reports.append((clock.now, report))
    driver._stop = stop
    driver._run()
    return Run(sim, driver, reports, touches)


def per_second(times: list[float], start: float, end: float) -> Callable[[int], int]:
    return lambda second: sum(1 for t in times if start + second <= t < start + second + 1)


def test_the_defaults_fit_the_boards_rest_period() -> None:
    assert proto.REST_MS / 1000 == REST_S
    assert SILENT_AFTER == 2 * REST_S + 1.0  # one keep-alive lost is not a lost grid
    driver = SerialGrid("/dev/ttyACM0")
    assert driver.silent_after == SILENT_AFTER
    assert REST_S < driver.idle_timeout == SILENT_AFTER / 2  # frames wake the reads


def test_an_idle_grid_wakes_the_driver_once_per_keep_alive() -> None:
    """A minute at rest: the board sends 20 states (one every 3 s), the driver's
    thread wakes 20 times, each time for a frame, never for a timeout."""
    run = simulate(75.0)
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert len(run.states(15.0, 75.0)) == 60 / REST_S == 20
    assert run.wakes(15.0, 75.0, by_frame=True) == 20
    assert run.wakes(15.0, 75.0, by_frame=False) == 0
    assert run.touches == []


def test_after_a_hello_the_state_comes_every_250_ms_for_2_s() -> None:
    """The host takes the state after the hello's: it comes 250 ms later, and
    the board stays at 250 ms until 2 s after the hello, then rests."""
    run = simulate(10.0)
    states = run.states(0.0, 10.0)
    assert states[:9] == [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 4.75]
    assert states[9:] == [7.75]


def test_a_hand_on_the_table_gets_a_state_every_250_ms_until_2_s_after_it_moved() -> None:
    """A finger down at 20 s and up at 20.6 s: a T at once each time, then S
    every 250 ms until 22.6 s (a lost frame is healed within 250 ms while hands
    move), then one every 3 s. One touch counted."""
    run = simulate(30.0, contacts=[Contact(20.0, 20.6, 1 << 7)])
    count = per_second(run.states(18.0, 30.0), 18.0, 30.0)
    assert [count(s) for s in range(12)] == [0, 1, 5, 4, 2, 0, 0, 1, 0, 0, 1, 0]
    moving = run.states(20.0, 22.6)
    assert max(b - a for a, b in itertools.pairwise(moving)) <= 0.25
    assert [event for _, event in run.touches] == [Touch(1, 2)]


def test_a_board_of_before_sending_every_250_ms_still_works() -> None:
    """A board without the rest period: four states a second, four wake-ups,
    never found silent."""
    run = simulate(40.0, logic=proto.GridLogic(rest_ms=250))
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert len(run.states(10.0, 40.0)) == 120
    assert run.wakes(10.0, 40.0, by_frame=True) == 120
    assert run.wakes(10.0, 40.0, by_frame=False) == 0


@pytest.mark.parametrize("rest_ms", [proto.REST_MS, 250])
def test_a_grid_that_stops_sending_is_lost_at_silent_after(rest_ms: int) -> None:
    """A UART's cable pulled, or a hung board: no frame after 30 s. The grid is
    found silent 7 s after its last frame (two timeouts of 3.5 s), whichever
    board; before the rest period it was 1 s, plus up to a 0.4 s timeout."""
    run = simulate(40.0, logic=proto.GridLogic(rest_ms=rest_ms), hush_at=30.0)
    last = run.states(0.0, 30.0)[-1]
    (at, lost) = run.reports[-1]
    assert lost.health is Health.LOST and "fell silent" in lost.detail
    assert at - last == pytest.approx(SILENT_AFTER)
    assert [r.health for _, r in run.reports] == [Health.CONNECTED, Health.LOST]


def test_a_usb_cable_pulled_at_rest_is_lost_at_once() -> None:
    """The port fails as the cable goes: the read waiting for the next frame
    wakes on it, and the grid is reported lost then, not at silent_after."""
    run = simulate(40.0, unplug_at=30.3)
    (at, lost) = run.reports[-1]
    assert lost.health is Health.LOST and "went away" in lost.detail
    assert at == pytest.approx(30.3)
