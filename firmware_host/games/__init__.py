"""The games the stand plays, each behind one seam, found by name (`get("classic")`).

A game gives: its cards (parse, code, generate, and how `keystand card` prints
one), its rules (start, apply, replay: the state's own `apply`), its event
text, its journal start record (the game's name and a rules version), its JSON
summary, its menu entries, what a seat's keys and a touch mean, and its screens
(`view`, the secrecy boundary).
The stand, the store, the screens and the CLI ask the game for all of these and
know no game by name.

Light on purpose (the standard library and the rules): `keystand card new`
imports it and must not load Pillow. A game's screens load the layouts only
when a screen is drawn.

The registry is one table and one entry-point group, read in that order: a
game shipped with keystand is a package here and a line in `SHIPPED`; a game
packaged on its own is found through the `keystand.games` entry points of the
distributions installed beside keystand (`name = "package:GAME"`), read only when
a name is not shipped or all names are asked for (reading them costs a scan of
every installed distribution, which `keystand card new` should not pay).

A start record without a game's name was written before there were two games:
it is Duet's (`of_record`).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from ..rules import Grid, KeystandError, Mission, Seat
from ..rules.core import BaseRejection
from ..rules.mission import STANDARD
from ..script import ScriptError, script_bodies, stand_only

if TYPE_CHECKING:  # the screens' types; the layouts (Pillow) load when a screen is drawn
    from importlib.metadata import EntryPoint

    from keystand.drivers.inputs import InputEvent
    from keystand.layouts import AnyView

# The games keystand ships: each name's module holds its `GAME`.
SHIPPED: dict[str, str] = {
    "duet": f"{__name__}.duet",
    "classic": f"{__name__}.classic",
}
DEFAULT = "duet"
PLUGINS = "keystand.games"  # the entry-point group of games packaged on their own


class GameError(KeystandError, ValueError):
    """A game's name that names none, or a journal of a game or rules this keystand
    does not know."""


class AnyCard(Protocol):
    """What the host needs of any game's card: its text and its code (contracts:
    `keystand card`, `run --card`, the journal's start record)."""

    @property
    def text(self) -> str: ...
    @property
    def code(self) -> str: ...


CardT = TypeVar("CardT", bound=AnyCard)
StateT = TypeVar("StateT")
EventT = TypeVar("EventT")
OutcomeT = TypeVar("OutcomeT", covariant=True)  # only ever given back


@dataclass(frozen=True)
class Options:
    """The next new game's choices from the menu (each game takes what it has)."""

    mission: Mission = STANDARD
    loose_order: bool = False
    first: Seat | None = None


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
    next_mission: Mission | None = None  # the next game's mission (a game that has them)


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


class Game(Protocol[CardT, StateT, EventT, OutcomeT]):
    """What the stand, the store, the screens and the CLI need of one game: its
    card, state, event and outcome types are its own (Duet's is a
    `Game[Card, Duet, Event, Outcome]`); the host holds whichever game is in
    play (`AnyGame`) and passes back to it only what it gave."""

    name: str
    # The rules version new games are journaled under. A start record of an older
    # one is replayed by its own rules (`from_start_record` reads it); a newer one,
    # or one that is not a version, is refused (`of_record`).
    rules_version: int
    menu_items: tuple[str, ...]  # the stand's menu entries (stand.Item values), top down
    seat_names: tuple[tuple[str, Seat], ...]  # what `render --seat` takes, each seat
    has_timer: bool  # whether the menu's turn timer applies to it
    choices: tuple[str, ...]  # the Options it takes (`keystand play --mission` and the like)
    legend: str  # what the marks of `text_board` mean
    grid: Grid  # its grid of words: the layouts, the cursor and the mat take its shape
    # The numbers its clue takes, chosen on the clue giver's keys before the clue is
    # given (None: its clue is given by one press, with no number).
    clue_numbers: ClueNumbers | None

    def parse_seat(self, text: str) -> Seat:
        """A seat by the name `render --seat` takes; ValueError names the seats."""
        ...

    def parse_card(self, text: str) -> CardT: ...
    def card_from_code(self, code: str) -> CardT: ...
    def generate(self, seed: int | None = None) -> CardT: ...
    def owns(self, thing: object) -> bool:
        """Whether `thing` is this game's card or state."""
        ...

    def start(self, card: CardT, options: Options | None = None) -> StateT: ...
    def parse_event(self, text: str) -> EventT: ...
    def script(self, data: bytes | str, *, source: str = "script") -> list[Step[EventT]]: ...
    def input_script(
        self, data: bytes | str, *, source: str = "script"
    ) -> list[tuple[int, InputEvent | float | Played[EventT]]]:
        """`keystand run --script`: (line, input event, seconds to wait or Played)
        for each line; the first malformed line raises ScriptError."""
        ...

    def start_record(self, state: StateT) -> dict[str, Any]: ...
    def from_start_record(self, head: dict[str, Any]) -> StateT: ...
    def playing(self, state: StateT) -> bool: ...
    def options_of(self, state: StateT) -> Options | None:
        """The menu's choices `state` was started with (None: the game has none)."""
        ...

    def cursor_seat(self, state: StateT) -> Seat | None:
        """The seat that picks a word with its own cursor now, on a stand with keys
        and no touch grid (None: nobody, or the game's roles share the keys)."""
        ...

    def quiet(self, state: StateT) -> bool:
        """A quiet moment at the table: a turn has ended and the next clue is being
        thought of (the panels' ghosting may be cleared now)."""
        ...

    def clue_by(self, state: StateT, event: EventT) -> Seat | None:
        """The seat whose clue `event` gives now, by its key or by the guess that
        follows the clue said aloud (None: it gives none). That seat needs to see its
        side for it: the stand holds the event while that seat's panel fails."""
        ...

    def turn_marks(self, state: StateT) -> frozenset[int]:
        """The words the clue giver covers or marks for this turn's touches (since its
        clue; once it has ended, until the next one): a touch on one of them is that
        hand on the table, not a guess, and the stand shows no refusal of it."""
        ...

    def last_outcome(self, state: StateT) -> OutcomeT | None: ...
    def summary(self, state: StateT, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]: ...
    def history_entry(self, state: StateT) -> dict[str, Any]: ...
    def score(self, state: StateT) -> int | None: ...
    def key_event(self, state: StateT, seat: Seat, key: str) -> EventT | None:
        """The rules event of a seat's clue or pass key now (None: the key does
        nothing for this seat)."""
        ...

    def key_label(self, state: StateT, seat: Seat, key: str) -> str | None:
        """What a seat's clue or pass key does now, as its label names it (a word of
        the screens' [key] table: "clue", "arm", "end_turn"); None when the key
        does nothing for this seat now (the rules would refuse it)."""
        ...

    def numbered_clue(self, state: StateT, seat: Seat, number: str) -> EventT | None:
        """The clue `seat`'s clue key gives now with `number` (a value of
        `clue_numbers`); None when that key gives no clue now."""
        ...

    def act_event(self, state: StateT, verb: str, seat: Seat | None) -> EventT | None: ...
    def touch_event(self, state: StateT, row: int, col: int, *, penalty: bool) -> EventT: ...
    def penalty_event(self, state: StateT) -> EventT | None:
        """The penalty chosen in the menu as one event, or None when the game needs
        a word for it first (the next touch names it)."""
        ...

    def turn_of(self, state: StateT) -> object:
        """What the turn timer runs for: a new value starts its clock again (None:
        no turn, the game is over)."""
        ...

    def timeout_event(self, state: StateT) -> EventT:
        """The event of the turn timer running out now."""
        ...

    def timer_step(self, seconds: int) -> int:
        """The seconds the screens draw a timer with `seconds` left as (they change
        only at these steps, so the panels refresh seldom)."""
        ...

    def key_sides(self, card: CardT) -> KeySides:
        """The card's sides as `keystand card new` and `card show` print them."""
        ...

    def text_board(self, state: StateT) -> str: ...
    def play_lines(self, state: StateT, events: int) -> list[str]:
        """What `keystand play` prints of the state after `events` script events
        (the board and the refusals follow)."""
        ...

    def state_lines(self, state: StateT, game_id: str) -> list[str]:
        """What `keystand state` prints above the board of the game `game_id`."""
        ...

    def view(self, state: StateT, seat: Seat, context: Context) -> AnyView:
        """What `seat`'s screen shows: the layouts' view (the secrecy boundary)."""
        ...


# Whichever game is in play: the host holds a game and its state together and
# passes the game only what the game gave it (its state, its events).
AnyGame = Game[Any, Any, Any, Any]


def names() -> tuple[str, ...]:
    """Every game's name: the shipped ones, then those installed beside keystand."""
    return (*SHIPPED, *sorted(set(_plugins()) - set(SHIPPED)))


def known(name: str) -> bool:
    """Whether `name` names a game (shipped, or installed as a plugin)."""
    key = name.strip().lower()
    return key in SHIPPED or key in _plugins()


def get(name: str) -> AnyGame:
    """The game called `name`; GameError names the games there are, or why an
    installed one cannot be loaded."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key in SHIPPED:
        game: AnyGame = importlib.import_module(SHIPPED[key]).GAME
        return game
    point = _plugins().get(key)
    if point is None:
        raise GameError(f"game {name!r}: expected one of {', '.join(names())}")
    try:
        game = point.load()
    except Exception as e:  # a plugin's own fault: named, not a crash of the stand
        raise GameError(f"game {key!r} ({PLUGINS} entry point {point.value}): {e}") from e
    if getattr(game, "name", None) != key:
        raise GameError(
            f"game {key!r}: its entry point {point.value} gives a game called "
            f"{getattr(game, 'name', None)!r}"
        )
    return game


def _plugins() -> dict[str, EntryPoint]:
    """The installed games by name: read once for each search path (the stand asks
    which game a state is of at every screen; a scan of every installed
    distribution each time would cost more than the screen)."""
    return _installed(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _installed(path: tuple[str, ...]) -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points  # 15 ms: only for a name not shipped

    return {p.name.strip().lower(): p for p in entry_points(group=PLUGINS)}


def of_state(state: object) -> AnyGame:
    """The game `state` is a moment of (the installed games are read only for a
    state no shipped game owns)."""
    for names in (lambda: SHIPPED, _plugins):
        for name in names():
            game = get(name)
            if game.owns(state):
                return game
    raise GameError(f"not a game state: {type(state).__name__}")


def of_record(head: dict[str, Any]) -> AnyGame:
    """The game of a journal's start record (none named: Duet, as before classic),
    refusing a rules version this keystand does not know (a newer one)."""
    game = get(str(head.get("game", "duet")))
    version = head.get("rules", 1)
    # An older version is the game's to replay by its own rules (a game in play
    # survives an update); a newer one would replay to another game: refused.
    if type(version) is not int or not 1 <= version <= game.rules_version:
        raise GameError(
            f"a {game.name} game journaled under rules version {version!r}; this keystand "
            f"plays version {game.rules_version}"
            + (f" (and replays 1 to {game.rules_version - 1})" if game.rules_version > 1 else "")
        )
    return game


# A script's words for a cell, which every grid's labels follow.
TOUCH_NOTE = "A script's touch R C names the word at row R, column C."
ABOUT_WIDTH = 79  # the words above the grids wrap within a terminal's 80 columns


def key_card_text(game: AnyGame, card: AnyCard) -> str:
    """What `keystand card new` and `card show` print of `card`: the game's words
    on how the grids lie, each side's grid under its heading with table
    coordinates (row numbers down the left, shared by the grids side by side;
    column numbers above each), the legend, then the card's text and code on
    lines of their own (`card TEXT`, `code CODE`)."""
    import textwrap  # only here: `keystand play` does without it

    key, grid = game.key_sides(card), game.grid
    digits = len(str(grid.cols - 1))
    numbers = " ".join(str(c).rjust(digits) for c in range(grid.cols))
    labels = ["column", *(f"row {r:>{len(str(grid.rows - 1))}}" for r in range(grid.rows))]
    left = max(map(len, labels))
    widths = [max(len(heading), len(numbers)) for heading, _ in key.sides]

    def line(label: str, parts: Sequence[str]) -> str:
        cells = "   ".join(part.ljust(width) for part, width in zip(parts, widths, strict=True))
        return f"{label.ljust(left)}  {cells}".rstrip()

    lines = textwrap.wrap(f"{key.about} {TOUCH_NOTE}", ABOUT_WIDTH)
    lines += ["", line("", [heading for heading, _ in key.sides])]
    lines.append(line(labels[0], [numbers] * len(key.sides)))
    for r, label in enumerate(labels[1:]):
        cells = [grid.cell(r, c) for c in range(grid.cols)]
        grids = [" ".join(marks[i].rjust(digits) for i in cells) for _, marks in key.sides]
        lines.append(line(label, grids))
    lines += ["", key.legend, f"card {card.text}", f"code {card.code}"]
    return "\n".join(lines)


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


__all__ = [
    "DEFAULT",
    "PLUGINS",
    "SHIPPED",
    "AnyCard",
    "AnyGame",
    "Context",
    "Game",
    "GameError",
    "KeySides",
    "Options",
    "Played",
    "Step",
    "event_lines",
    "get",
    "input_lines",
    "key_card_text",
    "known",
    "names",
    "of_record",
    "of_state",
    "refused",
    "script_bodies",
]
