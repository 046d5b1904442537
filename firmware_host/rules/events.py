"""The inputs the Duet rules take: small immutable values, validated on construction.

The same vocabulary as the script text of docs/design.md: `touch R C`, `clue A|B`,
`pass A|B`, `undo`, `penalty` (`Undo` is the rules core's, every game's). A
malformed event (a cell off the grid) cannot be built; a well-formed one the
rules refuse comes back as a Rejection.
"""

from __future__ import annotations

from dataclasses import dataclass

from .card import SIZE, Seat, cell
from .core import Undo
from .errors import EventError


@dataclass(frozen=True)
class Touch:
    """A word card touched at table (row, col): a guess by whoever may guess now."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < SIZE and 0 <= self.col < SIZE):
            raise EventError(f"touch {self.row} {self.col}: rows and columns are 0..{SIZE - 1}")

    @property
    def cell(self) -> int:
        return cell(self.row, self.col)

    @classmethod
    def at(cls, index: int) -> Touch:
        if not 0 <= index < SIZE * SIZE:
            raise EventError(f"cell {index} is off the grid (0..24)")
        return cls(*divmod(index, SIZE))

    def __str__(self) -> str:
        return f"touch {self.row} {self.col}"


@dataclass(frozen=True)
class Clue:
    """`seat` gives a clue (a word and a number, said aloud). In sudden death,
    where nobody gives clues, the same key means "I am guessing now"."""

    seat: Seat

    def __str__(self) -> str:
        return f"clue {self.seat.value}"


@dataclass(frozen=True)
class Pass:
    """`seat`, the guesser, ends the turn after at least one correct guess."""

    seat: Seat

    def __str__(self) -> str:
        return f"pass {self.seat.value}"


@dataclass(frozen=True)
class Penalty:
    """The group calls the current clue invalid: one token leaves the bank."""

    def __str__(self) -> str:
        return "penalty"


Event = Touch | Clue | Pass | Undo | Penalty


def digits(word: str) -> int:
    """A number of an event's text: ASCII digits only (int() would also take
    "٢", "+2" or "1_0", so a journal or script line could play as another)."""
    if not (word.isascii() and word.isdigit()):
        raise ValueError(f"{word!r}: not a number of ASCII digits")
    return int(word)


def parse_event(text: str) -> Event:
    """One event from its script text; raises EventError naming what is wrong."""
    words = text.split()
    if not words:
        raise EventError("empty event")
    verb, args = words[0].lower(), words[1:]

    def need(n: int, usage: str) -> None:
        if len(args) != n:
            raise EventError(f"{text.strip()!r}: expected {usage!r}")

    if verb == "touch":
        need(2, "touch ROW COL")
        try:
            row, col = digits(args[0]), digits(args[1])
        except ValueError:
            raise EventError(f"{text.strip()!r}: ROW and COL are numbers 0..4") from None
        return Touch(row, col)
    if verb in ("clue", "pass"):
        need(1, f"{verb} A|B")
        try:
            seat = Seat.parse(args[0])
        except ValueError as e:
            raise EventError(f"{text.strip()!r}: {e}") from None
        return Clue(seat) if verb == "clue" else Pass(seat)
    if verb in ("undo", "penalty"):
        need(0, verb)
        return Undo() if verb == "undo" else Penalty()
    raise EventError(
        f"{text.strip()!r}: unknown event {verb!r} (expected touch, clue, pass, undo or penalty)"
    )
