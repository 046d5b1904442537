"""The grid firmware's checks, run by CPython and by MicroPython itself.

tests/test_grid_firmware.py runs this file under both (MicroPython's
WebAssembly port under Node.js) with hardware/grid-firmware/ and this folder
on the path, and compares what they print: one line per check, `ok NAME
RESULT` (what it saw: frames, readings) or `FAIL NAME: why`, then a count.
Each check asserts what it must; both interpreters must see the same.

MicroPython's Python: no imports beyond the firmware, fakeboard and what both
interpreters have; no f-string conversions; no result whose print depends on
dict order.
"""

import os
import sys

import gridproto
import gridsense
from fakeboard import (
    Chips,
    Clock,
    Machine,
    Micropython,
    Poll,
    Select,
    Sensor,
    Starved,
    Stop,
    Sys,
    Usb,
    Watchdog,
)

FIRMWARE = "pico-mpr121-1"
BOARD_MODULES = ("machine", "micropython", "time", "sys", "select")


def bodies(arrivals):
    """The frames the host read, as (when, body) with gridproto's own reader;
    and how many it threw away."""
    reader = gridproto.FrameReader()
    out = []
    for when, data in arrivals:
        for body in reader.feed(data):
            out.append((when, body))
    return out, reader.dropped


def kinds(frames):
    return [body.split(",", 1)[1] for _, body in frames]


def gaps(times):
    return [times[i + 1] - times[i] for i in range(len(times) - 1)]


def zip_kinds(frames):
    return [(when, body.split(",", 1)[1]) for when, body in frames]


# -- gridproto ---------------------------------------------------------------------


def check_crc():
    assert gridproto.crc16(b"123456789") == 0x29B1
    return gridproto.frame("0,Q")


def check_the_protocol_pages_examples():
    """The frames docs/grid-protocol.md shows (test_serialgrid compares them)."""
    logic = gridproto.GridLogic(firmware=FIRMWARE)
    out = logic.hello(0) + logic.sense(10, 1 << 7) + logic.sense(20, 0)
    out += logic.sense(30, 0, "0x5B does not answer") + logic.sense(40, 0)
    answer = logic.host(gridproto.frame("0,Q"), 50)
    assert [f[:4] for f in answer] == [b"$0,H", b"$1,S"]
    return out + answer


def check_state_on_change_and_every_period():
    logic = gridproto.GridLogic(period_ms=250)
    logic.hello(0)
    steps = ((100, 0), (250, 0), (260, 1 << 24), (400, 1 << 24), (510, 1 << 24))
    seen = [logic.sense(t, bits) for t, bits in steps]
    frame = gridproto.frame
    assert seen == [[], [frame("2,S,0000000")], [frame("3,T,1000000")], [], [frame("4,S,1000000")]]
    return seen


def check_state_every_250_ms_while_moving_and_every_3_s_at_rest():
    """Frames per second of a board sensing every 10 ms for 17 s: a hello at 0
    (250 ms for 2 s: the host takes the state after the hello's), a finger
    down at 8 s and up at 8.5 s (a T each, then 250 ms until 2 s after the
    lift), at rest one every 3 s."""
    logic = gridproto.GridLogic()
    sent = [(0, f) for f in logic.hello(0)]
    for t in range(0, 17000, 10):
        sent += [(t, f) for f in logic.sense(t, 1 << 3 if 8000 <= t < 8500 else 0)]
    per_second = [0] * 17
    for t, _ in sent:
        per_second[t // 1000] += 1
    assert per_second == [5, 4, 0, 0, 1, 0, 0, 1, 4, 4, 2, 0, 0, 1, 0, 0, 1], per_second
    moving = [t for t, _ in sent if 8000 <= t < 10500]
    assert max(gaps(moving)) <= gridproto.PERIOD_MS
    resting = [t for t, _ in sent if t >= 10250]  # the last of the moving 2 s, then rest
    assert gaps(resting) == [gridproto.REST_MS] * 2
    return per_second


def check_a_fault_is_repeated_every_second_until_it_clears():
    logic = gridproto.GridLogic()
    logic.hello(0)
    out = []
    for t in range(0, 3000, 100):
        out += logic.sense(t, 0, "0x5C does not answer" if t < 2500 else "")
    faults = [f for f in out if b",F," in f]
    assert len(faults) == 4  # at 0, 1000, 2000 and the all-clear at 2500
    assert b",F,ok," in faults[-1]
    return faults


def check_garbage_from_the_host_is_ignored_and_a_query_answered():
    logic = gridproto.GridLogic()
    assert logic.host(b"AT\r\nATZ\r\n\x03\x03$0,Q*0000\n\x00\xff$$$", 0) == []
    answer = logic.host(b"noise\x03" + gridproto.frame("7,Q"), 0)
    assert len(answer) == 2
    return answer


def check_a_query_whose_seq_is_no_sequence_number_is_dropped_whole():
    """docs/grid-protocol.md: SEQ is decimal, 0 to 999; a frame with a field the
    board does not understand is dropped whole (the host's reader does the same)."""
    logic = gridproto.GridLogic()
    for seq in ("1000", "abc", "", "-1", " 1", "1.5", "0x1", "12a"):
        assert logic.host(gridproto.frame(seq + ",Q"), 0) == [], seq
    answers = [logic.host(gridproto.frame(seq + ",Q"), 0) for seq in ("0", "999", "007")]
    assert [len(answer) for answer in answers] == [2, 2, 2]
    return answers[-1]


def check_the_reader_resynchronises_on_every_dollar():
    good = gridproto.frame("5,T,0000001")
    stream = b"\x00\xff\x03 noise\r\n$" + b"A" * 200 + b"\n"  # overlong
    stream += good[:5] + good[6:]  # a byte dropped
    stream += good.replace(b"T,0", b"T,8")  # a byte changed
    stream += b"$5,T,00000" + good  # cut short, then the frame again
    stream += gridproto.frame("6,S,0000000").replace(b"\n", b"\r\n")
    reader = gridproto.FrameReader()
    got = []
    for i in range(len(stream)):  # split anywhere
        got += reader.feed(stream[i : i + 1])
    assert got == ["5,T,0000001", "6,S,0000000"]
    assert reader.dropped == 4
    return got


def check_the_outbox_drops_the_oldest_whole_frames_and_splits_none():
    box = gridproto.Outbox(limit=3)
    frames = [gridproto.frame(str(seq) + ",S,0000000") for seq in range(6)]
    room = [5]  # bytes the port takes now
    out = []

    def write(data):
        n = min(len(data), room[0])
        room[0] -= n
        out.append(data[:n])
        return n

    box.put(frames[:2])
    box.flush(write)  # five bytes of the first
    box.put(frames[2:])  # six: the one begun and the two newest are kept
    room[0] = 1000
    box.flush(write)
    assert b"".join(out) == frames[0] + frames[4] + frames[5]
    assert box.dropped == 3 and box.frames == []
    box.put([frames[1]])
    box.flush(lambda data: 0)  # a port with no room takes nothing, and nothing is lost
    assert box.frames == [frames[1]] and box.sent == 0
    return out


# -- gridsense ---------------------------------------------------------------------


def check_strips_report_every_crossing():
    chips = Chips()
    sensor = gridsense.MPR121Sensor(chips, gridsense.Strips())
    seen = [sensor.read(0)]
    chips.touched[0x5A] = 1 << 1 | 1 << 7  # row strip 1, column strip 2
    seen.append(sensor.read(10))
    chips.touched[0x5A] = 1 << 1 | 1 << 2 | 1 << 5 | 1 << 6  # a palm: rows 1-2, columns 0-1
    seen.append(sensor.read(20))
    assert seen == [(0, ""), (1 << 7, ""), (1 << 5 | 1 << 6 | 1 << 10 | 1 << 11, "")]
    assert chips.regs[0x5A][0x5E] == 0x80 | 10  # ten electrodes running
    return seen


def check_pads_over_three_chips():
    chips = Chips((0x5A, 0x5B, 0x5C))
    layout = gridsense.Pads({0x5A: list(range(12)), 0x5B: list(range(12, 24)), 0x5C: [24]})
    sensor = gridsense.MPR121Sensor(chips, layout)
    chips.touched[0x5B] = 1 << 3
    chips.touched[0x5C] = 1
    seen = sensor.read(0)
    assert seen == (1 << 15 | 1 << 24, "")
    assert [chips.regs[a][0x5E] for a in (0x5A, 0x5B, 0x5C)] == [0x8C, 0x8C, 0x81]
    return seen


def check_a_lost_chip_is_named_and_set_up_again_every_second():
    chips = Chips((0x5A, 0x5B))
    chips.absent = [0x5B]
    layout = gridsense.Pads({0x5A: list(range(12)), 0x5B: list(range(12, 24))})
    sensor = gridsense.MPR121Sensor(chips, layout)
    chips.touched[0x5A] = 1
    chips.touched[0x5B] = 1
    seen = [sensor.read(0)]
    chips.absent = []
    seen += [sensor.read(500), sensor.read(1000), sensor.read(1010)]  # set up at 1000
    chips.absent = [0x5A]
    seen.append(sensor.read(1020))
    assert seen == [
        (1, "0x5B does not answer"),
        (1, "0x5B does not answer"),
        (1, ""),
        (1 | 1 << 12, ""),
        (1 << 12, "0x5A does not answer"),
    ]
    return seen


def check_a_chip_that_is_no_mpr121_is_left_out_by_name():
    sensor = gridsense.MPR121Sensor(Chips(impostors=(0x5A,)), gridsense.Strips())
    seen = sensor.read(0)
    assert seen == (0, "0x5A is not an MPR121")
    return seen


# -- main.py -----------------------------------------------------------------------


def load_main():
    """main.py imported (not run), to reach its loop and port."""
    clock = Clock()
    machine = Machine(clock, Chips())
    sys.modules["machine"] = machine
    sys.modules["micropython"] = Micropython(machine)
    import main

    return main


def boot(feeds, levels=None, events=()):
    """main.py as the board runs it at power-up, as __main__, on stand-ins for
    machine, micropython, time and the USB port, until the watchdog's
    `feeds`-th feed (or none made). Returns the stand-ins, what it printed and
    what ended it: "stop" (the feeds ran out), "return" or "interrupted"."""
    clock = Clock()
    chips = Chips()
    usb = Usb(clock)
    machine = Machine(clock, chips, feeds, levels)
    micro = Micropython(machine, usb)
    for when, what in events:
        clock.at(when, what(chips, usb))
    path = load_main().__file__
    board = {"machine": machine, "micropython": micro, "time": clock}
    board["sys"] = Sys(usb)
    board["select"] = Select
    saved = {}
    for name in BOARD_MODULES:
        saved[name] = sys.modules.get(name)
        sys.modules[name] = board[name]
    printed = []
    ended = "return"
    with open(path) as f:
        source = f.read()
    try:
        exec(source, {"__name__": "__main__", "print": lambda *a: printed.append(a)})
    except Stop:
        ended = "stop"
    except KeyboardInterrupt:
        ended = "interrupted"
    finally:
        for name in BOARD_MODULES:
            if saved[name] is None:
                del sys.modules[name]
            else:
                sys.modules[name] = saved[name]
    return machine, micro, usb, printed, ended


def check_maintenance_skips_the_watchdog_and_the_loop():
    seen = []
    for file, levels in ((False, {}), (True, {}), (False, {22: 0}), (False, {21: 0})):
        if file:
            with open("maintenance", "w") as f:
                f.write("")
        try:
            machine, _, usb, printed, _ = boot(feeds=2, levels=levels)
        finally:
            if file:
                os.remove("maintenance")
        started = machine.wdt is not None
        assert started == (not file and levels.get(22, 1) == 1)
        assert bool(printed) != started and bool(usb.arrivals) == started
        if printed:
            assert printed[0][0].startswith("keystand grid: maintenance")
        seen.append(started)
    return seen


def press(cells):
    def at(chips, usb):
        def now():
            bits = 0
            for row, col in cells:  # the strips of each cell (Strips: rows 0-4, cols 5-9)
                bits |= 1 << row | 1 << (5 + col)
            chips.touched[0x5A] = bits

        return now

    return at


def query(chips, usb):
    def now():
        usb.send(gridproto.frame("0,Q"))

    return now


def ctrl_c(chips, usb):
    def now():
        usb.send(b"\x03")

    return now


def check_a_ctrl_c_on_the_line_is_a_byte_like_any_other():
    """A 0x03 on the USB serial is Ctrl-C to MicroPython: it would end main.py
    (and the watchdog reset the board). The board turns that off before its
    watchdog starts; maintenance leaves Ctrl-C to mpremote."""
    seen = []
    for levels in ({}, {22: 0}):
        events = ((50, ctrl_c), (60, query)) if not levels else ()
        _, micro, usb, _, ended = boot(feeds=20, levels=levels, events=events)
        frames, _ = bodies(usb.arrivals)
        seen.append((micro.calls, ended, len(frames)))
    assert seen == [([(-1, False)], "stop", 4), ([], "return", 0)], seen  # H S, then H S again
    return seen


def check_the_board_boots_into_its_loop():
    """main.py's real entry point: the bus on GP4/GP5, a 2 s watchdog, the
    strips of LAYOUT, the LED lit while a finger is down, frames on USB."""
    events = ((100, press([(2, 3)])), (300, press([])), (400, query))
    machine, _, usb, _, ended = boot(feeds=60, events=events)
    frames, dropped = bodies(usb.arrivals)
    assert dropped == 0 and ended == "stop"
    assert machine.wdt.timeout == 2000 and len(machine.wdt.fed) == 61
    assert machine.i2c == [((0,), [("freq", 400000), ("scl", 5), ("sda", 4)])]
    assert [p.pin for p in machine.pins] == [22, 4, 5, "LED"]  # maintenance pin first
    led = machine.pins[3]
    assert kinds(frames)[:2] == ["H,KSGRID,1,5,5," + FIRMWARE, "S,0000000"]
    touches = [k for k in kinds(frames) if k.startswith("T")]
    assert touches == ["T,0002000", "T,0000000"]  # bit 13: row 2, column 3
    assert [k for k in kinds(frames) if k.startswith("H")] == [kinds(frames)[0]] * 2
    assert 0 in led.values and 1 in led.values and led.values[-1] == 0
    return [body for _, body in frames]


def loop(clock, usb, sensor, passes):
    """main.run, `passes` passes, on the stand-in port with Ctrl-C off (as
    main() leaves it); returns the watchdog."""
    usb.interrupt = -1
    main = load_main()
    readable = Poll()
    readable.register(usb.stdin, Select.POLLIN)
    writable = Poll()
    writable.register(usb.stdout, Select.POLLOUT)
    serial = main.UsbSerial(usb.stdin.buffer, usb.stdout.buffer, readable, writable)
    wdt = Watchdog(clock)
    main.run(wdt, serial, sensor, Machine(clock, Chips()).Pin("LED", 1), clock, passes)
    return wdt


def check_the_loop_keeps_time_across_the_clocks_wrap():
    """ticks_ms wraps (2**30 on the RP2040) 300 ms in: state still goes out
    every 250 ms at least, and a touch at once."""
    clock = Clock(start=(1 << 30) - 300)
    usb = Usb(clock)
    sensor = Sensor()

    def touch(bits):
        def now():
            sensor.bits = bits

        return now

    clock.at(500, touch(1 << 7))
    clock.at(700, touch(0))
    wdt = loop(clock, usb, sensor, 120)
    frames, dropped = bodies(usb.arrivals)
    times = [when for when, _ in frames]
    assert dropped == 0 and wdt.longest_gap() == 10
    assert max(times[i + 1] - times[i] for i in range(len(times) - 1)) <= 260
    assert [(when, kind) for when, kind in zip_kinds(frames) if kind[0] == "T"] == [
        (510, "T,0000080"),
        (710, "T,0000000"),
    ]
    return [body for _, body in frames]


def seen_by_the_host(clock, usb, sensor, passes):
    """The loop's run: the longest the watchdog went unfed, and the frames the
    host read as (when, body), which must all be whole."""
    try:
        wdt = loop(clock, usb, sensor, passes)
    except Starved as e:
        raise AssertionError(str(e) + " at " + str(clock.now) + " ms") from None
    frames, dropped = bodies(usb.arrivals)
    assert dropped == 0, "the host got " + str(dropped) + " broken frames"
    return wdt.longest_gap(), frames


def missing(frames):
    """Sequence numbers the host never saw (a hello starts again at 0)."""
    lost = 0
    for i in range(1, len(frames)):
        seq = int(frames[i][1].split(",")[0])
        if ",H," not in frames[i][1]:
            lost += (seq - int(frames[i - 1][1].split(",")[0]) - 1) % 1000
    return lost


def check_a_host_that_stops_reading_never_starves_the_watchdog():
    """The host keeps the port open but stops reading at 100 ms while a finger
    moves (a T every 100 ms until 3 s): the port's FIFO fills, and a write
    would then wait 500 ms. At 4 s one pass has four frames to send (a query's
    H and S, a sensor fault, a touch): 2 s of waits. The loop never waits: it
    feeds its watchdog every pass and drops the oldest frames. When the host
    reads again at 8 s it gets whole frames only, and the newest state and
    fault at once."""
    clock = Clock()
    usb = Usb(clock)
    sensor = Sensor()

    def reading(on):
        def now():
            usb.reading = on

        return now

    def four_frames():
        usb.send(gridproto.frame("0,Q"))
        sensor.bits = 1 << 12
        sensor.fault = "0x5B does not answer"

    def moving(bits):
        def now():
            sensor.bits = bits

        return now

    clock.at(100, reading(False))
    for t in range(100, 3000, 100):
        clock.at(t, moving(1 << 3 if t % 200 else 0))
    clock.at(4000, four_frames)
    clock.at(8000, reading(True))
    gap, frames = seen_by_the_host(clock, usb, sensor, 850)
    assert gap == 10, gap
    held = [k for when, k in zip_kinds(frames) if when == 8000]  # what the port held
    moved = ["T,0000008", "T,0000000"]
    assert len(held) > 5 and held == (moved * len(held))[: len(held)], held
    fresh = [k for when, k in zip_kinds(frames) if when == 8010]  # the first pass after
    assert fresh[0] in moved, fresh  # the end of the frame the port held the start of
    assert "S,0001000" in fresh and "F,sensor,0x5B does not answer" in fresh, fresh
    assert missing(frames) > 0  # the frames dropped meanwhile, counted by the host
    return held, fresh


def check_a_host_that_floods_the_line_never_holds_the_loop():
    """A host that never stops sending (noise, Ctrl-C bytes and queries): each
    pass takes a bounded share, feeds the watchdog and sends on."""
    clock = Clock()
    usb = Usb(clock)
    usb.flood = b"\x03noise" * 20 + gridproto.frame("0,Q")
    gap, frames = seen_by_the_host(clock, usb, Sensor(), 100)
    assert gap == 10, gap
    times = [when for when, _ in frames]
    assert times[0] == 10 and times[-1] == 1000 and len(frames) > 100
    assert [k for k in kinds(frames) if k[0] != "H"] == ["S,0000000"] * (len(frames) // 2)
    return len(frames)


CHECKS = (
    check_crc,
    check_the_protocol_pages_examples,
    check_state_on_change_and_every_period,
    check_state_every_250_ms_while_moving_and_every_3_s_at_rest,
    check_a_fault_is_repeated_every_second_until_it_clears,
    check_garbage_from_the_host_is_ignored_and_a_query_answered,
    check_a_query_whose_seq_is_no_sequence_number_is_dropped_whole,
    check_the_reader_resynchronises_on_every_dollar,
    check_the_outbox_drops_the_oldest_whole_frames_and_splits_none,
    check_strips_report_every_crossing,
    check_pads_over_three_chips,
    check_a_lost_chip_is_named_and_set_up_again_every_second,
    check_a_chip_that_is_no_mpr121_is_left_out_by_name,
    check_maintenance_skips_the_watchdog_and_the_loop,
    check_the_board_boots_into_its_loop,
    check_a_ctrl_c_on_the_line_is_a_byte_like_any_other,
    check_the_loop_keeps_time_across_the_clocks_wrap,
    check_a_host_that_stops_reading_never_starves_the_watchdog,
    check_a_host_that_floods_the_line_never_holds_the_loop,
)


def run_all():
    failed = 0
    for check in CHECKS:
        try:
            print("ok", check.__name__, repr(check()))
        except Exception as e:
            failed += 1
            print("FAIL " + check.__name__ + ": " + type(e).__name__ + " " + str(e))
            if hasattr(sys, "print_exception"):
                sys.print_exception(e, sys.stderr)
            else:
                import traceback

                traceback.print_exc()
    print("checks: " + str(len(CHECKS) - failed) + " ok, " + str(failed) + " failed")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    run_all()
