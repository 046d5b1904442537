"""The events input drivers emit, and their one-line text form.

`touch R C` (a word card touched, table coordinates), `press SEAT KEY [long]`
(a seat key: clue, pass, undo or menu), and the actions a script or the
simulator may name directly: `clue A|B`, `pass A|B`, `undo`, `penalty`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

SEATS = ("A", "B")


class KeyName(enum.Enum):
    """A seat's keys, by what they are labelled on the stand."""

    CLUE = "clue"
    PASS = "pass"
    UNDO = "undo"
    MENU = "menu"


ROWS = COLS = 5  # the default grid's shape, Duet's and classic's


def _bounds(rows: int, cols: int) -> str:
    return f"0..{rows - 1}" if rows == cols else f"0..{rows - 1} and 0..{cols - 1}"


def off_grid(row: int, col: int, rows: int = ROWS, cols: int = COLS) -> str | None:
    """What is wrong with (row, col) on a `rows` x `cols` grid, or None."""
    if 0 <= row < rows and 0 <= col < cols:
        return None
    if rows == cols:
        return f"rows and columns are 0..{rows - 1}"
    return f"rows are 0..{rows - 1}, columns 0..{cols - 1}"


@dataclass(frozen=True)
class Touch:
    """A word touched, (row, col) on the table; the game's grid bounds it (the
    driver that makes it knows the grid, the rules check it again)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if self.row < 0 or self.col < 0:
            raise ValueError(f"touch {self.row} {self.col}: rows and columns count from 0")

    def __str__(self) -> str:
        return f"touch {self.row} {self.col}"


@dataclass(frozen=True)
class Press:
    seat: str
    key: KeyName
    long: bool = False

    def __post_init__(self) -> None:
        if self.seat not in SEATS:
            raise ValueError(f"press {self.seat}: the seat is A or B")

    def __str__(self) -> str:
        return f"press {self.seat} {self.key.value}" + (" long" if self.long else "")


@dataclass(frozen=True)
class Act:
    """A game action named directly (scripts, tests): clue, pass, undo, penalty."""

    verb: str
    seat: str | None = None

    def __post_init__(self) -> None:
        if self.verb in ("clue", "pass"):
            if self.seat not in SEATS:
                raise ValueError(f"{self.verb} {self.seat}: the seat is A or B")
        elif self.verb in ("undo", "penalty"):
            if self.seat is not None:
                raise ValueError(f"{self.verb} takes no seat")
        else:
            raise ValueError(f"{self.verb!r}: not an action (clue, pass, undo, penalty)")

    def __str__(self) -> str:
        return f"{self.verb} {self.seat}" if self.seat else self.verb


InputEvent = Touch | Press | Act


# verb: (usage, how many words may follow it)
_USAGE: dict[str, tuple[str, tuple[int, ...]]] = {
    "touch": ("touch ROW COL", (2,)),
    "clue": ("clue A|B", (1,)),
    "pass": ("pass A|B", (1,)),
    "undo": ("undo", (0,)),
    "penalty": ("penalty", (0,)),
    "press": ("press A|B clue|pass|undo|menu [long]", (2, 3)),
    "wait": ("wait MS", (1,)),
}
VERBS = tuple(_USAGE)  # every line `parse_line` reads (`keystand run --script` takes them all)


EXCERPT = 40  # characters of a bad line a message quotes


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """A short, escaped quote of `text` for a message (a 10 MB line stays short)."""
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


def _ascii_digits(word: str) -> bool:
    return word.isascii() and word.isdigit()


def number(word: str) -> int:
    """A script's number: ASCII digits only, as a card code takes only its own
    characters. int() alone would take "٢" (Arabic-Indic two) as 2, "+2", "1_0"
    and " 2": a line that looks like another would play as it. ValueError else."""
    if not _ascii_digits(word):
        raise ValueError(f"{excerpt(word, 12)}: not a number of ASCII digits")
    return int(word)


def _seat(word: str) -> str:
    seat = word.upper()
    if seat not in SEATS:
        raise ValueError(f"seat {excerpt(word, 12)}: expected A or B")
    return seat


def parse_line(
    text: str, rows: int = ROWS, cols: int = COLS, *, takes: Sequence[str] = VERBS
) -> InputEvent | float:
    """One script line (comment already stripped): an event, or seconds to wait.
    A malformed line raises ValueError saying what is wrong with it. `takes`: the
    verbs the reader takes, which an unknown verb's message lists (the reader
    refuses a known verb it does not take, with its own reason)."""
    words = text.split()
    if not words:
        raise ValueError("empty line")
    verb, args = words[0].lower(), words[1:]
    if verb not in _USAGE:
        raise ValueError(
            f"{excerpt(text)}: unknown event {excerpt(verb, 12)} (expected {', '.join(takes)})"
        )
    usage, counts = _USAGE[verb]
    if len(args) not in counts:
        raise ValueError(f"{excerpt(text)}: expected {usage!r}")
    try:
        if verb == "touch":
            try:
                row, col = number(args[0]), number(args[1])
            except ValueError:
                raise ValueError(f"ROW and COL are numbers {_bounds(rows, cols)}") from None
            wrong = off_grid(row, col, rows, cols)
            if wrong:
                raise ValueError(wrong)
            return Touch(row, col)
        if verb in ("clue", "pass"):
            return Act(verb, _seat(args[0]))
        if verb in ("undo", "penalty"):
            return Act(verb)
        if verb == "wait":
            ms = number(args[0]) if _ascii_digits(args[0]) else -1
            if not 0 <= ms <= 3_600_000:
                raise ValueError("MS is a whole number of milliseconds, 0..3600000")
            return ms / 1000
        if args[2:] not in ([], ["long"]):
            raise ValueError(f"{excerpt(args[2], 12)}: only 'long' may follow the key")
        try:
            key = KeyName(args[1].lower())
        except ValueError:
            raise ValueError(
                f"key {excerpt(args[1], 12)}: expected clue, pass, undo or menu"
            ) from None
        return Press(_seat(args[0]), key, long=len(args) == 3)
    except ValueError as e:
        raise ValueError(f"{excerpt(text)}: {e}") from None
