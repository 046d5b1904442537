"""What an input kind declares: its table of settings, its pins, how it is
built (on a Pi and over emulated hardware), what `keystand doctor` checks for
it, and what a player can do with it.

A kind is one subclass of `InputKind` (`KIND = Mine()` in its module) and one
line in the registry (`keystand.inputkinds.SHIPPED`), or an entry point in the
`keystand.inputs` group for a kind installed beside keystand. The host reads
only these declarations: the profile schema reads `table` and `settings`, the
pin plan `buses` and `lines`, doctor `groups`, `modules` and `doctor`, `keystand
run` `build` and `emulate` (docs/drivers.md, "Adding an input kind").
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from keystand.drivers.inputs import InputDriver

from .. import schema
from ..pins import Use
from ..schema import setting

if TYPE_CHECKING:  # the touch filter: a grid's only (a keys-only build never loads it)
    from keystand.drivers.inputs.emulated import Twin
    from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

S = TypeVar("S")


class Word(enum.Enum):
    """How a kind lets a player name a word."""

    NONE = "none"
    CURSOR = "cursor"  # the guesser moves a cursor on their own screen (docs/buttons-only.md)
    TOUCH = "touch"  # names it directly: a touch on a grid or the page, a typed line


@dataclass(frozen=True)
class Check:
    """One line of `keystand doctor`'s report."""

    name: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{'ok' if self.ok else 'FAIL':4} {self.name}: {self.detail}"


class Probe(Protocol):
    """What a kind's doctor checks may ask of the machine (`doctor.Machine`
    behind it: a test's fake /dev tree, groups and openers)."""

    on_pi: bool

    def device(self, device: str, what: str, missing_fix: str) -> Check:
        """The device exists and opens read-write, or what to do about it."""
        ...

    def path(self, device: str) -> Path: ...

    def open_i2c(self, path: Path) -> Any:
        """An smbus2 SMBus on the device (ImportError without smbus2)."""
        ...

    def open_failed(self, error: OSError) -> str:
        """Why a device would not open, in words a builder can act on."""
        ...


@dataclass(frozen=True)
class Wiring:
    """What `keystand run` gives a kind's build: the pin factory (None on a Pi:
    gpiozero picks its own; the emulation's MockFactory under `--emulate`), the
    `--emulate` folder and fault, and, for a touch grid, its filter and the
    mat's orientation in the game's grid."""

    pins: Any = None
    emulate: Path | None = None
    noise: bool = False  # --emulate-fault grid:noise
    touch_filter: TouchFilter | None = None
    orientation: Orientation | None = None
    rows: int = 5
    cols: int = 5

    def grid_options(self) -> dict[str, Any]:
        """What every grid driver takes: its filter, orientation and grid."""
        return {
            "touch_filter": self.touch_filter,
            "orientation": self.orientation,
            "rows": self.rows,
            "cols": self.cols,
        }


@dataclass
class Built:
    """A kind's driver, and under `--emulate` its emulated twin (what plays a
    script's lines on the emulated hardware) and the hardware to close."""

    driver: InputDriver
    twin: Twin | None = None
    hardware: Any = None  # a grid's: press(cells), lift(), close()


class InputKind(Generic[S]):
    """One kind of input a profile may list in `[input] kinds`."""

    name: ClassVar[str]
    about: ClassVar[str] = ""
    clue: ClassVar[bool] = False  # a player can give a clue on it
    word: ClassVar[Word] = Word.NONE
    grid: ClassVar[bool] = False  # a touch grid: one a build, calibrated, fed by a filter
    table: ClassVar[str | None] = None  # its [input.TABLE], if it takes settings
    settings: ClassVar[type | None] = None  # the table's dataclass (`schema.setting` fields)
    needs: ClassVar[str] = ""  # what a profile listing it must add ("" : the table may be left out)
    shared: ClassVar[Sequence[str]] = ()  # tables of the host's it reads ("touch" for a grid)
    # Built from the profile by `build`/`emulate`; False: `keystand run` makes it
    # itself from its own options (the page, the keyboard, the script).
    wired: ClassVar[bool] = True
    # What `profile check`'s summary calls its `lines`, counted ("8 keys"); None:
    # "<name> lines"; "": left out of the words (still among the GPIOs counted).
    lines_word: ClassVar[str | None] = None

    def read(self, table: Any, where: str) -> S:
        """The kind's table from the profile, checked (SchemaError naming the key)."""
        assert self.settings is not None, f"{self.name} takes no table"
        built: S = schema.build(self.settings, table, where)
        return built

    def default(self) -> S | None:
        """Its settings when the profile gives no table: None where `needs` says
        the table must be given."""
        if self.settings is None or self.needs:
            return None
        made: S = self.settings()
        return made

    # -- the pin plan (pins.py) ------------------------------------------------------

    def buses(self, settings: S) -> Iterable[Use]:
        """The bus lines it needs kept free (planned before any panel's lines)."""
        return ()

    def bus_names(self, settings: S) -> Iterable[str]:
        """Those buses by name, for `profile check`'s summary ("I2C1", "UART")."""
        return ()

    def lines(self, settings: S) -> Iterable[Use]:
        """The GPIOs it wires (planned after the panels')."""
        return ()

    def counted(self, settings: S) -> str | None:
        """Its lines in `profile check`'s summary ("8 keys"), or None."""
        word = f"{self.name} lines" if self.lines_word is None else self.lines_word
        count = sum(1 for _ in self.lines(settings))
        return f"{count} {word}" if count and word else None

    # -- keystand doctor ------------------------------------------------------------

    def groups(self, settings: S) -> Iterable[str]:
        """The device groups its user must be in."""
        return ()

    def modules(self, settings: S) -> Iterable[tuple[str, str]]:
        """The Python modules it needs on a Pi, each with why."""
        return ()

    def doctor(self, settings: S, probe: Probe) -> Iterator[Check]:
        """Its devices' lines in `keystand doctor`."""
        return iter(())

    # -- keystand run ----------------------------------------------------------------

    def build(self, settings: S, wiring: Wiring) -> InputDriver:
        """Its real driver, on the Pi's own hardware."""
        raise NotImplementedError(f"input kind {self.name!r} is not built from a profile")

    def emulate(self, settings: S, wiring: Wiring) -> Built:
        """Its real driver over emulated hardware (`--emulate`), with the twin
        that plays a script on it; a kind with nothing to emulate is built as on
        a Pi and lets the script's lines pass by."""
        return Built(self.build(settings, wiring))


@dataclass(frozen=True)
class Touch:
    """[input.touch]: how a contact on either grid becomes a touch."""

    dwell: float = setting(0.08, between=(0, 2), unit="seconds", doc="steady on one cell")
    palm: float = setting(0.04, between=(0, 2), unit="seconds", doc="several cells: not a touch")
    bounce: float = setting(0.5, between=(0, 5), unit="seconds", doc="same cell again: a bounce")
    stuck: float = setting(10.0, between=(1, 600), unit="seconds", doc="a contact held this long")
    mirror: bool = setting(False, doc="the mat's columns run right to left as seat A sees them")


class TouchGrid(InputKind[S]):
    """A touch grid under the word cards: a player names a word by touching it.
    The host gives it `[input.touch]`'s filter and the mat's calibrated
    orientation (`Wiring`)."""

    word = Word.TOUCH
    grid = True
    shared = ("touch",)


__all__ = [
    "Built",
    "Check",
    "InputKind",
    "Probe",
    "Touch",
    "TouchGrid",
    "Wiring",
    "Word",
]
