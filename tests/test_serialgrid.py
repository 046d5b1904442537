"""The serial touch grid: the protocol page's examples, the firmware's logic,
the host's parser (with hypothesis), and the host driver over a real pty with
the firmware's own logic on the other end: hello, touches, garbage, overlong
lines, a dropped byte, a lost message healed, unplug and replug, silence."""

from __future__ import annotations

import importlib.util
import queue
import re
import time
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
from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

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


class Rig:
    def __init__(self, tmp_path: Path, *, noise: float = 0.0, seed: int = 0, **kwargs) -> None:
        self.link = tmp_path / "grid"
        self.board = EmulatedBoard(self.link, period_ms=100, noise=noise, seed=seed)
        self.events: queue.Queue = queue.Queue()
        self.reports: queue.Queue = queue.Queue()
        kwargs.setdefault("touch_filter", TouchFilter(dwell=0.05, bounce=0.3))
        self.driver = SerialGrid(
            str(self.link), silent_after=0.5, ask_every=0.2, reopen_every=0.1, **kwargs
        )

    def start(self, plug: bool = True) -> Rig:
        if plug:
            self.board.plug()
        self.driver.start(self.events.put, self.reports.put)
        return self

    def report(self) -> tuple[Health, str]:
        r = self.reports.get(timeout=WAIT)
        return r.health, r.detail

    def touch(self, cell, hold: float = 0.3) -> Touch:
        """A finger on one cell for `hold` seconds; the touch it made. The grid
        is clear for a moment after, as between two real touches."""
        self.board.tap([cell], hold)
        event = self.events.get(timeout=WAIT)
        time.sleep(0.1)
        return event

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


@needs_pyserial
def test_hello_then_touches_in_table_coordinates(rig) -> None:
    r = rig(orientation=Orientation(2)).start()
    health, detail = r.report()
    assert health is Health.CONNECTED and "firmware emulated" in detail
    assert r.touch((0, 0)) == Touch(4, 4)
    assert r.touch((1, 2)) == Touch(3, 2)
    assert r.events.empty()


@needs_pyserial
def test_garbage_and_overlong_lines_change_nothing(rig) -> None:
    r = rig().start()
    assert r.report()[0] is Health.CONNECTED
    r.board.inject(bytes(range(256)) + b"$" + b"9" * 500 + b"\n" + b"\x03\x04$,,,*\n")
    r.board.inject(frame("50,T,0000001")[:-3] + b"\n")  # a frame with a bad end
    time.sleep(0.3)
    assert r.events.empty()
    assert r.driver.parser.stats.dropped >= 2 and r.driver.parser.stats.noise > 0
    assert r.touch((2, 2)) == Touch(2, 2)


@needs_pyserial
def test_a_frame_with_a_dropped_byte_is_thrown_away(rig) -> None:
    r = rig().start()
    r.report()
    broken = frame("60,T,0000001")
    r.board.inject(broken[:8] + broken[9:])  # a finger on (0, 0) that never arrives
    time.sleep(0.4)
    assert r.events.empty()
    assert r.touch((4, 0)) == Touch(4, 0)


@needs_pyserial
def test_a_lost_message_is_healed_by_the_next_full_state(rig) -> None:
    r = rig().start()
    r.report()
    # The T frame of the finger going down is lost (a periodic S frame sent
    # before it passes: which comes first is the board's timing, not the test's).
    r.board.drop_only, r.board.drop_next = b",T,", 1
    assert r.touch((3, 4), hold=0.4) == Touch(3, 4)
    assert len(r.board.dropped) == 1 and b",T," in r.board.dropped[0]
    assert r.driver.parser.stats.missing >= 1


@needs_pyserial
def test_unplug_is_lost_and_replug_is_back(rig) -> None:
    r = rig().start()
    assert r.report()[0] is Health.CONNECTED
    r.board.press([(2, 1)])
    time.sleep(0.2)  # the finger is down when the cable goes
    r.board.unplug()
    health, detail = r.report()
    assert health is Health.LOST and "went away" in detail
    r.board.lift()
    time.sleep(0.3)
    r.board.plug()  # a new pty behind the same name
    assert r.report()[0] is Health.BACK
    assert r.driver.opened == 2
    while not r.events.empty():  # the finger that was down may have counted before
        assert r.events.get_nowait() == Touch(2, 1)
    assert r.touch((0, 3)) == Touch(0, 3)


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
    time.sleep(0.3)
    assert r.events.empty()


@needs_pyserial
@pytest.mark.parametrize("seed", range(3))
def test_a_noisy_line_changes_nothing_that_was_touched(rig, seed) -> None:
    r = rig(noise=0.3, seed=seed).start()
    cells = [(0, 0), (4, 4), (4, 4), (2, 3), (1, 0)]
    got = []
    for cell in cells:
        got.append(r.touch(cell, hold=0.5))
        time.sleep(0.4)  # apart by more than the bounce time
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
