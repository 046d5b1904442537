"""An idle MPR121 grid costs nothing: with the chips' IRQ line wired the driver
waits on it, reading the chips once every IDLE_CHECK idle seconds (their ECR too:
a chip that reset itself raises no IRQ), where polled it reads them 100 times a second; the
emulated chip drives its IRQ pin as the datasheet says (low on a change of
touch status, let go when the status is read), and a touch wakes the driver."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from keystand.drivers.inputs import Touch
from keystand.drivers.inputs.mpr121 import IDLE_CHECK, MPR121Grid, StripMap
from keystand.drivers.inputs.mpr121_emu import EmulatedGrid, IrqLine
from keystand.drivers.inputs.touchfilter import TouchFilter

STRIPS = StripMap()
IRQ = 4
IDLE = 4 * IDLE_CHECK  # virtual seconds counted


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def idle_cost(irq: bool, cup: tuple[int, int] | None = None) -> tuple[int, int]:
    """(passes over the chips, I2C transactions) in IDLE virtual seconds of an
    untouched grid, after its first second (the set-up); with a `cup` put on that
    cell at 0.5 s and left there, from 17 s: the driver sees it at its idle check
    of 3 s (or 6 s, the chip's debounce still running at 3 s) and the filter finds
    it stuck 10 s later."""
    clock, pins = Clock(), MockFactory()
    chips = EmulatedGrid(STRIPS, clock=clock, irq=IrqLine(pins.pin(IRQ)) if irq else None)
    marks: list[tuple[int, int]] = []
    done = threading.Event()
    start = 1.0 if cup is None else 17.0

    def wait(seconds: float) -> None:  # the driver's wait: the virtual clock moves on
        before = clock.now
        clock.now = round(clock.now + seconds, 6)
        if cup is not None and before < 0.5 <= clock.now:
            chips.press([cup])
        for mark in (start, start + IDLE):
            if before < mark <= clock.now:
                marks.append((driver.polls, chips.bus.transactions))
        if len(marks) == 2:
            done.set()
            time.sleep(0.001)

    driver = MPR121Grid(
        STRIPS,
        poll=0.01,
        smbus=chips.smbus,
        clock=clock,
        wait=wait,
        irq=IRQ if irq else None,
        pin_factory=pins,
        touch_filter=TouchFilter(clock=clock),
    )
    driver.start(lambda event: None, lambda report: None)
    assert done.wait(30)
    driver.stop()
    (polls0, i2c0), (polls1, i2c1) = marks
    return polls1 - polls0, i2c1 - i2c0


def test_an_idle_grid_is_read_every_idle_check_on_its_irq_and_100_times_a_second_polled() -> None:
    assert IDLE_CHECK == 3.0
    assert idle_cost(irq=True) == (4, 2 * 4)  # status and ECR, once every IDLE_CHECK s
    polls = round(100 * IDLE)
    assert idle_cost(irq=False) == (polls, polls + polls // 100)  # ECR every 100th


def test_a_cup_left_on_a_card_lets_the_driver_wait_on_irq_once_it_is_stuck() -> None:
    """A cup left on a card is read 100 times a second only while the filter
    times it (its dwell, then 10 s to its stuck time); then the driver waits on
    the line as for an idle grid. Polled, nothing changes: 100 reads a second."""
    assert idle_cost(irq=True, cup=(2, 3)) == (4, 2 * 4)
    polls = round(100 * IDLE)
    assert idle_cost(irq=False, cup=(2, 3)) == (polls, polls + polls // 100)


def test_the_emulated_chip_pulls_irq_low_on_a_change_and_lets_go_when_read() -> None:
    pins = MockFactory()
    line = IrqLine(pins.pin(IRQ))
    looks: list[tuple[float, object]] = []
    chips = EmulatedGrid(STRIPS, irq=line)
    chip = chips.chips[0x5A]
    chip.schedule = lambda delay, then: looks.append((delay, then))
    bus = chips.smbus(1)
    driver = MPR121Grid(STRIPS, smbus=chips.smbus)
    driver._bus = bus
    driver.setup(0x5A, 10)
    assert pins.pin(IRQ).state and line.falls == 0
    time.sleep(0.01)  # the baseline settles on the real clock (1 ms samples)
    chips.press([(1, 2)])
    assert len(looks) == 2  # a finger on the row strip and on the column strip
    time.sleep(0.01)
    looks[-1][1]()  # the emulator's timer: the debounce's samples have run
    assert not pins.pin(IRQ).state and line.falls == 1  # low: the status changed
    status = bus.read_i2c_block_data(0x5A, 0x00, 2)
    assert status[0] == 1 << 1 | 1 << 7 and pins.pin(IRQ).state  # read: let go


@pytest.mark.parametrize("cell", [(0, 0), (3, 4)])
def test_a_touch_wakes_the_driver_waiting_on_irq(cell: tuple[int, int]) -> None:
    pins = MockFactory()
    line = IrqLine(pins.pin(IRQ))
    chips = EmulatedGrid(STRIPS, irq=line)
    driver = MPR121Grid(STRIPS, smbus=chips.smbus, irq=IRQ, pin_factory=pins, idle_check=60)
    got: list[object] = []
    came = threading.Event()
    driver.start(lambda event: (got.append(event), came.set()), lambda report: None)
    try:
        time.sleep(0.1)  # set up, then idle: waiting on the line for up to a minute
        idle = driver.polls
        chips.press([cell])
        assert came.wait(10)
        chips.lift()
    finally:
        driver.stop()
    assert got == [Touch(*cell)] and line.falls >= 1
    assert idle <= 3  # the set-up's reads, then nothing until the line fell
