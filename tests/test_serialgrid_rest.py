"""The serial grid at rest (issue 33, item 5), on a simulated clock: the board's
own logic (gridproto.py) behind a stand-in for pyserial's port, the driver's loop
run in the test's thread. A read that waits moves the clock to the board's next
frame or to the read's timeout, so every count here (frames, wake-ups, the
second a grid is found lost) is exact, never a measurement of real time.

The board sends its whole state every 250 ms while the contacts moved within
2 s, and every 3 s at rest; a board of before sends it every 250 ms always.
The driver must wake once per frame at rest (no timeouts between frames),
take both boards, and find a grid that stopped sending lost at silent_after.
A keep-alive lost (the line loses scripted frames, never by chance) makes the
read time out at 3.5 s: the driver asks with Q, the board answers with hello
and state, and two keep-alives lost in a row no longer look like a lost grid;
at rest with nothing lost it never asks."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from keystand.drivers.inputs import Health, HealthReport, Touch
from keystand.drivers.inputs.serialgrid import REST_S, SILENT_AFTER, SerialGrid, crc16
from keystand.drivers.inputs.serialgrid_emu import load_firmware

proto = load_firmware("gridproto")
PASS_MS = 10  # the board's sensing pass (main.py's INTERVAL_MS)
INF = float("inf")
FAULT = "0x5B does not answer"


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
    UART's cable pulled); `fault_at`: from then a sensor does not answer (the
    board says so every second); `lose`: windows [from, to) of seconds whose frames
    the line loses (a scripted drop list: noise without chance); `garble`:
    windows whose frames come with a byte changed (the bytes wake the read, the
    frame is bad, as line noise on a UART); `unplug_at`: a
    read waiting then fails (USB gone: a waiting read wakes on the hangup). The
    run ends at `end`. `written` keeps what the host sent, and when."""

    logic: Any
    clock: Clock
    stop: threading.Event
    end: float
    contacts: list[Contact] = field(default_factory=list)
    hush_at: float = INF
    fault_at: float = INF  # from then a sensor does not answer
    lose: list[tuple[float, float]] = field(default_factory=list)
    garble: list[tuple[float, float]] = field(default_factory=list)
    drops: Callable[[int], bool] = lambda n: False  # the board's frame n (from 1) lost
    unplug_at: float = INF
    timeout: float = 0.0
    buffer: bytes = b""
    board_ms: int = 0  # the board's next sensing pass
    frames: list[tuple[float, bytes]] = field(default_factory=list)  # (sent at, frame)
    wakes: list[tuple[float, bool]] = field(default_factory=list)  # (when, by a frame)
    written: list[tuple[float, bytes]] = field(default_factory=list)  # (when, bytes)
    waited: list[tuple[float, float]] = field(default_factory=list)  # (when, timeout) per read

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
        self.written.append((self.clock.now, data))
        self._send(self.logic.host(data, round(self.clock.now * 1000)))
        return len(data)

    def close(self) -> None:
        pass

    def _wait(self) -> None:
        self.waited.append((self.clock.now, self.timeout))
        deadline = self.clock.now + self.timeout
        while not self.buffer and self.board_ms / 1000 <= deadline:
            self._to(self.board_ms / 1000)
            fault = FAULT if self.board_ms / 1000 >= self.fault_at else ""
            self._send(self.logic.sense(self.board_ms, self._bits(self.board_ms / 1000), fault))
            self.board_ms += PASS_MS
        if not self.buffer:
            self._to(deadline)
        self.wakes.append((self.clock.now, bool(self.buffer)))
        at_once = list(itertools.takewhile(lambda w: w[0] == self.clock.now, reversed(self.wakes)))
        assert len(at_once) < 100, f"the driver spins at {self.clock.now} s: reads that never wait"
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
            lost = any(start <= self.clock.now < end for start, end in self.lose)
            lost = lost or self.drops(len(self.frames))
            if any(start <= self.clock.now < end for start, end in self.garble):
                f = f.replace(b"*", b"+")  # its checksum unfound: dropped whole
            if self.clock.now < self.hush_at and not lost:
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
    assert REST_S < driver.query_after == SILENT_AFTER / 2  # a keep-alive overdue: Q


@pytest.mark.parametrize("query_after", [0, -1.0, SILENT_AFTER, 8.0])
def test_a_query_after_outside_the_silence_is_refused_by_value(query_after: float) -> None:
    with pytest.raises(ValueError, match=rf"query_after {query_after!r}: .*below silent_after"):
        SerialGrid("/dev/ttyACM0", query_after=query_after)


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


def test_a_cup_left_on_the_grid_lets_the_driver_rest_once_it_is_stuck() -> None:
    """A cup put on a card at 20 s and left there: the driver reads every 20 ms
    while the filter times it (its dwell, then its stuck time, 10 s), then waits
    for the board's frames again, as at rest: once per keep-alive, never for a
    timeout. The cup counted once, as it landed (the filter's, not the wait's)."""
    run = simulate(95.0, contacts=[Contact(20.0, INF, 1 << 7)])
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert run.driver.filter.stats.stuck == 1
    assert run.wakes(21.0, 29.0, by_frame=False) > 100  # timed: 20 ms reads
    assert len(run.states(35.0, 95.0)) == 20
    assert run.wakes(35.0, 95.0, by_frame=True) == 20
    assert run.wakes(35.0, 95.0, by_frame=False) == 0
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


# -- a keep-alive lost: the host asks (Q), the board answers (H and S) ---------------
#
# At rest the board's states go out at 1.75 s, then every 3 s: 4.75, 7.75, ...,
# 13.75, 16.75, 19.75. The line loses chosen frames (`lose`), never by chance.

KEEP_ALIVES = [1.75 + 3 * n for n in range(14)]


def queries(run: Run, start: float = 0.0, end: float = INF) -> list[float]:
    """When the host sent Q."""
    return [t for t, data in run.port.written if start <= t < end and b",Q*" in data]


def around(t: float) -> tuple[float, float]:
    """A window that loses the one frame the board sends at `t`."""
    return (t - 0.005, t + 0.005)


def test_at_rest_the_host_never_asks() -> None:
    """Ten minutes at rest, nothing lost: every read is woken by a keep-alive,
    none times out, so no Q ever goes out after the hello (none at all here:
    the board's hello was there before the first read)."""
    run = simulate(600.0)
    assert queries(run) == []
    # the port's timeout never changes at rest (pyserial's setter is a tcsetattr)
    assert {timeout for t, timeout in run.port.waited if t >= 10.0} == {3.5}
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert run.wakes(10.0, 600.0, by_frame=False) == 0
    assert len(run.states(10.0, 600.0)) == run.wakes(10.0, 600.0, by_frame=True) == 197


def test_two_keep_alives_lost_in_a_row_are_not_a_lost_grid() -> None:
    """The keep-alives of 16.75 s and 19.75 s lost (the frame of 13.75 s the last
    heard). Before, that was silence at 20.75 s: lost on both screens, and back.
    Now the read that times out at 17.25 s (3.5 s) sends Q; the board answers
    with its hello and state, then its state every 250 ms for 2 s, and the
    grid was never lost. One Q, no touch."""
    run = simulate(40.0, lose=[around(16.75), around(19.75)])
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert queries(run) == [pytest.approx(17.25)]
    hellos = [t for t, f in run.port.frames if b",H," in f]
    assert hellos == [0.0, pytest.approx(17.25)]
    assert run.touches == []


def test_one_keep_alive_lost_costs_one_query() -> None:
    run = simulate(40.0, lose=[around(KEEP_ALIVES[5])])
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert queries(run) == [pytest.approx(KEEP_ALIVES[4] + 3.5)]


def test_a_grid_silent_despite_the_queries_is_lost_at_silent_after() -> None:
    """Every frame from 14 s to 21 s lost, the answers to Q among them: Q at
    3.5 s of silence and every second after, and the grid lost at 7 s of it
    (silent_after), as without the queries; the first answer after the gap
    brings it back."""
    run = simulate(40.0, lose=[(14.0, 21.0)])
    assert queries(run, end=20.75) == pytest.approx([17.25, 18.25, 19.25, 20.25])
    (_, connected), (lost_at, lost), (back_at, back) = run.reports
    assert connected.health is Health.CONNECTED
    assert lost.health is Health.LOST and "fell silent" in lost.detail
    assert lost_at == pytest.approx(13.75 + SILENT_AFTER)
    assert back.health is Health.BACK and back_at < 23.0


def test_the_host_numbers_its_queries_as_the_protocol_says() -> None:
    """Each side counts its own frames (docs/grid-protocol.md): the host's Qs go
    out as 0, 1, 2, 3, not all as 0."""
    run = simulate(40.0, lose=[(14.0, 21.0)])
    sent = [data for t, data in run.port.written if t < 20.75 and b",Q*" in data]
    assert [q.split(b",")[0] for q in sent] == [b"$0", b"$1", b"$2", b"$3"]


def test_a_finger_resting_across_a_query_is_one_contact_and_one_touch() -> None:
    """A finger down at 20 s, left there until 29 s; the keep-alive of 24.75 s
    (its last state went out at 21.75 s) lost. The host, timing the finger
    with 20 ms reads, asks at 25.25 s; the hello that answers makes the
    contacts unknown (its state is not taken), the filter keeps the finger it
    knew, and the next state shows it again: the same contact. One touch, one
    episode, whatever the query did."""
    run = simulate(40.0, contacts=[Contact(20.0, 29.0, 1 << 7)], lose=[around(24.75)])
    asked = queries(run)
    assert asked == [pytest.approx(25.25, abs=0.03)]
    hello = next(t for t, f in run.port.frames if t > 20.0 and b",H," in f)
    assert hello == asked[0]
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert [event for _, event in run.touches] == [Touch(1, 2)]
    assert run.touches[0][0] < 20.2
    stats = run.driver.filter.stats
    assert (stats.touch, stats.bounce, stats.hover, stats.palm) == (1, 0, 0, 0)


def test_a_board_reporting_a_fault_is_not_asked_when_its_frames_are_lost() -> None:
    """A sensor out from 10 s: the board says so every second (F), and the grid
    is lost with its words. Its frames from 14 s to 17.2 s lost (the last heard
    at 13.75 s): no Q at 17.25 s, whose hello would clear the fault, the stand
    saying the grid was back until the next F. The next F, at 18 s, keeps it."""
    run = simulate(30.0, fault_at=10.0, lose=[(14.0, 17.2)])
    assert queries(run) == []
    assert [(r.health, r.detail) for _, r in run.reports][1:] == [
        (Health.LOST, f"grid sensor fault: {FAULT}")
    ]


def test_a_keep_alive_garbled_is_asked_for_at_3_5_s_though_its_bytes_woke_the_read() -> None:
    """Noise on the line that changes a byte: the keep-alive of 16.75 s comes,
    wakes the read, and is dropped. The next read waits only what is left of
    the 3.5 s (not a whole idle timeout from the garbage), so Q goes out at
    17.25 s; two garbled in a row are no lost grid either."""
    run = simulate(40.0, garble=[around(16.75)])
    assert queries(run) == [pytest.approx(17.25)]
    assert run.driver.parser.stats.dropped == 1
    run = simulate(40.0, garble=[around(16.75), around(17.25)])  # the answer's hello too
    assert queries(run) == [pytest.approx(17.25)]
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]


def test_a_grid_sending_only_garbage_is_lost_at_silent_after() -> None:
    """Every frame from 14 s garbled: bytes keep waking the read, none good.
    The grid is lost 7 s after its last good frame, not a timeout later."""
    run = simulate(30.0, garble=[(14.0, INF)])
    (lost_at, lost) = run.reports[1]
    assert lost.health is Health.LOST and "fell silent" in lost.detail
    assert lost_at == pytest.approx(13.75 + SILENT_AFTER)


def twelve_percent(n: int) -> bool:
    """Frame n lost: 12% of them, by a fixed pattern (no seed, no chance)."""
    return crc16(str(n).encode()) % 100 < 12


def test_an_hour_at_rest_losing_12_percent_of_frames_is_never_a_lost_grid() -> None:
    """Before the query, this hour had 15 false losses (two keep-alives lost in
    a row, and the screens said so); now none, each gap asked for at 3.5 s."""
    run = simulate(3600.0, drops=twelve_percent)
    lost = [n for n in range(1, len(run.port.frames) + 1) if twelve_percent(n)]
    assert len(lost) / len(run.port.frames) == pytest.approx(0.12, abs=0.01)
    assert [r.health for _, r in run.reports] == [Health.CONNECTED]
    assert len(queries(run)) == run.wakes(0.0, 3600.0, by_frame=False) > 100
