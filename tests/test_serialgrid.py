"""The serial touch grid: the protocol page's examples, the firmware's logic,
the host's parser (with hypothesis), and the host driver over a real pty with
the firmware's own logic on the other end: hello, touches, garbage, overlong
lines, a dropped byte, a lost message healed, unplug and replug, silence."""

from __future__ import annotations

import importlib.util
import queue
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keystand.drivers.inputs import Health, Touch
from keystand.drivers.inputs.serialgrid import (
    Fault,
    GridParser,
    Hello,
    SerialGrid,
    State,
    crc16,
    frame,
)
from keystand.drivers.inputs.serialgrid_emu import EmulatedBoard, load_firmware
from keystand.drivers.inputs.touchfilter import Cell, Orientation, TouchFilter

ROOT = Path(__file__).resolve().parents[1]
proto = load_firmware("gridproto")
WAIT = 10.0  # how long a test waits for what must come (a bound, never a measurement)
needs_pyserial = pytest.mark.skipif(
    importlib.util.find_spec("serial") is None, reason="pyserial is not installed"
)


# -- the protocol page -------------------------------------------------------------


def doc_frames() -> list[bytes]:
    text = (ROOT / "docs" / "grid-protocol.md").read_text()
    return [line.encode() + b"\n" for line in re.findall(r"^\$\S.*\*[0-9A-F]{4}$", text, re.M)]


def test_the_crc_is_ccitt_false_on_both_sides() -> None:
    assert crc16(b"123456789") == proto.crc16(b"123456789") == 0x29B1


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=80))
def test_the_hosts_crc_is_the_boards_for_any_bytes(data: bytes) -> None:
    """The host's CRC is the standard library's (binascii.crc_hqx, in C), the
    board's a bitwise loop MicroPython runs: the same number, whatever the bytes."""
    assert crc16(data) == proto.crc16(data)


def test_the_pages_examples_are_good_frames_to_both_sides() -> None:
    frames = doc_frames()
    assert len(frames) == 7
    host = GridParser().feed(b"".join(frames[:-1]))
    assert host == [
        Hello(0, 1, 5, 5, "pico-mpr121-1"),
        State(1, "S", frozenset()),
        State(2, "T", frozenset({(1, 2)})),
        State(3, "T", frozenset()),
        Fault(4, "sensor", "0x5B does not answer"),
        Fault(5, "ok", "all sensors answer"),
    ]
    # the board builds exactly these, and answers the query
    logic = proto.GridLogic(firmware="pico-mpr121-1")
    assert logic.hello(0) == [frames[0], frames[1]]
    assert logic.sense(10, 1 << 7) == [frames[2]]
    assert logic.sense(20, 0) == [frames[3]]
    assert logic.sense(30, 0, "0x5B does not answer") == [frames[4]]
    assert logic.sense(40, 0) == [frames[5]]
    assert [f[:4] for f in logic.host(frames[6], 50)] == [b"$0,H", b"$1,S"]


# -- the firmware's logic (tests/test_grid_firmware.py runs the rest, under MicroPython too) --


def test_the_firmware_modules_import_nothing() -> None:
    for name in ("gridproto.py", "gridsense.py"):
        source = (ROOT / "hardware" / "grid-firmware" / name).read_text()
        assert not re.search(r"^\s*(import|from)\s", source, re.M), name


# -- the host's parser ---------------------------------------------------------------


def test_garbage_overlong_lines_and_broken_frames_are_dropped_and_counted() -> None:
    p = GridParser()
    good = frame("5,T,0000001")
    stream = (
        b"\x00\xff garbage \r\n"
        + b"$"
        + b"A" * 200
        + b"\n"  # overlong
        + good[:5]
        + good[6:]  # a byte dropped
        + good.replace(b"T,0", b"T,8")  # a byte changed
        + b"$5,T,00000"
        + good  # cut short, then the frame again
        + frame("6,T,2000000")  # a bit beyond cell 24
        + frame("7,T,00001")  # too few digits
        + frame("8,X,0000000")  # an unknown type
    )
    assert p.feed(stream) == [State(5, "T", frozenset({(0, 0)}))]
    assert p.stats.frames == 1
    assert p.stats.dropped == 7
    assert p.stats.noise > 0


def test_missing_sequence_numbers_are_counted_and_a_hello_starts_again() -> None:
    p = GridParser()
    p.feed(frame("998,S,0000000") + frame("1,S,0000000"))  # 999 and 0 never came
    assert p.stats.missing == 2
    p.feed(frame("0,H,KSGRID,1,5,5,x") + frame("1,S,0000000"))
    assert p.stats.missing == 2


def test_frames_split_anywhere_arrive_whole() -> None:
    data = frame("1,T,0000080") + frame("2,T,0000000")
    p = GridParser()
    out = [m for i in range(len(data)) for m in p.feed(data[i : i + 1])]
    assert [m.cells for m in out] == [frozenset({(1, 2)}), frozenset()]


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=500))
def test_no_touch_ever_comes_out_of_garbage(data) -> None:
    p, f = GridParser(), TouchFilter(dwell=0.0, stuck=None)
    for i, message in enumerate(p.feed(data)):
        if isinstance(message, State):
            assert f.feed(message.cells, at=float(i)) is None  # pragma: no cover


touches = st.lists(
    st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(1, 6)), min_size=1, max_size=8
)
damage = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from("dxg"), st.binary(max_size=8)))


@settings(max_examples=300, deadline=None)
@given(touches, damage)
def test_never_more_than_one_touch_per_contact_whatever_the_line_does(plan, hits) -> None:
    """The board's frames for a series of contacts, damaged anywhere (bytes
    dropped, changed, garbage put in): every touch the host makes is a cell
    that was touched, and no contact gives two."""
    logic = proto.GridLogic(period_ms=50)
    stream = b"".join(logic.hello(0))
    t = 0
    for row, col, frames in plan:
        for bits in [1 << (row * 5 + col)] * frames + [0] * 3:
            t += 50
            stream += b"".join(logic.sense(t, bits))
    data = bytearray(stream)
    for at, kind, junk in hits:
        i = at % (len(data) + 1)
        if kind == "d" and i < len(data):
            del data[i]
        elif kind == "x" and i < len(data):
            data[i] ^= 0x55
        else:
            data[i:i] = junk
    p = GridParser()
    f = TouchFilter(dwell=0.1, palm=0.04, bounce=0.0, stuck=None)
    made = []
    for i, message in enumerate(p.feed(bytes(data))):
        if isinstance(message, State):
            cell = f.feed(message.cells, at=i * 0.05)
            if cell is not None:
                made.append(cell)
    assert set(made) <= {(r, c) for r, c, _ in plan}
    assert len(made) <= len(plan)


# -- the driver over a real pty ----------------------------------------------------------

Sample = tuple[float, frozenset[Cell], bool]  # (filter time, contacts, the grid unknown)


class Recorder(TouchFilter):
    """The touch filter, keeping each sample the driver feeds it, so that a test
    waits for what the driver has seen (by the filter's own clock), never for a
    length of real time."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.samples: list[Sample] = []
        self._changed = threading.Condition()

    def feed(self, cells, at=None, *, unknown=()) -> Cell | None:
        cells, unknown = frozenset(cells), frozenset(unknown)
        now = self.clock() if at is None else at
        touch = super().feed(cells, now, unknown=unknown)
        with self._changed:
            self.samples.append((now, cells - unknown, bool(unknown)))
            self._changed.notify_all()
        return touch

    def mark(self) -> int:
        """Where the samples fed from now on begin."""
        with self._changed:
            return len(self.samples)

    def wait(self, condition: Callable[[list[Sample]], bool], since: int, what: str) -> None:
        """Until `condition` holds for the samples fed since `since`."""
        with self._changed:
            done = self._changed.wait_for(lambda: condition(self.samples[since:]), WAIT)
        assert done, f"the driver never fed the filter {what}"


def lasting(seconds: float, want: Callable[[frozenset[Cell]], bool]) -> Callable:
    """The newest unbroken run of known samples whose contacts pass `want`
    spans `seconds` of the filter's time."""

    def condition(samples: list[Sample]) -> bool:
        run: list[float] = []
        for t, cells, unknown in samples:
            run = [*run, t] if not unknown and want(cells) else []
        return bool(run) and run[-1] - run[0] >= seconds - 1e-9

    return condition


def spanning(seconds: float) -> Callable:
    """Samples of any kind, known or not, over `seconds` of the filter's time."""
    return lambda samples: bool(samples) and samples[-1][0] - samples[0][0] >= seconds


def resting(cell: Cell, seconds: float) -> Callable:
    return lasting(seconds, lambda cells: cell in cells)


def clear(seconds: float) -> Callable:
    return lasting(seconds, lambda cells: not cells)


class Rig:
    def __init__(self, tmp_path: Path, *, noise: float = 0.0, seed: int = 0, **kwargs) -> None:
        self.link = tmp_path / "grid"
        # A quick board: its state every 100 ms while the contacts move, 150 ms
        # at rest (the firmware's 250 ms and 2 s: tests/test_serialgrid_rest.py).
        self.board = EmulatedBoard(self.link, period_ms=100, rest_ms=150, noise=noise, seed=seed)
        self.events: queue.Queue = queue.Queue()
        self.reports: queue.Queue = queue.Queue()
        self.filter = Recorder(dwell=0.05, bounce=0.3)
        kwargs.setdefault("silent_after", 0.5)
        self.driver = SerialGrid(
            str(self.link), ask_every=0.2, reopen_every=0.1, touch_filter=self.filter, **kwargs
        )

    def start(self, plug: bool = True) -> Rig:
        if plug:
            self.board.plug()
        self.driver.start(self.events.put, self.reports.put)
        return self

    def report(self) -> tuple[Health, str]:
        r = self.reports.get(timeout=WAIT)
        return r.health, r.detail

    def press(self, cell: Cell) -> Touch:
        """A finger on one cell, left there; the touch it made."""
        self.board.press([cell])
        return self.events.get(timeout=WAIT)

    def lift(self) -> None:
        """Every finger off, and the grid seen clear for longer than the bounce
        window (so the next contact, on any cell, is a new touch)."""
        since = self.filter.mark()
        self.board.lift()
        self.filter.wait(clear(self.filter.bounce), since, "a clear grid")

    def touch(self, cell: Cell) -> Touch:
        event = self.press(cell)
        self.lift()
        return event

    def quiet(self, since: int) -> None:
        """The filter fed for twice the dwell since `since`, the grid seen clear:
        a touch from anything before would have counted by now."""
        self.filter.wait(clear(2 * self.filter.dwell), since, "a clear grid for the dwell")

    def passes(self, n: int) -> None:
        """Until the driver has fed the filter `n` more times (one a pass)."""
        self.filter.wait(lambda samples: len(samples) >= n, self.filter.mark(), f"{n} passes")

    def touches(self) -> list[Touch]:
        out = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    def close(self) -> None:
        self.driver.stop()
        self.board.unplug()


@pytest.fixture
def rig(tmp_path):
    made = []

    def make(**kwargs) -> Rig:
        made.append(Rig(tmp_path, **kwargs))
        return made[-1]

    yield make
    for r in made:
        r.close()


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll a condition another thread makes true (a bound, not a measurement)."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.005)


@needs_pyserial
def test_an_idle_grid_reads_with_the_long_timeout_and_a_finger_with_the_short(rig) -> None:
    """Issue 33: with no finger on the grid the driver's thread waits up to half
    of silent_after for the next byte (longer than the board's rest period, so
    the next frame, not the timeout, wakes it), not 20 ms; a finger's episode is
    timed between frames, so it reads with the short timeout until the episode
    ends."""
    r = rig().start()
    assert r.report()[0] is Health.CONNECTED
    assert r.driver.idle_timeout == pytest.approx(0.5 / 2)
    assert r.driver.idle_timeout > r.board.rest_ms / 1000
    assert SerialGrid("/dev/null").idle_timeout == pytest.approx(3.5)  # the defaults'
    assert SerialGrid("/dev/null").idle_timeout > proto.REST_MS / 1000  # the board's
    wait_for(lambda: r.driver._serial.timeout == r.driver.idle_timeout, "the idle timeout")
    r.press((1, 2))
    wait_for(lambda: r.driver._serial.timeout == r.driver.read_timeout, "the short timeout")
    r.lift()
    r.passes(3)
    wait_for(lambda: r.driver._serial.timeout == r.driver.idle_timeout, "idle again")


@needs_pyserial
def test_hello_then_touches_in_table_coordinates(rig) -> None:
    r = rig(orientation=Orientation(2)).start()
    health, detail = r.report()
    assert health is Health.CONNECTED and "firmware emulated" in detail
    assert r.touch((0, 0)) == Touch(4, 4)
    assert r.touch((1, 2)) == Touch(3, 2)
    assert r.events.empty()


@needs_pyserial
def test_garbage_partial_frames_and_overlong_lines_change_nothing(rig) -> None:
    r = rig().start()
    assert r.report()[0] is Health.CONNECTED
    stats = r.driver.parser.stats
    r.board.inject(bytes(range(256)) + b"$" + b"9" * 500 + b"\n" + b"\x03\x04$,,,*\n")
    r.board.inject(frame("50,T,0000001")[:-3] + b"\n")  # a frame with a bad end
    r.board.send_partial([(0, 0)])
    r.board.send_long_line(200)
    r.board.send_garbage(100)
    wait_for(lambda: stats.dropped >= 6, "every broken frame dropped")
    r.quiet(r.filter.mark())
    assert r.events.empty()
    assert stats.noise > 0
    assert r.touch((2, 2)) == Touch(2, 2)


@needs_pyserial
def test_a_frame_with_a_dropped_byte_is_thrown_away(rig) -> None:
    r = rig().start()
    r.report()
    broken = frame("60,T,0000001")
    r.board.inject(broken[:8] + broken[9:])  # a finger on (0, 0) that never arrives
    wait_for(lambda: r.driver.parser.stats.dropped >= 1, "the broken frame dropped")
    r.quiet(r.filter.mark())
    assert r.events.empty()
    assert r.touch((4, 0)) == Touch(4, 0)


@needs_pyserial
def test_a_lost_message_is_healed_by_the_next_full_state(rig) -> None:
    r = rig().start()
    r.report()
    # The T frame of the finger going down is lost (a periodic S frame sent
    # before it passes: which comes first is the board's timing, not the test's).
    r.board.drop_only, r.board.drop_next = b",T,", 1
    assert r.touch((3, 4)) == Touch(3, 4)
    assert len(r.board.dropped) == 1 and b",T," in r.board.dropped[0]
    assert r.driver.parser.stats.missing >= 1


def _unplug_and_plug(r: Rig) -> None:
    r.board.unplug()
    health, detail = r.report()
    assert health is Health.LOST and "went away" in detail
    r.board.plug()  # a new pty behind the same name


def _silence(r: Rig) -> None:
    r.board.silent = True
    health, detail = r.report()
    assert health is Health.LOST and "fell silent" in detail
    r.board.silent = False


GAPS = {"unplugged": _unplug_and_plug, "silent": _silence}


@needs_pyserial
@pytest.mark.parametrize("gap", GAPS)
def test_a_finger_resting_across_a_reconnect_counts_once(rig, gap) -> None:
    """The finger rests longer than the bounce window, the grid goes and comes
    back: its full state shows the same finger, which is not a new contact.
    Lifted and put down again, it counts."""
    r = rig().start()
    assert r.report()[0] is Health.CONNECTED
    assert r.press((2, 2)) == Touch(2, 2)
    r.filter.wait(resting((2, 2), r.filter.bounce), r.filter.mark(), "the finger resting")
    GAPS[gap](r)
    assert r.report()[0] is Health.BACK
    since = r.filter.mark()
    r.filter.wait(resting((2, 2), 2 * r.filter.dwell), since, "the finger when back")
    r.lift()
    assert r.touches() == []
    assert r.touch((2, 2)) == Touch(2, 2)
    assert r.events.empty()


@needs_pyserial
def test_a_finger_resting_across_a_query_for_lost_keep_alives_counts_once(rig) -> None:
    """The board's next 15 states lost on the line (its T, H and F pass): no
    good frame for query_after (1 s here), so the driver asks with Q; the board
    answers with its hello and state (that state and the next lost too, as
    the drops run out), the contacts are unknown, then the finger is seen
    again: the same contact, no second touch, and the grid never lost."""
    r = rig(silent_after=2.0).start()  # query_after: half of it, 1 s
    assert r.report()[0] is Health.CONNECTED
    assert r.press((2, 2)) == Touch(2, 2)
    r.filter.wait(resting((2, 2), r.filter.bounce), r.filter.mark(), "the finger resting")
    since = r.filter.mark()
    asked = r.board.heard.count(b",Q*")
    r.board.drop_only, r.board.drop_next = b",S,", 15
    wait_for(lambda: r.board.heard.count(b",Q*") > asked, "a query")
    wait_for(lambda: r.board.drop_next == 0, "the drops run out")
    r.filter.wait(resting((2, 2), 2 * r.filter.dwell), r.filter.mark(), "the finger after")
    assert any(unknown for _, _, unknown in r.filter.samples[since:])  # the hello's gap
    r.lift()
    assert r.touches() == []
    assert (r.filter.stats.touch, r.filter.stats.bounce) == (1, 0)
    assert r.reports.empty()  # never lost


@needs_pyserial
def test_a_finger_resting_across_a_reboot_of_the_board_counts_once(rig) -> None:
    r = rig().start()
    r.report()
    assert r.press((1, 4)) == Touch(1, 4)
    r.filter.wait(resting((1, 4), r.filter.bounce), r.filter.mark(), "the finger resting")

    def hellos() -> int:
        return sum(b",H," in f for f in list(r.board.sent))

    before = hellos()
    r.board.reboot()
    wait_for(lambda: hellos() > before, "a new hello")
    r.filter.wait(resting((1, 4), 2 * r.filter.dwell), r.filter.mark(), "the finger after")
    r.lift()
    assert r.touches() == []


@needs_pyserial
def test_the_state_a_board_sends_as_it_boots_is_not_a_reading(rig) -> None:
    """A board that boots says hello and its state before its first sensing
    pass: all clear, whatever rests on it. That is not a lift: the finger
    felt next (here on the neighbouring cell, as a finger across two cards
    may be) is the contact that already counted."""
    r = rig(silent_after=WAIT).start()  # the test's frames alone; never silent
    r.report()
    assert r.press((2, 2)) == Touch(2, 2)
    r.board.hush()  # from here the test's frames, one pass each
    r.passes(2)  # the second began after the hush: the board's frames are read
    stats = r.driver.parser.stats
    frames = stats.frames
    r.board.inject(frame("0,H,KSGRID,1,5,5,rebooted") + frame("1,S,0000000"))
    wait_for(lambda: stats.frames == frames + 2, "the boot hello and state read")
    r.passes(1)
    since = r.filter.mark()
    r.board.inject(frame("2,T,0020000"))  # bit 17: (3, 2)
    r.filter.wait(resting((3, 2), 2 * r.filter.dwell), since, "the finger after the boot")
    assert r.touches() == []


@needs_pyserial
def test_another_finger_found_after_a_reconnect_is_the_same_episode(rig) -> None:
    """The finger lifted and another landed while the cable was out: nobody saw
    the grid clear, so that may be the first finger slid on, and it does not
    count (never a touch that did not happen). Lifted, the next touch counts."""
    r = rig().start()
    r.report()
    assert r.press((2, 1)) == Touch(2, 1)
    r.board.unplug()
    assert r.report()[0] is Health.LOST
    r.board.lift()
    r.board.press([(0, 3)])
    r.board.plug()
    assert r.report()[0] is Health.BACK
    r.filter.wait(resting((0, 3), 2 * r.filter.dwell), r.filter.mark(), "the new finger")
    r.lift()
    assert r.touches() == []
    assert r.driver.opened == 2
    assert r.touch((0, 3)) == Touch(0, 3)


@needs_pyserial
def test_a_finger_that_lands_while_the_grid_is_away_counts_once_it_is_back(rig) -> None:
    r = rig().start()
    r.report()
    r.board.unplug()
    assert r.report()[0] is Health.LOST
    r.board.press([(3, 3)])
    r.board.plug()
    assert r.report()[0] is Health.BACK
    assert r.events.get(timeout=WAIT) == Touch(3, 3)
    r.lift()
    assert r.events.empty()


@needs_pyserial
def test_no_grid_at_start_is_lost_until_it_is_plugged_in(rig) -> None:
    r = rig().start(plug=False)
    health, detail = r.report()
    assert health is Health.LOST and "no grid at" in detail
    r.board.plug()
    assert r.report()[0] is Health.BACK
    assert r.touch((1, 1)) == Touch(1, 1)


@needs_pyserial
def test_a_silent_grid_is_lost_and_asked_until_it_speaks(rig) -> None:
    r = rig().start()
    r.report()
    r.board.silent = True
    health, detail = r.report()
    assert health is Health.LOST and "fell silent" in detail
    r.board.silent = False
    assert r.report()[0] is Health.BACK
    assert b",Q*" in r.board.heard


@needs_pyserial
def test_a_sensor_fault_on_the_board_is_reported_in_its_words(rig) -> None:
    r = rig().start()
    r.report()
    r.board.sensor.fault = "0x5B does not answer"
    assert r.report() == (Health.LOST, "grid sensor fault: 0x5B does not answer")
    r.board.sensor.fault = ""
    assert r.report()[0] is Health.BACK


@needs_pyserial
def test_a_grid_of_another_version_is_refused_by_name(rig, tmp_path) -> None:
    r = rig().start()
    r.report()
    r.board.silent = True
    r.board.inject(frame("0,H,KSGRID,2,6,6,future") + frame("1,T,0000001"))
    health, detail = r.report()
    assert health is Health.LOST and "KSGRID 2 for 6x6" in detail
    # the grid unknown while it is refused, for longer than a touch would need
    r.filter.wait(spanning(2 * r.filter.dwell), r.filter.mark(), "passes after")
    assert all(unknown for _, _, unknown in r.filter.samples[-3:])
    assert r.events.empty()


@needs_pyserial
@pytest.mark.parametrize("seed", range(3))
def test_a_noisy_line_changes_nothing_that_was_touched(rig, seed) -> None:
    r = rig(noise=0.3, seed=seed).start()
    cells = [(0, 0), (4, 4), (4, 4), (2, 3), (1, 0)]
    got = [r.touch(cell) for cell in cells]
    assert got == [Touch(*c) for c in cells]
    assert r.events.empty()
    assert r.driver.parser.stats.dropped > 0


@needs_pyserial
def test_the_whole_chain_with_the_firmwares_mpr121_code_on_emulated_chips(tmp_path) -> None:
    from keystand.drivers.inputs.mpr121 import StripMap
    from keystand.drivers.inputs.mpr121_emu import EmulatedGrid, MachineI2C

    gridsense = load_firmware("gridsense")
    chips = EmulatedGrid(StripMap())
    sensor = gridsense.MPR121Sensor(MachineI2C(chips.bus), gridsense.Strips())

    class Finger:  # the board's sensor, with a finger on the emulated electrodes
        def read(self, now_ms):
            return sensor.read(now_ms)

        def press(self, cells):
            chips.press(cells)

        def lift(self):
            chips.lift()

    r = Rig(tmp_path)
    r.board.sensor = Finger()
    r.start()
    try:
        assert r.report()[0] is Health.CONNECTED
        assert r.touch((3, 1)) == Touch(3, 1)
        assert chips.chips[0x5A].ignored_writes == []
    finally:
        r.close()


class Port:
    """A port whose frames each come whole while a read waits: what pyserial's
    `read(n)` does (n bytes at most) and `in_waiting`, counting the reads that waited."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames, self.buffer, self.waited = list(frames), b"", 0

    @property
    def in_waiting(self) -> int:
        return len(self.buffer)

    def read(self, size: int) -> bytes:
        if not self.buffer and self.frames:
            self.waited += 1
            self.buffer = self.frames.pop(0)
        out, self.buffer = self.buffer[:size], self.buffer[size:]
        return out


def test_a_frame_that_wakes_the_read_is_read_whole_in_one_pass() -> None:
    """Issue 33: a read of one byte (nothing was waiting) left the rest of the
    frame to the next pass of the thread: two passes a frame at rest."""
    frames = [frame("1,S,0000000"), frame("2,S,0000000")]
    driver = SerialGrid("/dev/null")
    driver._serial = Port(frames)
    assert [driver._read(), driver._read()] == frames
    assert driver._serial.waited == 2
