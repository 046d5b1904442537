"""The MPR121 driver against emulated chips behind a fake SMBus: the datasheet's
set-up, touches through both electrode maps, hover, palm, bounce, chips that do
not answer, reset themselves or short their REXT, and a noisy bus."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from keystand.drivers.inputs import Health, InputError, Touch
from keystand.drivers.inputs.mpr121 import (
    CONFIG1,
    CONFIG2,
    DEBOUNCE,
    ECR,
    FILTER,
    SOFT_RESET,
    THRESHOLDS,
    MPR121Grid,
    PadMap,
    StripMap,
    electrode_map,
)
from keystand.drivers.inputs.mpr121_emu import EmulatedGrid, EmulatedMPR121, FakeSMBus
from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

STRIPS = StripMap()
# 12 + 12 + 1 pads, the cells in table order, as a builder would solder them
PADS = PadMap.from_profile({"0x5A": list(range(12)), "0x5B": list(range(12, 24)), "0x5C": [24]})
POLL = 0.01


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Rig:
    """A driver on emulated chips, run by its own thread through a timeline:
    each wait of the driver moves the fake clock on and does what is due."""

    def __init__(
        self, electrode_map, *, glitches=0.0, seed=0, missing=(), keeps_baseline=False, **kwargs
    ) -> None:
        self.clock = Clock()
        self.grid = EmulatedGrid(
            electrode_map,
            clock=self.clock,
            glitches=glitches,
            seed=seed,
            keeps_baseline=keeps_baseline,
        )
        for address in missing:
            self.grid.chips[address].present = False
        self.events: list = []
        self.reports: list = []
        self.plan: list = []
        self.done = threading.Event()
        kwargs.setdefault(
            "touch_filter", TouchFilter(dwell=0.08, palm=0.04, bounce=0.5, clock=self.clock)
        )
        self.driver = MPR121Grid(
            electrode_map,
            poll=POLL,
            smbus=self.grid.smbus,
            clock=self.clock,
            wait=self._wait,
            **kwargs,
        )

    def at(self, when: float, action) -> Rig:
        self.plan.append((when, action))
        return self

    def touch(self, when: float, cells, hold: float = 0.2, delta=None) -> Rig:
        self.at(when, lambda: self.grid.press(cells, delta))
        return self.at(when + hold, self.grid.lift)

    def _wait(self, seconds: float) -> None:
        self.clock.now = round(self.clock.now + seconds, 6)
        while self.plan and self.plan[0][0] <= self.clock.now:
            self.plan.pop(0)[1]()
        if not self.plan and self.clock.now >= self.end:
            self.done.set()
            time.sleep(0.001)

    def run(self, until: float | None = None) -> Rig:
        self.plan.sort(key=lambda p: p[0])
        self.end = until if until is not None else (self.plan[-1][0] + 1.0 if self.plan else 1.0)
        self.driver.start(self.events.append, self.reports.append)
        assert self.done.wait(30), "the driver's thread did not get through the plan"
        self.driver.stop()
        return self

    def health(self) -> list:
        return [r.health for r in self.reports]


# -- set-up --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("emap", "running"),
    [(STRIPS, {0x5A: 10}), (PADS, {0x5A: 12, 0x5B: 12, 0x5C: 1})],
    ids=["strips", "pads"],
)
def test_setup_follows_the_datasheet(emap, running) -> None:
    rig = Rig(emap).run(until=0.05)
    assert rig.health() == [Health.CONNECTED]
    for address, chip in rig.grid.chips.items():
        writes = chip.writes
        # soft reset first, then stop; every configuration write while stopped
        assert (writes[0].reg, writes[0].value) == (SOFT_RESET, 0x63)
        assert (writes[1].reg, writes[1].value) == (ECR, 0x00)
        assert chip.ignored_writes == []
        config = [w for w in writes[2:-1]]
        assert config and all(not w.running and w.reg != ECR for w in config)
        # ECR last: baseline tracking from the first reading (CL = 10), only
        # the electrodes the map uses
        assert (writes[-1].reg, writes[-1].value) == (ECR, 0x80 | running[address])
        regs = chip.regs
        for e in range(12):
            touch, release = regs[THRESHOLDS + 2 * e], regs[THRESHOLDS + 2 * e + 1]
            assert (touch, release) == (12, 6)
        assert list(regs[FILTER : FILTER + 11]) == [1, 1, 14, 0, 1, 5, 1, 0, 0, 0, 0]
        assert (regs[DEBOUNCE], regs[CONFIG1], regs[CONFIG2]) == (0x11, 0x10, 0x20)
        assert chip.running


def test_the_emulated_chip_ignores_configuration_while_running() -> None:
    """What the set-up order guards against: the chip drops such writes."""
    clock = Clock()
    chip = EmulatedMPR121(clock=clock)
    bus = FakeSMBus({0x5A: chip})
    bus.write_byte_data(0x5A, ECR, 0x8C)
    bus.write_byte_data(0x5A, THRESHOLDS, 40)
    assert chip.regs[THRESHOLDS] == 0
    assert [(w.reg, w.value) for w in chip.ignored_writes] == [(THRESHOLDS, 40)]


def test_without_thresholds_noise_is_a_touch_so_the_setup_matters() -> None:
    clock = Clock()
    chip = EmulatedMPR121(clock=clock)
    chip.noise = 3
    chip.write(ECR, 0xCC)  # run from a full baseline, every threshold still 0 from reset
    clock.now = 0.5
    assert chip.touched() != 0


# -- touches ----------------------------------------------------------------------


def test_a_finger_on_a_strip_crossing_is_one_touch() -> None:
    rig = Rig(STRIPS).touch(0.3, [(1, 2)]).run()
    assert rig.events == [Touch(1, 2)]


def test_every_pad_reaches_its_cell_over_three_chips() -> None:
    rig = Rig(PADS)
    cells = [(r, c) for r in range(5) for c in range(5)]
    for i, cell in enumerate(cells):
        rig.touch(0.2 + 0.4 * i, [cell])
    rig.run()
    assert rig.events == [Touch(r, c) for r, c in cells]


def test_touches_come_out_in_table_coordinates() -> None:
    rig = Rig(STRIPS, orientation=Orientation(1)).touch(0.3, [(4, 0)]).run()
    assert rig.events == [Touch(0, 0)]


def test_a_hover_does_not_count() -> None:
    rig = Rig(STRIPS)
    rig.touch(0.3, [(2, 2)], hold=0.03)  # down and away again
    rig.touch(1.0, [(3, 3)], hold=0.5, delta=8)  # a hand above the card, under threshold
    rig.run()
    assert rig.events == []
    assert rig.driver.filter.stats.hover == 1


def test_a_palm_does_not_count() -> None:
    strips = Rig(STRIPS).touch(0.3, [(1, 1), (2, 2)], hold=0.5).run()
    pads = Rig(PADS).touch(0.3, [(1, 1), (1, 2), (2, 1)], hold=0.5).run()
    assert strips.events == pads.events == []
    assert strips.driver.filter.stats.palm == pads.driver.filter.stats.palm == 1


def test_a_double_tap_is_one_touch_and_a_later_tap_is_another() -> None:
    rig = Rig(PADS)
    rig.touch(0.3, [(0, 4)], hold=0.15).touch(0.55, [(0, 4)], hold=0.15)
    rig.touch(2.0, [(0, 4)], hold=0.15)
    rig.run()
    assert rig.events == [Touch(0, 4), Touch(0, 4)]
    assert rig.driver.filter.stats.bounce == 1


def test_electrode_jitter_under_the_thresholds_is_no_touch() -> None:
    rig = Rig(PADS)
    for chip in rig.grid.chips.values():
        chip.noise = 4  # counts of jitter, a third of the touch threshold
    rig.touch(2.0, [(2, 2)])
    rig.run()
    assert rig.events == [Touch(2, 2)]
    assert rig.driver.filter.stats.hover == 0


# -- chips that do not answer --------------------------------------------------------


def test_a_chip_missing_at_start_is_reported_the_others_work_and_it_comes_back() -> None:
    rig = Rig(PADS, missing=[0x5C], retry=0.5)
    rig.touch(0.3, [(0, 0)])
    rig.at(1.0, lambda: setattr(rig.grid.chips[0x5C], "present", True))
    rig.touch(2.0, [(4, 4)])  # the cell on the chip that came back
    rig.run()
    assert rig.health() == [Health.LOST, Health.BACK]
    assert "MPR121 0x5C does not answer" in rig.reports[0].detail
    assert "I2C bus 1" in rig.reports[0].detail
    assert rig.events == [Touch(0, 0), Touch(4, 4)]


def test_a_chip_that_stops_answering_is_lost_then_back() -> None:
    rig = Rig(STRIPS, retry=0.3)
    chip = rig.grid.chips[0x5A]
    rig.at(0.5, lambda: setattr(chip, "present", False))
    rig.at(1.5, lambda: setattr(chip, "present", True))
    rig.touch(2.5, [(3, 1)])
    rig.run()
    assert rig.health() == [Health.CONNECTED, Health.LOST, Health.BACK]
    assert rig.events == [Touch(3, 1)]


def test_something_else_at_the_address_is_named() -> None:
    rig = Rig(STRIPS)
    chip = rig.grid.chips[0x5A]
    original = chip.reset

    def not_an_mpr121() -> None:
        original()
        chip.regs[CONFIG2] = 0x00

    chip.reset = not_an_mpr121
    rig.run(until=0.1)
    assert rig.health() == [Health.LOST]
    assert "0x5A is not an MPR121 (CONFIG2 reads 0x00" in rig.reports[0].detail


def test_over_current_is_reported_and_the_chip_set_up_again() -> None:
    rig = Rig(STRIPS, retry=0.2)
    rig.at(0.3, rig.grid.chips[0x5A].overcurrent)
    rig.touch(1.0, [(0, 1)])
    rig.run()
    assert rig.health() == [Health.CONNECTED, Health.LOST, Health.BACK]
    assert "over-current" in rig.reports[1].detail
    assert rig.events == [Touch(0, 1)]


def test_a_chip_that_reset_itself_is_set_up_again_quietly() -> None:
    rig = Rig(STRIPS, check_every=10)
    chip = rig.grid.chips[0x5A]
    rig.at(0.3, chip.reset)  # a brown-out: registers back to their reset values
    rig.touch(1.0, [(4, 4)])
    rig.run()
    assert rig.health() == [Health.CONNECTED]
    assert rig.events == [Touch(4, 4)]
    assert [w.reg for w in chip.writes].count(SOFT_RESET) == 2


# -- a finger resting across a loss ---------------------------------------------------


def _unanswering(rig: Rig) -> None:
    rig.at(1.0, lambda: rig.grid.unplug(0x5A)).at(1.2, lambda: rig.grid.plug(0x5A))


FAULTS = {
    # what happens to chip 0x5A at 1.0 s while a finger rests on (2, 2)
    "stops answering": _unanswering,
    "over-current": lambda rig: rig.at(1.0, rig.grid.chips[0x5A].overcurrent),
    "brown-out": lambda rig: rig.at(1.0, rig.grid.chips[0x5A].reset),
}


@pytest.mark.parametrize("keeps_baseline", [False, True], ids=["rebaselines", "keeps-baseline"])
@pytest.mark.parametrize("fault", FAULTS)
def test_a_finger_resting_across_a_chip_fault_counts_once(fault, keeps_baseline) -> None:
    """The chip is lost, reset or set up again under a resting finger: one
    touch, whether or not the chip feels the finger again when it is back (a
    chip that keeps its baselines does; the datasheet's CL=10 start does not).
    The cell counts again only after the finger lifts and lands."""
    rig = Rig(STRIPS, retry=1.0, keeps_baseline=keeps_baseline)
    rig.at(0.3, lambda: rig.grid.press([(2, 2)]))
    FAULTS[fault](rig)
    felt_again = []
    rig.at(3.5, lambda: felt_again.append(rig.grid.chips[0x5A].touched()))
    rig.at(4.0, rig.grid.lift)
    rig.touch(5.0, [(2, 2)])
    rig.run()
    assert rig.events == [Touch(2, 2), Touch(2, 2)]
    assert bool(felt_again[0]) is keeps_baseline  # the chip did feel it (or not) when back
    writes = [w.reg for w in rig.grid.chips[0x5A].writes]
    assert writes.count(SOFT_RESET) == 2  # it was set up again under the finger


def test_a_finger_on_a_chip_that_stays_lost_is_taken_as_resting_until_it_is_stuck() -> None:
    """Only the lost chip's cells are unknown, and they keep their last contact:
    a touch elsewhere while that finger may still rest is two fingers at once,
    no touch; once the unseen finger has rested `stuck` seconds it is left out
    like a cup, and touches elsewhere count again, before the chip is back."""
    rig = Rig(PADS, retry=1.0, keeps_baseline=True)
    rig.at(0.3, lambda: rig.grid.press([(4, 4)]))  # the one pad on 0x5C
    rig.at(1.0, lambda: rig.grid.unplug(0x5C))
    rig.touch(2.0, [(0, 0)])
    rig.touch(11.0, [(0, 0)])  # 10 s after the finger on (4, 4) landed
    rig.at(12.0, lambda: rig.grid.plug(0x5C))
    rig.at(13.0, rig.grid.lift)  # the finger on (4, 4) had rested all along
    rig.touch(14.0, [(4, 4)])
    rig.run()
    assert rig.events == [Touch(4, 4), Touch(0, 0), Touch(4, 4)]
    assert rig.health() == [Health.CONNECTED, Health.LOST, Health.BACK]
    assert rig.driver.filter.stats.stuck == 1


def test_a_reset_chip_reads_all_clear_and_that_is_not_a_lift() -> None:
    """A brown-out clears the status at once; the driver reads the ECR on the
    release, sets the chip up again and takes no lift from it."""
    rig = Rig(STRIPS, keeps_baseline=True)
    chip = rig.grid.chips[0x5A]
    rig.at(0.3, lambda: rig.grid.press([(1, 3)]))
    rig.at(1.0, chip.reset)
    rig.at(1.1, rig.grid.lift)
    rig.run(until=1.5)  # the periodic check (every 100 polls) would come at 2.0 s
    assert rig.events == [Touch(1, 3)]
    assert [w.reg for w in chip.writes].count(SOFT_RESET) == 2
    assert rig.driver.filter.stats.touch == 1 and rig.driver.filter.stats.bounce == 0


@pytest.mark.parametrize("seed", range(20))
def test_a_glitchy_bus_changes_nothing_that_was_touched(seed) -> None:
    cells = [(0, 0), (2, 3), (2, 3), (4, 1), (1, 4), (3, 3)]
    rig = Rig(PADS, glitches=0.03, seed=seed)
    for i, cell in enumerate(cells):
        rig.touch(0.3 + 1.0 * i, [cell], hold=0.3)
    rig.run()
    assert rig.events == [Touch(*c) for c in cells]
    assert rig.health() == [Health.CONNECTED]


def test_a_bus_that_cannot_be_opened_is_an_input_error() -> None:
    def no_bus(number: int):
        raise FileNotFoundError(2, "No such file or directory")

    driver = MPR121Grid(STRIPS, bus=3, smbus=no_bus)
    with pytest.raises(InputError, match=r"I2C bus 3 \(/dev/i2c-3\) cannot be opened"):
        driver.start(lambda e: None, lambda r: None)


# -- maps and options -------------------------------------------------------------------


def test_electrode_maps_from_the_profile() -> None:
    assert electrode_map({"rows": [0, 1, 2, 3, 4], "cols": [11, 10, 9, 8, 7]}) == StripMap(
        0x5A, (0, 1, 2, 3, 4), (11, 10, 9, 8, 7)
    )
    pads = electrode_map(
        {"pads": {"0x5C": [23, 24], "0x5A": [*range(11), -1], "0x5B": list(range(11, 23))}}
    )
    assert pads.addresses == (0x5A, 0x5B, 0x5C)
    assert [pads.electrodes(a) for a in pads.addresses] == [11, 12, 2]


def test_strips_make_a_cell_only_from_one_row_and_one_column() -> None:
    m = StripMap()
    assert m.cells({0x5A: 1 << 1 | 1 << 7}) == {(1, 2)}
    assert m.cells({0x5A: 1 << 1}) == frozenset()  # a row alone: no cell
    assert len(m.cells({0x5A: 0b11 | 1 << 7})) == 2  # two rows: a palm


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"pads": {"0x5A": list(range(12)), "0x5B": list(range(12, 24))}}, r"no electrode .*24"),
        ({"pads": {"0x5A": [0, 0, *range(1, 25)]}}, "a chip has 12"),
        (
            {"pads": {"0x5A": list(range(12)), "0x5B": [*range(12, 23), 0], "0x5C": [23, 24]}},
            "cell 0 is under 0x5A electrode 0 and 0x5B electrode 11",
        ),
        ({"pads": {"0x50": list(range(12))}}, "not an MPR121's"),
        ({"pads": {"0x5A": [*range(11), 25]}}, "25 is not a cell"),
        ({"rows": [0, 1, 2, 3], "cols": [5, 6, 7, 8, 9]}, "five electrodes"),
        ({"rows": [0, 1, 2, 3, 4], "cols": [4, 5, 6, 7, 8]}, r"electrodes \[4\] are used twice"),
        ({"rows": [0, 1, 2, 3, 4]}, "rows and cols"),
        ({"pads": {}, "rows": []}, "do not go with pads"),
        ({}, "give pads"),
    ],
)
def test_a_bad_electrode_map_is_refused_naming_what_is_wrong(spec, message) -> None:
    with pytest.raises(ValueError, match=message):
        electrode_map(spec)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"touch_threshold": 6, "release_threshold": 6}, "must be below"),
        ({"touch_threshold": 0}, "touch_threshold 0"),
        ({"debounce": 8}, "debounce 8"),
        ({"poll": 0}, "poll 0"),
    ],
)
def test_bad_options_are_refused(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        MPR121Grid(STRIPS, **kwargs)


def test_importing_the_driver_does_not_import_smbus2() -> None:
    code = "import sys, keystand.drivers.inputs.mpr121_emu; print('smbus2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
