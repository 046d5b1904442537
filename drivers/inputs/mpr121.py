"""The touch grid over I2C: MPR121 chips read with smbus2, an electrode map, the
touch filter.

Two ways to lay electrodes under the word cards (the profile says which); the
grid is the game's, `rows` x `cols` as the host passes them (5x5 by default):

- `PadMap`: one pad per cell, 25 electrodes on a 5x5 grid over up to three
  chips at 0x5A-0x5C (12 + 12 + 1, or any split);
- `StripMap`: a strip per row and one per column crossing under the cards
  (five and five, ten electrodes, on a 5x5 grid) on one chip; a finger is on a
  cell only when exactly one row and one column feel it (two rows and a column
  are a palm, not a guess).

Set-up, per chip, in the order the datasheet requires (configuration registers
take writes only in stop mode, so ECR starts the chip last): soft reset (0x63
to 0x80); ECR 0x00 (stop); CONFIG2 must read 0x24, its reset value, or the
device at that address is not an MPR121; the baseline filter (rising, falling,
touched: MHD, NHD, NCL, FDL at 0x2B-0x35); touch and release thresholds per
electrode (0x41-0x58); debounce (0x5B); CONFIG1 0x10 (16 uA, 6 first-filter
samples) and CONFIG2 0x20 (0.5 us, 4 samples, 1 ms interval); ECR with CL=10
(baseline tracking on, starting from the five high bits of the first reading)
and as many electrodes as the map uses; ECR read back.

Then the driver reads the two touch status bytes of every chip: every `poll`
seconds when the chips' IRQ line is not wired; when it is (`irq`, a GPIO: the
MPR121's IRQ output is open drain and falls when a touch status changes, and
is let go when the status is read), it waits on that line while the grid is
idle (every chip answering, no touch being timed: nothing touched, or only what
has rested past the filter's `stuck`, a cup on a card) and reads the chips when it falls,
or after `idle_check` seconds (`IDLE_CHECK`, 3) to see that they still run
(their ECR), then every `poll` seconds again until the grid is idle. A chip that
fails `lost_after` reads in a row, or raises its over-current flag, is lost:
one `Health.LOST` report names it, the driver tries its set-up again every
`retry` seconds, and `Health.BACK` follows when every chip answers again.
A chip that reset itself (a brown-out) is noticed by its ECR, read back every
`check_every` polls and whenever a touch bit clears (a reset chip reads as all
clear, which must not pass for a finger lifting), and set up again without a
report. While a chip is lost or being set up again, the cells under it are
fed to the touch filter as unknown: they keep their last known contact, so a
finger resting across the loss is not taken as lifted and its cell does not
count a second time when the chip answers again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from keystand.errors import KeystandError

from ..gpio import GpioClaimError, GpioTrouble, diagnose, keep_cwd
from .base import Emit, Health, HealthReport, InputDriver, InputError, Report
from .events import Touch
from .touchfilter import Cell, Orientation, TouchFilter

# Registers (datasheet names).
TOUCH_STATUS = 0x00  # 0x00-0x01: ELE0-7, ELE8-11 + ELEPROX, OVCF in bit 7 of 0x01
FILTER = 0x2B  # MHDR NHDR NCLR FDLR MHDF NHDF NCLF FDLF NHDT NCLT FDLT
THRESHOLDS = 0x41  # E0TTH, E0RTH, E1TTH, ...
DEBOUNCE = 0x5B
CONFIG1 = 0x5C
CONFIG2 = 0x5D
ECR = 0x5E
SOFT_RESET = 0x80
SOFT_RESET_KEY = 0x63
CONFIG2_AFTER_RESET = 0x24
OVCF = 0x8000  # in the 16-bit status word

ADDRESSES = (0x5A, 0x5B, 0x5C, 0x5D)  # ADDR pin to GND, VDD, SDA, SCL
ELECTRODES = 12
ROWS = COLS = 5  # the default grid's shape, Duet's and classic's
MAX_CHIPS = 3  # the addresses 0x5A-0x5C a pad map may use
# Seconds between reads of idle chips waiting on their IRQ line: a chip that reset
# itself raises no IRQ, so only its ECR read back says so. Once a second cost an
# idle touch-mpr121 stand about 0.3% of a Zero 2 W core (the bench, issue 33's goal
# 0.2%); every 3 s, about a third of that, a reset chip is noticed within 3 s.
IDLE_CHECK = 3.0
_COUNT = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

# Baseline filter: small changes pass at once, larger ones rising slowly (a
# release drifts back over ~15 samples per step) and falling fast (a finger is
# caught by the touch threshold first; while touched the baseline stands still,
# NHDT = 0). The values of the datasheet's quick-start set-up.
FILTER_VALUES = (0x01, 0x01, 0x0E, 0x00, 0x01, 0x05, 0x01, 0x00, 0x00, 0x00, 0x00)
CONFIG1_VALUE = 0x10  # FFI 6 samples, CDC 16 uA
CONFIG2_VALUE = 0x20  # CDT 0.5 us, SFI 4 samples, ESI 1 ms
CL_TRACK_FROM_FIRST = 0b10 << 6


def _address(value: object, where: str) -> int:
    try:
        address = int(value, 0) if isinstance(value, str) else value
    except ValueError:
        address = None
    if isinstance(address, bool) or address not in ADDRESSES:
        raise ValueError(f"{where}: address {value!r} is not an MPR121's (0x5A..0x5D)")
    return address


@dataclass(frozen=True)
class PadMap:
    """One pad per cell of a `rows` x `cols` grid: for each chip, the cell
    (row * cols + col, grid coordinates) under each electrode, -1 where an
    electrode is unused."""

    chips: tuple[tuple[int, tuple[int, ...]], ...]
    rows: int = ROWS
    cols: int = COLS

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    def __post_init__(self) -> None:
        seen: dict[int, str] = {}
        addresses = [a for a, _ in self.chips]
        cells_in_grid = self.rows * self.cols
        if not self.chips or len(set(addresses)) != len(addresses) or len(self.chips) > MAX_CHIPS:
            raise ValueError(f"pad map: expected one to three distinct chips, not {addresses}")
        for address, cells in self.chips:
            _address(address, "pad map")
            if len(cells) > ELECTRODES:
                raise ValueError(f"pad map 0x{address:02X}: {len(cells)} electrodes, a chip has 12")
            for e, cell in enumerate(cells):
                if (
                    isinstance(cell, bool)
                    or not isinstance(cell, int)
                    or not -1 <= cell < cells_in_grid
                ):
                    raise ValueError(
                        f"pad map 0x{address:02X} electrode {e}: {cell!r} is not a cell "
                        f"0..{cells_in_grid - 1} (or -1 for none)"
                    )
                if cell >= 0:
                    here = f"0x{address:02X} electrode {e}"
                    if cell in seen:
                        raise ValueError(f"pad map: cell {cell} is under {seen[cell]} and {here}")
                    seen[cell] = here
        missing = sorted(set(range(cells_in_grid)) - set(seen))
        if missing:
            raise ValueError(f"pad map: no electrode for cells {missing}")

    @classmethod
    def from_profile(
        cls, pads: Mapping[Any, Sequence[int]], rows: int = ROWS, cols: int = COLS
    ) -> PadMap:
        """From the profile's table {"0x5A": [cell of electrode 0, 1, ...], ...}."""
        if not isinstance(pads, Mapping):
            raise ValueError(f"pad map {pads!r}: expected {{address: [cell, ...]}}")
        chips = []
        for key, cells in pads.items():
            if not isinstance(cells, Sequence) or isinstance(cells, str):
                raise ValueError(f"pad map {key}: expected a list of cells, not {cells!r}")
            chips.append((_address(key, "pad map"), tuple(cells)))
        return cls(tuple(sorted(chips)), rows, cols)

    @property
    def addresses(self) -> tuple[int, ...]:
        return tuple(a for a, _ in self.chips)

    def cells_of(self, address: int) -> frozenset[Cell]:
        """The cells whose pads the chip at `address` reads."""
        return frozenset(divmod(c, self.cols) for c in dict(self.chips)[address] if c >= 0)

    def electrodes(self, address: int) -> int:
        """How many electrodes (ELE0..) to run on the chip at `address`."""
        cells = dict(self.chips)[address]
        return max(e for e, c in enumerate(cells) if c >= 0) + 1

    def cells(self, status: Mapping[int, int]) -> frozenset[Cell]:
        """The cells in contact, from each answering chip's 12 status bits."""
        out: set[Cell] = set()
        for address, cells in self.chips:
            bits = status.get(address, 0)
            out.update(
                divmod(c, self.cols) for e, c in enumerate(cells) if c >= 0 and bits >> e & 1
            )
        return frozenset(out)


@dataclass(frozen=True)
class StripMap:
    """A strip per row and one per column on one chip: the electrode of each
    row (row 0 first) and each column (col 0 first), grid coordinates. The grid
    is as many rows and columns as there are strips; `shape` is the grid they
    must make (the game's: five and five by default)."""

    address: int = 0x5A
    rows: tuple[int, ...] = (0, 1, 2, 3, 4)
    cols: tuple[int, ...] = (5, 6, 7, 8, 9)
    shape: tuple[int, int] = (ROWS, COLS)

    def __post_init__(self) -> None:
        _address(self.address, "strip map")
        for name, strips, count in (
            ("rows", self.rows, self.shape[0]),
            ("cols", self.cols, self.shape[1]),
        ):
            if len(strips) != count or not all(
                isinstance(e, int) and not isinstance(e, bool) and 0 <= e < ELECTRODES
                for e in strips
            ):
                words = _COUNT[count] if count < len(_COUNT) else str(count)
                raise ValueError(f"strip map {name} {strips!r}: {words} electrodes 0..11")
        both = self.rows + self.cols
        if len(set(both)) != len(both):
            twice = sorted({e for e in both if both.count(e) > 1})
            raise ValueError(f"strip map: electrodes {twice} are used twice")

    @property
    def addresses(self) -> tuple[int, ...]:
        return (self.address,)

    def cells_of(self, address: int) -> frozenset[Cell]:
        """Every cell: each crossing needs the one chip's row and column."""
        return frozenset((r, c) for r in range(len(self.rows)) for c in range(len(self.cols)))

    def electrodes(self, address: int) -> int:
        return max(self.rows + self.cols) + 1

    def cells(self, status: Mapping[int, int]) -> frozenset[Cell]:
        """Every crossing of an active row and an active column: one cell for a
        finger, several for a palm, none when only rows or only columns feel it."""
        bits = status.get(self.address, 0)
        rows = [r for r, e in enumerate(self.rows) if bits >> e & 1]
        cols = [c for c, e in enumerate(self.cols) if bits >> e & 1]
        return frozenset((r, c) for r in rows for c in cols)


def electrode_map(spec: Mapping[str, Any], rows: int = ROWS, cols: int = COLS) -> PadMap | StripMap:
    """The profile's electrode map: {"pads": {address: [cells]}} or
    {"address": 0x5A, "rows": [...], "cols": [...]}, for a `rows` x `cols` grid."""
    if "pads" in spec:
        extra = set(spec) - {"pads"}
        if extra:
            raise ValueError(f"electrode map: {sorted(extra)} do not go with pads")
        return PadMap.from_profile(spec["pads"], rows, cols)
    if "rows" in spec or "cols" in spec:
        extra = set(spec) - {"address", "rows", "cols"}
        if extra:
            raise ValueError(f"electrode map: unknown keys {sorted(extra)}")
        try:
            return StripMap(
                _address(spec.get("address", 0x5A), "strip map"),
                tuple(spec["rows"]),
                tuple(spec["cols"]),
                (rows, cols),
            )
        except (KeyError, TypeError) as e:
            raise ValueError(
                f"strip map: rows and cols are lists of {rows} and {cols} electrodes ({e})"
            ) from None
    raise ValueError("electrode map: give pads (one per cell) or rows and cols (strips)")


class ChipError(KeystandError):
    """A device at a chip's address that is not a working MPR121."""


class IrqPinError(InputError, GpioClaimError):
    """The chips' IRQ line cannot be had; `trouble` says why (keystand.drivers.gpio)."""

    def __init__(
        self, message: str, trouble: GpioTrouble, *, pin: int, chip: str | None = None
    ) -> None:
        super().__init__(message, pin=pin, trouble=trouble, chip=chip)


@dataclass
class _Chip:
    address: int
    electrodes: int
    fails: int = 0
    lost: str = ""  # why, while lost
    retry_at: float = 0.0
    ecr_wrong: int = 0
    polls: int = 0
    bits: int = 0  # the last status read

    @property
    def ecr(self) -> int:
        return CL_TRACK_FROM_FIRST | self.electrodes


class MPR121Grid(InputDriver):
    """The I2C touch grid: polls the chips, filters, emits `Touch` in table
    coordinates."""

    name = "grid"

    def __init__(
        self,
        electrodes: PadMap | StripMap | Mapping[str, Any],
        *,
        bus: int = 1,
        touch_threshold: int = 12,
        release_threshold: int = 6,
        debounce: int = 1,
        poll: float = 0.01,
        retry: float = 1.0,
        lost_after: int = 5,
        check_every: int = 100,
        rows: int = ROWS,
        cols: int = COLS,
        touch_filter: TouchFilter | None = None,
        orientation: Orientation | None = None,
        smbus: Callable[[int], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], object] | None = None,
        irq: int | None = None,
        idle_check: float = IDLE_CHECK,
        pin_factory: Any = None,
    ) -> None:
        if isinstance(electrodes, Mapping):  # the profile's table
            electrodes = electrode_map(electrodes, rows, cols)
        if not isinstance(electrodes, PadMap | StripMap):
            raise ValueError(f"electrode map {electrodes!r}: a PadMap or a StripMap")
        if electrodes.shape != (rows, cols):
            have = "x".join(map(str, electrodes.shape))
            raise ValueError(f"electrode map for a {have} grid; the game's grid is {rows}x{cols}")
        for name, value, low, high in (
            ("touch_threshold", touch_threshold, 1, 255),
            ("release_threshold", release_threshold, 1, 255),
            ("debounce", debounce, 0, 7),
            ("lost_after", lost_after, 1, 100),
            ("check_every", check_every, 1, 100_000),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"mpr121 {name} {value!r}: a whole number {low}..{high}")
        if release_threshold >= touch_threshold:
            raise ValueError(
                f"mpr121 release_threshold {release_threshold} must be below touch_threshold "
                f"{touch_threshold} (the hysteresis that keeps a touch from flickering)"
            )
        if irq is not None and (
            isinstance(irq, bool) or not isinstance(irq, int) or not 0 <= irq <= 27
        ):
            raise ValueError(f"mpr121 irq {irq!r}: a BCM GPIO 0..27, or None (polled)")
        for name, seconds in (("poll", poll), ("retry", retry), ("idle_check", idle_check)):
            number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
            if not (number and 0 < seconds <= 60):
                raise ValueError(f"mpr121 {name} {seconds!r}: seconds, above 0 and up to 60")
        self.map = electrodes
        self.bus_number = bus
        self.touch_threshold = touch_threshold
        self.release_threshold = release_threshold
        self.debounce = debounce
        self.poll_interval = float(poll)
        self.retry = float(retry)
        self.lost_after = lost_after
        self.check_every = check_every
        self.filter = touch_filter or TouchFilter(rows=rows, cols=cols, clock=clock)
        self.orientation = orientation or Orientation(rows=rows, cols=cols)
        self.clock = clock
        self._smbus = smbus
        self.irq = irq
        self.idle_check = float(idle_check)
        self.pin_factory = pin_factory
        self._irq: Any = None  # the IRQ line's gpiozero device, while running
        self._stop = threading.Event()
        self._wake = threading.Event()  # the IRQ line fell, or stop()
        self._wait = wait or self._wake.wait  # stop() and the IRQ line cut a wait short
        self.polls = 0  # passes over the chips since start (the idle cost, counted)
        self._verify = False
        self._thread: threading.Thread | None = None
        self._bus: Any = None
        self._emit: Emit = lambda event: None
        self._report: Report = lambda report: None
        self._chips = [_Chip(a, electrodes.electrodes(a)) for a in electrodes.addresses]
        self._health: Health | None = None

    # -- the InputDriver interface ------------------------------------------------

    def start(self, emit: Emit, report: Report) -> None:
        """Open the bus (InputError if it cannot be) and poll from a thread."""
        self._emit, self._report = emit, report
        self._bus = self._open_bus()
        if self.irq is not None:
            try:
                self._irq = self._claim_irq(self.irq)
            except InputError:
                self._bus.close()
                self._bus = None
                raise
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="mpr121-grid", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._thread = None
        if self._irq is not None:
            self._irq.close()
            self._irq = None
        if self._bus is not None:
            self._bus.close()
            self._bus = None

    # -- the work ---------------------------------------------------------------------

    def _open_bus(self) -> Any:
        if self._smbus is None:
            from smbus2 import SMBus  # only an I2C build needs smbus2

            self._smbus = SMBus
        try:
            return self._smbus(self.bus_number)
        except OSError as e:
            raise InputError(
                f"I2C bus {self.bus_number} (/dev/i2c-{self.bus_number}) cannot be opened: "
                f"{e.strerror or e}; is I2C enabled (raspi-config, dtparam=i2c_arm=on)?"
            ) from e

    def _claim_irq(self, pin: int) -> Any:
        """The IRQ line as a gpiozero input (pulled up: the chips pull it low)."""
        import warnings

        from gpiozero import DigitalInputDevice  # only a build with the IRQ wired

        try:
            with warnings.catch_warnings(), keep_cwd():
                warnings.simplefilter("ignore")  # gpiozero's back-end fallbacks
                line = DigitalInputDevice(pin, pull_up=True, pin_factory=self.pin_factory)
        except Exception as e:  # gpiozero's and lgpio's errors share no root
            found = diagnose(e)
            if found is None:
                raise
            raise IrqPinError(
                f"the MPR121's IRQ on GPIO{pin}: {found.detail}",
                found.trouble,
                pin=pin,
                chip=found.chip,
            ) from e
        line.when_activated = self._wake.set
        return line

    def _run(self) -> None:
        now = self.clock()
        for chip in self._chips:
            self._try_setup(chip, now)
        self._tell()  # CONNECTED, or LOST naming the chips that did not answer
        verify = False
        while not self._stop.is_set():
            self.poll(verify=verify)
            verify = self._sleep()

    def _sleep(self) -> bool:
        """Wait for the next pass: on the IRQ line while the grid is idle (True:
        the chips are read after an idle wait, their ECR checked too), else `poll`."""
        self._wake.clear()  # a fall already seen must not cut the next wait short
        if self._stop.is_set():
            return False
        if self._irq is None or not self._idle():
            self._wait(self.poll_interval)
            return False
        if self._irq.is_active:  # a change since the last read
            return False
        self._wait(self.idle_check)
        return not self._irq.is_active

    def _idle(self) -> bool:
        """Nothing to time: no chip lost, and the filter settled (no contact, or
        only stuck ones: a cup left on a card waits on the line too; its lifting,
        or a finger beside it, changes the status and the line falls)."""
        return self.filter.settled and not any(c.lost for c in self._chips)

    def poll(self, *, verify: bool = False) -> None:
        """One pass: read every chip, feed the filter, emit a touch that counts.
        The thread calls it every `poll` seconds, or when the IRQ line falls;
        `verify`: check each chip's ECR too (after an idle wait on the IRQ line)."""
        self.polls += 1
        self._verify = verify
        now = self.clock()
        status: dict[int, int] = {}
        unknown: set[Cell] = set()  # under a chip that cannot tell this pass
        changed = False
        for chip in self._chips:
            was_lost = bool(chip.lost)
            if was_lost:
                if now >= chip.retry_at:
                    self._try_setup(chip, now)
            else:
                bits = self._read_status(chip, now)
                if bits is not None:
                    status[chip.address] = bits
            if chip.address not in status:
                unknown |= self.map.cells_of(chip.address)
            changed |= was_lost != bool(chip.lost)
        if changed:
            self._tell()
        cell = self.filter.feed(self.map.cells(status), now, unknown=unknown)
        if cell is not None:
            self._emit(Touch(*self.orientation.to_table(cell)))

    def _read_status(self, chip: _Chip, now: float) -> int | None:
        """The chip's 12 touch bits, or None when they tell nothing (the chip is
        lost, or reset itself and is being set up again)."""
        try:
            low, high = self._bus.read_i2c_block_data(chip.address, TOUCH_STATUS, 2)
        except OSError as e:
            chip.fails += 1
            if chip.fails >= self.lost_after:
                self._lose(chip, now, f"does not answer ({e.strerror or e})")
                return None
            return chip.bits  # one failed read is no news, not a finger lifted
        chip.fails = 0
        bits = low | high << 8
        if bits & OVCF:
            self._lose(chip, now, "reports over-current on REXT (check the wiring)")
            return None
        bits &= 0x0FFF
        chip.polls += 1
        released = chip.bits & ~bits
        check = released or self._verify or chip.polls % self.check_every == 0
        if check and not self._still_running(chip, now):
            return None
        chip.bits = bits
        return bits

    def _still_running(self, chip: _Chip, now: float) -> bool:
        """Whether the chip's status may be taken: its ECR says it runs as set
        up. A chip that browned out and reset answers with ECR 0x00, its
        status empty; it is set up again after two such reads in a row, so
        that one bad read does not reset a chip under a finger."""
        try:
            ecr = self._bus.read_byte_data(chip.address, ECR)
        except OSError:
            return True  # the status read counts failures
        if ecr == chip.ecr:
            chip.ecr_wrong = 0
            return True
        chip.ecr_wrong += 1
        if chip.ecr_wrong < 2:
            return False
        chip.ecr_wrong = 0
        if not self._setup_ok(chip):
            self._lose(chip, now, f"reset itself and cannot be set up again: {chip.lost}")
        return False

    def _lose(self, chip: _Chip, now: float, why: str) -> None:
        chip.lost = why
        chip.fails = 0
        chip.retry_at = now + self.retry

    def _try_setup(self, chip: _Chip, now: float) -> None:
        if not self._setup_ok(chip):
            chip.retry_at = now + self.retry

    def _setup_ok(self, chip: _Chip) -> bool:
        """Set the chip up, trying `lost_after` times (a transient NACK should not
        cost a retry period); on failure `chip.lost` says why."""
        why = ""
        for _ in range(self.lost_after):
            try:
                self.setup(chip.address, chip.electrodes)
            except ChipError as e:
                why = str(e)
            except OSError as e:
                why = f"does not answer ({e.strerror or e})"
            else:
                chip.lost, chip.fails, chip.ecr_wrong, chip.bits = "", 0, 0, 0
                return True
        chip.lost = why
        return False

    def setup(self, address: int, electrodes: int) -> None:
        """The datasheet's set-up of one chip (see the module doc). Raises
        OSError when nothing answers, ChipError when something else does."""
        bus = self._bus
        bus.write_byte_data(address, SOFT_RESET, SOFT_RESET_KEY)
        bus.write_byte_data(address, ECR, 0x00)
        config2 = bus.read_byte_data(address, CONFIG2)
        if config2 != CONFIG2_AFTER_RESET:
            raise ChipError(
                f"is not an MPR121 (CONFIG2 reads 0x{config2:02X} after a reset, "
                f"expected 0x{CONFIG2_AFTER_RESET:02X})"
            )
        bus.write_i2c_block_data(address, FILTER, list(FILTER_VALUES))
        bus.write_i2c_block_data(
            address, THRESHOLDS, [self.touch_threshold, self.release_threshold] * ELECTRODES
        )
        bus.write_byte_data(address, DEBOUNCE, self.debounce << 4 | self.debounce)
        bus.write_i2c_block_data(address, CONFIG1, [CONFIG1_VALUE, CONFIG2_VALUE])
        ecr = CL_TRACK_FROM_FIRST | electrodes
        bus.write_byte_data(address, ECR, ecr)
        got = bus.read_byte_data(address, ECR)
        if got != ecr:
            raise ChipError(f"did not start (ECR reads 0x{got:02X}, wrote 0x{ecr:02X})")

    def _tell(self) -> None:
        lost = [c for c in self._chips if c.lost]
        where = f"I2C bus {self.bus_number}"
        if lost:
            if self._health is Health.LOST:
                return  # a change of health is news; another chip's trouble is not
            detail = "; ".join(f"MPR121 0x{c.address:02X} {c.lost}" for c in lost)
            self._health = Health.LOST
            self._report(HealthReport(self.name, Health.LOST, f"{detail} ({where})"))
        elif self._health is None:
            self._health = Health.CONNECTED
            n = len(self._chips)
            self._report(
                HealthReport(self.name, Health.CONNECTED, f"{n} MPR121 chip(s) on {where}")
            )
        elif self._health is Health.LOST:
            self._health = Health.BACK
            self._report(HealthReport(self.name, Health.BACK, f"every MPR121 answers ({where})"))

    @property
    def lost(self) -> list[int]:
        """Addresses of the chips lost now."""
        return [c.address for c in self._chips if c.lost]
