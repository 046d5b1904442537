"""The events input drivers emit, and their one-line text form.

`touch R C` (a word card touched, table coordinates), `press SEAT KEY [long]`
(a seat key: clue, pass, undo or menu), and the actions a script or the
simulator may name directly: `clue A|B`, `pass A|B`, `undo`, `penalty`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

SEATS = ("A", "B")


class KeyName(enum.Enum):
    """A seat's keys, by what they are labelled on the stand."""

    CLUE = "clue"
    PASS = "pass"
    UNDO = "undo"
    MENU = "menu"


@dataclass(frozen=True)
class Touch:
    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < 5 and 0 <= self.col < 5):
            raise ValueError(f"touch {self.row} {self.col}: rows and columns are 0..4")

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


def parse_line(text: str) -> InputEvent | float:
    """One script line (comment already stripped): an event, or seconds to wait."""
    words = text.split()
    verb, args = words[0].lower(), words[1:]
    usage = {
        "touch": "touch ROW COL",
        "press": "press A|B clue|pass|undo|menu [long]",
        "wait": "wait MS",
        "clue": "clue A|B",
        "pass": "pass A|B",
        "undo": "undo",
        "penalty": "penalty",
    }
    if verb not in usage:
        raise ValueError(f"unknown event {verb!r} (expected {', '.join(usage)})")
    try:
        if verb == "touch" and len(args) == 2:
            return Touch(int(args[0]), int(args[1]))
        if verb == "wait" and len(args) == 1:
            ms = int(args[0])
            if not 0 <= ms <= 3_600_000:
                raise ValueError(f"wait {ms}: expected 0..3600000 ms")
            return ms / 1000
        if verb == "press" and len(args) in (2, 3) and args[2:] in ([], ["long"]):
            return Press(args[0].upper(), KeyName(args[1].lower()), long=len(args) == 3)
        if verb in ("clue", "pass") and len(args) == 1:
            return Act(verb, args[0].upper())
        if verb in ("undo", "penalty") and not args:
            return Act(verb)
    except ValueError as e:
        raise ValueError(f"{e} (expected {usage[verb]!r})") from None
    raise ValueError(f"expected {usage[verb]!r}")
