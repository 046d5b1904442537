"""An emulated MPR121 behind a fake SMBus, for tests and `--emulate`.

The chip is modelled at its registers, the way the datasheet describes them,
so a driver that skips a step of the set-up behaves as it would on the real
chip: after a reset every register is 0x00 but CONFIG1 (0x10) and CONFIG2
(0x24); writes to 0x2B..0x7F other than ECR (0x5E) and the GPIO registers
(0x73..0x7A) are ignored while the chip runs (and logged, so a test can say
so); thresholds left at 0 make noise a touch. While it runs it takes one
sample per electrode sample interval (CONFIG2's ESI, from `clock`), tracks
each baseline with the rising/falling/touched filter registers (a simplified
form of the datasheet's MHD/NHD/NCL/FDL scheme), and sets a touch status bit
after the debounce count of samples with baseline - data above the touch
threshold, clearing it below the release threshold.

A finger is a drop of the electrode's data (`touch`, `release`); `noise`
jitters the data; `overcurrent` sets OVCF and stops the chip; `reset` is a
brown-out; `present = False` makes it stop answering (a loose wire). A chip
started with CL=10 takes its baseline from its first reading, so a finger
resting across a reset is not felt again until it lifts and lands; with
`keeps_baseline` the chip comes back with the baselines it had (as a driver
that saved and restored them would see it) and feels that finger at once,
which shows whether the driver itself, not the chip, keeps a resting finger
from counting twice. With an `IrqLine` the chip drives its IRQ output as the datasheet has it: low
(open drain, shared by every chip on the line) when a touch status bit
changes, let go when the status is read; since this chip samples only when
asked, a finger put on or lifted schedules a look `settle` seconds later (the
debounce's samples), on a timer thread of the emulator's own. `FakeSMBus` has the four smbus2
calls the driver uses and raises OSError 121 (Remote I/O error, a NACK) for an
address nobody answers, as Linux's i2c-dev does; its `glitches` rate makes
some transactions fail or flip a bit of the touch status they read.
"""

from __future__ import annotations

import errno
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .mpr121 import (
    CONFIG1,
    CONFIG2,
    DEBOUNCE,
    ECR,
    FILTER,
    SOFT_RESET,
    SOFT_RESET_KEY,
    THRESHOLDS,
    TOUCH_STATUS,
    PadMap,
    StripMap,
)
from .touchfilter import Cell

ELECTRODES = 13  # 12 electrodes and the proximity channel
GPIO_REGS = range(0x73, 0x7B)
STOP_ONLY = range(0x2B, 0x80)
BASELINE = 0x1E
DATA = 0x04
OVCF = 0x80  # bit 7 of register 0x01
MAX_CATCH_UP = 5000  # samples run at once after a long quiet spell (settled by then)


class IrqLine:
    """The chips' IRQ line on a pin (gpiozero's MockPin): open drain, so low
    while any chip holds it, high (its pull-up) when none does."""

    def __init__(self, pin: Any) -> None:
        self.pin = pin
        self.holding: set[int] = set()
        self.falls = 0  # times it went low
        self._lock = threading.Lock()
        pin.drive_high()

    def hold(self, chip: object) -> None:
        with self._lock:
            first = not self.holding
            self.holding.add(id(chip))
            if first:
                self.falls += 1
        if first:
            self.pin.drive_low()

    def let_go(self, chip: object) -> None:
        with self._lock:
            was = bool(self.holding)
            self.holding.discard(id(chip))
            last = was and not self.holding
        if last:
            self.pin.drive_high()


@dataclass(frozen=True)
class Write:
    """One register write the chip received: where, what, and whether it took."""

    reg: int
    value: int
    running: bool
    taken: bool


class EmulatedMPR121:
    """One chip's register file and sensing, advanced by `clock`."""

    def __init__(
        self,
        *,
        level: int = 700,
        finger: int = 60,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        keeps_baseline: bool = False,
        irq: IrqLine | None = None,
        schedule: Callable[[float, Callable[[], None]], None] | None = None,
    ) -> None:
        self.keeps_baseline = keeps_baseline
        self.irq = irq
        self.schedule = schedule or _timer
        self._lock = threading.RLock()  # the driver's thread and the emulator's timers
        self._kept: list[int] | None = None  # the baselines before the last reset
        self.level = [level] * ELECTRODES  # each electrode's data with no finger
        self.finger = finger  # how far a finger pulls an electrode's data down
        self.clock = clock
        self.rng = rng or random.Random(0)
        self.noise = 0  # +- counts of jitter on every sample
        self.present = True
        self.writes: list[Write] = []
        self._drop = [0] * ELECTRODES
        self._baseline = [0] * ELECTRODES  # 10-bit, the register holds the top 8
        self.reset()

    # -- what a test or `--emulate` does to the chip ---------------------------

    def touch(self, electrode: int, delta: int | None = None) -> None:
        """A finger on `electrode` (a smaller `delta` is a hover above it)."""
        with self._lock:
            self._catch_up()
            self._drop[electrode] = self.finger if delta is None else delta
        self._settle_later()

    def release(self, electrode: int) -> None:
        with self._lock:
            self._catch_up()
            self._drop[electrode] = 0
        self._settle_later()

    def _settle_later(self) -> None:
        """With an IRQ line: look again once the debounce's samples have run, so
        the status changes (and the line falls) when the real chip's would."""
        if self.irq is None or not self.running:
            return
        debounce = self.regs[DEBOUNCE]
        samples = max(debounce & 0x07, debounce >> 4 & 0x07) + 2
        self.schedule(samples * self._interval(), self._settle)

    def _settle(self) -> None:
        with self._lock:
            self._catch_up()

    def overcurrent(self) -> None:
        """REXT shorted: the chip sets OVCF and stops, as the datasheet says."""
        self._catch_up()
        self.regs[TOUCH_STATUS + 1] |= OVCF
        self.regs[ECR] = 0
        self._start_mode = 0

    @property
    def running(self) -> bool:
        return self.regs[ECR] & 0x3F != 0

    @property
    def ignored_writes(self) -> list[Write]:
        """Writes the chip dropped because it was running (a set-up mistake)."""
        return [w for w in self.writes if not w.taken]

    def touched(self) -> int:
        """The 12 touch status bits as the chip has them now."""
        self._catch_up()
        return (self.regs[TOUCH_STATUS] | self.regs[TOUCH_STATUS + 1] << 8) & 0x0FFF

    # -- the register interface ----------------------------------------------------

    def reset(self) -> None:
        if any(self._baseline):  # it has run: a reset, not the power-on
            self._kept = list(self._baseline)
        self.regs = bytearray(256)
        self.regs[CONFIG1] = 0x10
        self.regs[CONFIG2] = 0x24
        self._baseline = [0] * ELECTRODES  # 10-bit, the register holds the top 8
        self._count = [0] * ELECTRODES  # debounce counts toward a status change
        self._noise_count = [0] * ELECTRODES
        self._delay = [0] * ELECTRODES
        self._start_mode = 0
        self._last = self.clock()

    def read(self, reg: int) -> int:
        with self._lock:
            self._catch_up()
            if self.irq is not None and reg & 0xFF in (TOUCH_STATUS, TOUCH_STATUS + 1):
                self.irq.let_go(self)  # reading the status lets the line go
            return self.regs[reg & 0xFF]

    def write(self, reg: int, value: int) -> None:
        with self._lock:
            self._write(reg, value)

    def _write(self, reg: int, value: int) -> None:
        self._catch_up()
        reg &= 0xFF
        value &= 0xFF
        running = self.running
        if reg == SOFT_RESET:
            self.writes.append(Write(reg, value, running, value == SOFT_RESET_KEY))
            if value == SOFT_RESET_KEY:
                self.reset()
            return
        taken = True
        if reg == TOUCH_STATUS + 1:
            self.regs[reg] &= ~(value & OVCF)  # writing 1 clears OVCF; the rest is read-only
        elif reg < BASELINE or reg > SOFT_RESET:
            taken = False  # status and data registers are read-only
        elif reg == ECR:
            self._set_ecr(value)
        elif (reg in STOP_ONLY or reg >= BASELINE) and reg not in GPIO_REGS and running:
            taken = False
        else:
            self.regs[reg] = value
        self.writes.append(Write(reg, value, running, taken))

    def _set_ecr(self, value: int) -> None:
        was_running = self.running
        self.regs[ECR] = value
        if was_running and not self.running:
            self.regs[TOUCH_STATUS] = 0
            self.regs[TOUCH_STATUS + 1] &= OVCF
            self._count = [0] * ELECTRODES
        if self.running and not was_running:
            mode = value >> 6
            for e in range(ELECTRODES):
                data = self._data(e)
                if mode == 0b10:
                    self._baseline[e] = data & 0x3E0  # the 5 high bits of the first data
                elif mode == 0b11:
                    self._baseline[e] = data & 0x3FC
                else:
                    self._baseline[e] = self.regs[BASELINE + e] << 2
                self._count[e] = self._noise_count[e] = self._delay[e] = 0
            if self.keeps_baseline and self._kept is not None:
                self._baseline = list(self._kept)
            self._last = self.clock()

    # -- sensing ---------------------------------------------------------------------

    def _interval(self) -> float:
        return (1 << (self.regs[CONFIG2] & 0x07)) / 1000  # ESI: 1 ms .. 128 ms

    def _enabled(self) -> int:
        n = self.regs[ECR] & 0x0F
        return 12 if n >= 12 else n

    def _data(self, e: int) -> int:
        jitter = self.rng.randint(-self.noise, self.noise) if self.noise else 0
        return max(0, min(1023, self.level[e] - self._drop[e] + jitter))

    def _catch_up(self) -> None:
        now = self.clock()
        if not self.running:
            self._last = now
            return
        interval = self._interval()
        samples = int((now - self._last) / interval + 1e-9)
        if samples <= 0:
            return
        self._last += samples * interval
        for _ in range(min(samples, MAX_CATCH_UP)):
            self.sample()

    def sample(self) -> None:
        """One sample of every enabled electrode: data, status, baseline."""
        regs = self.regs
        status = regs[TOUCH_STATUS] | (regs[TOUCH_STATUS + 1] & 0x0F) << 8
        tracking = regs[ECR] >> 6 != 0b01
        debounce = regs[DEBOUNCE]
        for e in range(self._enabled()):
            data = self._data(e)
            regs[DATA + 2 * e] = data & 0xFF
            regs[DATA + 2 * e + 1] = data >> 8
            touched = bool(status >> e & 1)
            delta = self._baseline[e] - data
            if touched:
                change = delta < regs[THRESHOLDS + 2 * e + 1]
                limit = debounce >> 4 & 0x07
            else:
                change = delta > regs[THRESHOLDS + 2 * e]
                limit = debounce & 0x07
            self._count[e] = self._count[e] + 1 if change else 0
            if self._count[e] > limit:
                status ^= 1 << e
                touched = not touched
                self._count[e] = 0
            if tracking:
                self._track(e, data, touched)
            regs[BASELINE + e] = self._baseline[e] >> 2
        was = regs[TOUCH_STATUS] | (regs[TOUCH_STATUS + 1] & 0x0F) << 8
        regs[TOUCH_STATUS] = status & 0xFF
        regs[TOUCH_STATUS + 1] = (regs[TOUCH_STATUS + 1] & 0xF0) | status >> 8
        if self.irq is not None and status != was:
            self.irq.hold(self)

    def _track(self, e: int, data: int, touched: bool) -> None:
        regs, base = self.regs, FILTER
        diff = data - self._baseline[e]
        if diff == 0:
            return
        if touched:
            mhd, nhd, ncl, fdl = 0, regs[base + 8], regs[base + 9], regs[base + 10]
        elif diff > 0:
            mhd, nhd, ncl, fdl = (regs[base + i] for i in range(4))
        else:
            mhd, nhd, ncl, fdl = (regs[base + 4 + i] for i in range(4))
        self._delay[e] += 1
        if self._delay[e] <= fdl:
            return
        self._delay[e] = 0
        if abs(diff) <= 2 * mhd:
            self._baseline[e] = data  # a small change passes straight through
            self._noise_count[e] = 0
            return
        self._noise_count[e] += 1
        if self._noise_count[e] > ncl and nhd:
            step = min(2 * nhd, abs(diff))
            self._baseline[e] += step if diff > 0 else -step
            self._noise_count[e] = 0


def _timer(delay: float, then: Callable[[], None]) -> None:
    timer = threading.Timer(delay, then)
    timer.name = "mpr121-emulated-settle"
    timer.daemon = True
    timer.start()


def _nack(address: int) -> OSError:
    return OSError(errno.EREMOTEIO, f"Remote I/O error (nobody answers at 0x{address:02X})")


class FakeSMBus:
    """The smbus2 calls the driver makes, on emulated chips at their addresses."""

    def __init__(
        self,
        chips: Mapping[int, EmulatedMPR121],
        *,
        glitches: float = 0.0,
        rng: random.Random | None = None,
    ) -> None:
        self.chips = dict(chips)
        self.glitches = glitches  # share of transactions that go wrong
        self.rng = rng or random.Random(1)
        self.closed = False
        self.transactions = 0
        self.glitched = 0  # transactions the glitches spoiled

    def _chip(self, address: int) -> EmulatedMPR121:
        self.transactions += 1
        chip = self.chips.get(address)
        if chip is None or not chip.present or self.closed:
            raise _nack(address)
        if self.glitches and self.rng.random() < self.glitches / 2:
            self.glitched += 1
            raise _nack(address)  # a transient NACK
        return chip

    def read_byte_data(self, i2c_addr: int, register: int, force: object = None) -> int:
        return self.read_i2c_block_data(i2c_addr, register, 1)[0]

    def write_byte_data(
        self, i2c_addr: int, register: int, value: int, force: object = None
    ) -> None:
        self._chip(i2c_addr).write(register, value)

    def read_i2c_block_data(
        self, i2c_addr: int, register: int, length: int, force: object = None
    ) -> list[int]:
        chip = self._chip(i2c_addr)
        data = [chip.read(register + i) for i in range(length)]
        if self.glitches and register == TOUCH_STATUS and self.rng.random() < self.glitches / 2:
            self.glitched += 1
            i = self.rng.randrange(length)
            data[i] ^= 1 << self.rng.randrange(4 if i else 8)  # a flipped status bit
        return data

    def write_i2c_block_data(
        self, i2c_addr: int, register: int, data: Sequence[int], force: object = None
    ) -> None:
        chip = self._chip(i2c_addr)
        for i, value in enumerate(data):
            chip.write(register + i, value)

    def close(self) -> None:
        self.closed = True


class MachineI2C:
    """`machine.I2C`'s two memory calls on a fake SMBus, for the grid
    firmware's sensing code (gridsense.py) run on a desktop."""

    def __init__(self, bus: FakeSMBus) -> None:
        self.bus = bus

    def readfrom_mem(self, addr: int, memaddr: int, nbytes: int) -> bytes:
        return bytes(self.bus.read_i2c_block_data(addr, memaddr, nbytes))

    def writeto_mem(self, addr: int, memaddr: int, buf: bytes) -> None:
        self.bus.write_i2c_block_data(addr, memaddr, list(buf))


def electrodes_of(electrode_map: PadMap | StripMap, cell: Cell) -> list[tuple[int, int]]:
    """(address, electrode) pairs a finger on grid `cell` covers."""
    row, col = cell
    if isinstance(electrode_map, StripMap):
        a = electrode_map.address
        return [(a, electrode_map.rows[row]), (a, electrode_map.cols[col])]
    index = row * electrode_map.cols + col
    return [
        (address, e)
        for address, cells in electrode_map.chips
        for e, c in enumerate(cells)
        if c == index
    ]


class EmulatedGrid:
    """Emulated chips for an electrode map, and a finger to put on grid cells."""

    def __init__(
        self,
        electrode_map: PadMap | StripMap,
        *,
        clock: Callable[[], float] = time.monotonic,
        glitches: float = 0.0,
        seed: int = 0,
        keeps_baseline: bool = False,
        irq: IrqLine | None = None,
    ) -> None:
        self.map = electrode_map
        self.irq = irq
        self.chips = {
            a: EmulatedMPR121(
                clock=clock, rng=random.Random(seed + a), keeps_baseline=keeps_baseline, irq=irq
            )
            for a in electrode_map.addresses
        }
        self.bus = FakeSMBus(self.chips, glitches=glitches, rng=random.Random(seed))

    def press(self, cells: Iterable[Cell], delta: int | None = None) -> None:
        """Fingers on these grid cells (a palm is several)."""
        for cell in cells:
            for address, e in electrodes_of(self.map, cell):
                self.chips[address].touch(e, delta)

    def lift(self) -> None:
        """Every finger off."""
        for chip in self.chips.values():
            for e in range(ELECTRODES):
                chip.release(e)

    def unplug(self, address: int | None = None) -> None:
        """A chip (or every chip: the cable) stops answering; it keeps running."""
        for a, chip in self.chips.items():
            if address in (None, a):
                chip.present = False

    def plug(self, address: int | None = None) -> None:
        """A chip (or every chip) answers again."""
        for a, chip in self.chips.items():
            if address in (None, a):
                chip.present = True

    def smbus(self, bus: int) -> FakeSMBus:
        """What the driver's `smbus` argument wants: bus number -> the bus."""
        self.bus.closed = False
        return self.bus
