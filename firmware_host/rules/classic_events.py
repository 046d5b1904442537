"""The inputs the classic rules take: small immutable values, validated on construction.

The script text of docs/design.md "Contracts": `clue red|blue [N|unlimited]`,
`touch R C`, `pass red|blue`, `penalty R C`, `undo`; and `timeout red|blue`,
the turn timer running out (the stand's clock sends it and journals it, so a
replay ends the same turns). `Touch` and `Undo` are
Duet's own (the same words, the same meaning). A malformed event (a cell off
the grid, a number out of range, an unknown team) cannot be built and raises
EventError; a well-formed one the rules refuse now comes back as a Rejection.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .card import SIZE, cell
from .classic_card import STARTING_AGENTS, Team
from .errors import EventError
from .events import Touch, Undo, digits

# The most words a team has on a card: a number above it cannot count the team's
# own words ("Die Zahl sagt dir, auf wie viele Wörter sich dein Hinweis bezieht");
# "unlimited" is the way to say "more than I say".
MAX_NUMBER = STARTING_AGENTS


class Unlimited(enum.Enum):
    """The clue number "unlimited" ("klein: unbegrenzt"): guess while correct."""

    UNLIMITED = "unlimited"

    def __repr__(self) -> str:
        return "UNLIMITED"

    def __str__(self) -> str:
        return self.value


UNLIMITED = Unlimited.UNLIMITED
Number = int | Unlimited | None


@dataclass(frozen=True)
class Clue:
    """`team`'s spymaster gives a clue: a word (said aloud) and `number`, a count
    0..9, UNLIMITED, or None when the group does not enter one."""

    team: Team
    number: Number = None

    def __post_init__(self) -> None:
        if not isinstance(self.team, Team):
            raise EventError(f"clue: team {self.team!r} is not red or blue")
        n = self.number
        if n is None or n is UNLIMITED:
            return
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_NUMBER:
            raise EventError(
                f"clue {self.team.value} {n!r}: the number is 0..{MAX_NUMBER} or unlimited"
            )

    @property
    def limit(self) -> int | None:
        """How many guesses the clue allows: the number plus one ("die Regel plus 1"),
        or None for no limit (0, unlimited or no number entered)."""
        if isinstance(self.number, int) and self.number > 0:
            return self.number + 1
        return None

    def __str__(self) -> str:
        return f"clue {self.team.value}" + ("" if self.number is None else f" {self.number}")


@dataclass(frozen=True)
class Pass:
    """`team`'s operatives end their turn (after at least one guess)."""

    team: Team

    def __post_init__(self) -> None:
        if not isinstance(self.team, Team):
            raise EventError(f"pass: team {self.team!r} is not red or blue")

    def __str__(self) -> str:
        return f"pass {self.team.value}"


@dataclass(frozen=True)
class Penalty:
    """The current clue is invalid: the turn ends with no guesses, and the other
    team's spymaster covers one of their own words, at table (row, col)."""

    row: int
    col: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < SIZE and 0 <= self.col < SIZE):
            raise EventError(f"penalty {self.row} {self.col}: rows and columns are 0..{SIZE - 1}")

    @property
    def cell(self) -> int:
        return cell(self.row, self.col)

    def __str__(self) -> str:
        return f"penalty {self.row} {self.col}"


@dataclass(frozen=True)
class Timeout:
    """The turn timer ran out on `team`'s turn: the turn ends, whatever its phase."""

    team: Team

    def __post_init__(self) -> None:
        if not isinstance(self.team, Team):
            raise EventError(f"timeout: team {self.team!r} is not red or blue")

    def __str__(self) -> str:
        return f"timeout {self.team.value}"


Event = Clue | Touch | Pass | Penalty | Undo | Timeout


def _cell_args(text: str, args: list[str], usage: str) -> tuple[int, int]:
    if len(args) != 2:
        raise EventError(f"{text!r}: expected {usage!r}")
    try:
        return digits(args[0]), digits(args[1])
    except ValueError:
        raise EventError(f"{text!r}: ROW and COL are numbers 0..{SIZE - 1}") from None


def _team(text: str, word: str) -> Team:
    try:
        return Team.parse(word)
    except ValueError as e:
        raise EventError(f"{text!r}: {e}") from None


def _number(text: str, word: str) -> int | Unlimited:
    if word.lower() == UNLIMITED.value:
        return UNLIMITED
    if not (word.isascii() and word.isdigit()):
        raise EventError(f"{text!r}: the number is 0..{MAX_NUMBER} or unlimited, not {word!r}")
    return int(word)


def parse_event(text: str) -> Event:
    """One classic event from its script text; raises EventError naming what is wrong."""
    words = text.split()
    if not words:
        raise EventError("empty event")
    line = text.strip()
    verb, args = words[0].lower(), words[1:]
    if verb == "touch":
        return Touch(*_cell_args(line, args, "touch ROW COL"))
    if verb == "penalty":
        return Penalty(*_cell_args(line, args, "penalty ROW COL"))
    if verb == "clue":
        if len(args) not in (1, 2):
            raise EventError(f"{line!r}: expected 'clue red|blue [N|unlimited]'")
        team = _team(line, args[0])
        number = _number(line, args[1]) if len(args) == 2 else None
        try:
            return Clue(team, number)
        except EventError:
            raise EventError(f"{line!r}: the number is 0..{MAX_NUMBER} or unlimited") from None
    if verb == "pass":
        if len(args) != 1:
            raise EventError(f"{line!r}: expected 'pass red|blue'")
        return Pass(_team(line, args[0]))
    if verb == "timeout":
        if len(args) != 1:
            raise EventError(f"{line!r}: expected 'timeout red|blue'")
        return Timeout(_team(line, args[0]))
    if verb == "undo":
        if args:
            raise EventError(f"{line!r}: expected 'undo'")
        return Undo()
    raise EventError(
        f"{line!r}: unknown event {verb!r} (expected clue, touch, pass, penalty, undo or timeout)"
    )
