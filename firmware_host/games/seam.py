"""What passes across the games seam, each a small value: a card as the host sees
it, the next game's choices, the stand's own state beside a screen, a script's
step, a key card as `keystand card` prints it, a clue's numbers, a game event a
script names, a finished game's history line; and the script helpers every game's
`script` and `input_script` use.

Light (the standard library and the rules): `keystand card new` imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypedDict, TypeVar

from ..rules import Grid, Seat
from ..rules.core import BaseRejection
from ..script import ScriptError, script_bodies, stand_only

if TYPE_CHECKING:
    from keystand.drivers.inputs import InputEvent

    from .settings import Options, Setting


class AnyCard(Protocol):
    """What the host needs of any game's card: its text and its code (contracts:
    `keystand card`, `run --card`, the journal's start record)."""

    @property
    def text(self) -> str: ...
    @property
    def code(self) -> str: ...


EventT = TypeVar("EventT")


class Notes(TypedDict):
    """The stand's own state a seat view shows as the context has it (a layouts
    `SeatView` takes these by name: `SeatView(..., **context.notes())`)."""

    cannot_save: bool
    input_lost: bool
    partner_panel_failed: bool
    hint: str | None


@dataclass(frozen=True)
class Context:
    """The stand's own state a screen may show beside the game (faults, a pending
    undo or penalty, the turn timer): public, or the seat's own."""

    undo_asked: Seat | None = None
    reveal: bool = True
    cannot_save: bool = False
    input_lost: bool = False
    partner_panel_failed: bool = False
    hint: str | None = None
    repaired: str | None = None  # a Repair's value
    show_refusal: bool = True
    penalty_pending: bool = False
    timer: int | None = None  # seconds left on the turn timer (None: no timer)
    cursor: int | None = None  # buttons only: the word this seat's own cursor is on
    # The number this seat is choosing for its clue on its keys (a value of the
    # game's `ClueNumbers`), shown on its own screen only; None: not choosing.
    number: str | None = None
    # The menu's choices of the game's own settings for the next game (None: a bare
    # screen, as `keystand render` draws, with no menu behind it).
    chosen: Options | None = None

    def notes(self) -> Notes:
        """The faults and the hint, which every game's screen shows as they are."""
        return Notes(
            cannot_save=self.cannot_save,
            input_lost=self.input_lost,
            partner_panel_failed=self.partner_panel_failed,
            hint=self.hint,
        )


@dataclass(frozen=True)
class Step(Generic[EventT]):
    """One game event of a script and the line it stands on (1-based)."""

    line: int
    event: EventT


@dataclass(frozen=True)
class KeySides:
    """A key card as `keystand card new` and `card show` print it (`key_card_text`
    lays it out): what table order is at this game's table and how each seat sees
    its side (`about`), each side under its heading with one mark a cell in table
    order (`sides`), and what the marks mean (`legend`)."""

    about: str
    sides: tuple[tuple[str, str], ...]
    legend: str


@dataclass(frozen=True)
class ClueNumbers:
    """The numbers a game's clue takes on the keys (classic's "Baum: 2"): `values` in
    the order the +1 key walks them, as the key labels and the game's `numbered_clue`
    name them ("unlimited" is drawn "∞"); choosing one starts at `start`."""

    values: tuple[str, ...]
    start: str
    # The game's setting that turns choosing them on the keys on or off (None: always
    # on); off, the clue key gives the clue in one press, with no number.
    switch: Setting[bool] | None = None

    def __post_init__(self) -> None:
        if self.start not in self.values or len(set(self.values)) != len(self.values):
            raise ValueError(f"clue numbers {self.values}: distinct, and {self.start!r} among them")


@dataclass(frozen=True)
class Played(Generic[EventT]):
    """A game event named directly in its own text (a script line of `keystand run`
    for a game whose words the input drivers do not know): the stand applies it
    as it is."""

    event: EventT

    def __str__(self) -> str:
        return str(self.event)


def refused(result: object) -> bool:
    """Whether what a game's `apply` returned is a refusal (any game's)."""
    return isinstance(result, BaseRejection)


STAND_LINES = ("press", "wait", "touch", "undo")  # what the stand's own inputs play


def input_lines(
    data: bytes | str,
    parse_event: Callable[[str], EventT],
    *,
    grid: Grid,
    source: str,
) -> list[tuple[int, InputEvent | float | Played[EventT]]]:
    """`keystand run --script` for a game whose own events the input drivers do
    not know: the stand's lines (press, wait, touch on the game's `grid`, undo)
    as every script has them, any other line as the game's event, played as it
    is. The first malformed line raises ScriptError naming it."""
    from keystand.drivers.inputs import parse_line

    steps: list[tuple[int, InputEvent | float | Played[EventT]]] = []
    for number, body in script_bodies(data, source=source):
        try:
            if body.split()[0].lower() in STAND_LINES:
                steps.append((number, parse_line(body, grid.rows, grid.cols)))
            else:
                steps.append((number, Played(parse_event(body))))
        except ValueError as e:  # a game's EventError is one
            raise ScriptError(str(e), line=number, source=source) from None
    return steps


def event_lines(
    data: bytes | str, parse_event: Callable[[str], EventT], *, source: str
) -> list[Step[EventT]]:
    """A game's `script` (`keystand play`, `render --script`): each line the game's
    event; a line only the stand plays (press, wait) or a malformed one raises
    ScriptError naming it."""
    steps = []
    for number, body in script_bodies(data, source=source):
        stand_only(body, line=number, source=source)
        try:
            steps.append(Step(number, parse_event(body)))
        except ValueError as e:  # a game's EventError is one
            raise ScriptError(str(e), line=number, source=source) from None
    return steps


# The history line's key of a game's label: a stored format (history.jsonl), named
# when Duet, whose games are named by their mission, was the only game.
HISTORY_LABEL = "mission"


@dataclass(frozen=True)
class HistoryEntry:
    """A finished (or abandoned) game's line in the history, as the game gives it:
    `label` names it in the menu's History and `keystand history` (Duet's mission,
    "9-5"; another game's name) and, for a game with a `score`, is what the
    campaign counts its win under; `result` is won, lost or abandoned; `extra`
    holds the game's own fields beside them (Duet's turns used). The store writes
    it as one JSON object (`record`), the label under the key "mission"."""

    label: str
    result: str
    reason: str | None = None
    score: int | None = None
    card_code: str = ""
    extra: tuple[tuple[str, Any], ...] = ()

    def record(self) -> dict[str, Any]:
        """The history.jsonl object (the stand adds its id, date and game name)."""
        return {
            HISTORY_LABEL: self.label,
            "result": self.result,
            "reason": self.reason,
            "score": self.score,
            "card_code": self.card_code,
            **dict(self.extra),
        }


def ended_in_words(entry: dict[str, Any]) -> str:
    """How a game of the history ended, in words: its result, and its reason code
    read out ("lost: sudden death"), "abandoned"."""
    reason = entry.get("reason")
    said = str(entry.get("result", "?"))
    return f"{said}: {str(reason).replace('_', ' ')}" if reason else said
