"""`Game`, the base class of every game: everything the stand, the store, the
screens and the CLI ask of a game, each with the default a trivial game keeps.

A game subclasses it with its own card, state, event and outcome types
(`Game[Card, Duet, Event, Outcome]`) and overrides what differs: it must give
its name, its card and state classes (`card_type`, `state_type`), `generate`,
`start`, `parse_event`, `playing` and `view`; everything else has a default
(docs/games.md "Adding a game" lists them). The host holds whichever game is
in play (`AnyGame`) and passes back to it only what it gave.

What the stand relies on is a declared member here, never a name it guesses:
the refusal code of a touch on a word already covered (`covered_reason`), the
history line (`history_entry`, a `HistoryEntry`), the game's own menu entries,
settings and command-line choices (`menu_items`, `settings`), its turn timer's
length (`turn_timer`), its record of wins (`record`), its own words (`words`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from ..grid import STANDARD
from ..rules import Grid, Seat
from .record import Record
from .seam import (
    AnyCard,
    ClueNumbers,
    Context,
    HistoryEntry,
    KeySides,
    Played,
    Step,
    ended_in_words,
    event_lines,
    input_lines,
    refused,
)
from .settings import Options, Setting

if TYPE_CHECKING:
    from keystand.drivers.inputs import InputEvent
    from keystand.layouts import AnyView


class AnyState(Protocol):
    """What the defaults need of a game's state (a `rules.core.Referee` has the
    last two): its card, the words covered, the last accepted outcome, the step."""

    @property
    def card(self) -> AnyCard: ...
    @property
    def covered(self) -> frozenset[int]: ...
    @property
    def outcome(self) -> object: ...
    def apply(self, event: Any) -> tuple[Any, object]: ...


CardT = TypeVar("CardT", bound=AnyCard)
CardT_co = TypeVar("CardT_co", bound=AnyCard, covariant=True)
StateT = TypeVar("StateT", bound=AnyState)
EventT = TypeVar("EventT")
OutcomeT = TypeVar("OutcomeT")


class CardKind(Protocol[CardT_co]):
    """A game's card class: its text and its code read back (`parse`, `from_code`)."""

    def parse(self, text: str) -> CardT_co: ...
    def from_code(self, code: str) -> CardT_co: ...


# The seat names of a game whose two seats are A and B (`render --seat A`).
SEATS_AB: tuple[tuple[str, Seat], ...] = (("A", Seat.A), ("B", Seat.B))
# The entries every game has, where every game has them: counted down from the top
# or up from the bottom, the same presses reach them; a game's own lie between.
MENU_TOP = ("close", "new_game")
MENU_BOTTOM = ("language", "history", "game")


class Game(Generic[CardT, StateT, EventT, OutcomeT]):
    """One game behind the seam; see the module's words. The class attributes are its
    declarations, the methods what it answers at a state."""

    name: str  # how `games.get` and the journal's start record name it
    # The rules version new games are journaled under. A start record of an older
    # one is replayed by its own rules (`from_start_record` reads it); a newer one,
    # or one that is not a version, is refused (`of_record`).
    rules_version: int = 1
    card_type: CardKind[CardT]  # its card class (`parse`, `from_code`)
    state_type: type  # its state class (`owns`)
    menu_items: tuple[str, ...] = (*MENU_TOP, *MENU_BOTTOM)  # the menu's entries, top down
    settings: tuple[Setting[Any], ...] = ()  # its own menu choices (menu_items name them)
    seat_names: tuple[tuple[str, Seat], ...] = SEATS_AB  # what `render --seat` takes
    # The setting holding its turn timer's length in seconds, 0 off (the stand runs
    # the timer; None: the game has none).
    turn_timer: Setting[int] | None = None
    legend: str = "· open"  # what the marks of `text_board` mean
    key_legend: str = "G agent, X assassin, . bystander"  # the marks of `key_sides`
    grid: Grid = STANDARD  # its grid of words: the layouts, the cursor and the mat take it
    # The numbers its clue takes, chosen on the clue giver's keys before the clue is
    # given (None: its clue is given by one press, with no number).
    clue_numbers: ClueNumbers | None = None
    # The refusal code of a touch on a word already covered: after its own clue the
    # giver's hand covering a word is no guess, and the stand shows no refusal of it
    # however often the finger bounces (None: the game has no such refusal).
    covered_reason: str | None = "covered"
    # Its standing record of wins by label (Duet's campaign): the store keeps it, the
    # menu entries it names (its `name` and `new_item`, in `menu_items`) show it and
    # begin a new one, `keystand <name>` prints it (None: the game keeps none).
    record: Record | None = None
    # Its own words, which no host module may use (tests/test_host_words.py scans
    # the host for them, and for its settings' names).
    words: tuple[str, ...] = ()

    # ----- cards, events, scripts -------------------------------------------------------

    def parse_seat(self, text: str) -> Seat:
        """A seat by the name `render --seat` takes; ValueError names the seats."""
        return Seat.parse(text)

    def parse_card(self, text: str) -> CardT:
        return self.card_type.parse(text)

    def card_from_code(self, code: str) -> CardT:
        return self.card_type.from_code(code)

    def generate(self, seed: int | None = None) -> CardT:
        raise NotImplementedError(f"{self.name}: a game deals its own cards (`generate`)")

    def owns(self, thing: object) -> bool:
        """Whether `thing` is this game's card or state."""
        return isinstance(thing, (cast(type, self.card_type), self.state_type))

    def start(self, card: CardT, options: Options | None = None) -> StateT:
        """A new game on `card` with the menu's choices (`options`, the game's settings)."""
        raise NotImplementedError(f"{self.name}: a game starts its own state (`start`)")

    def parse_event(self, text: str) -> EventT:
        """One of its events from its script text; ValueError (EventError) names it."""
        raise NotImplementedError(f"{self.name}: a game parses its own events")

    def script(self, data: bytes | str, *, source: str = "script") -> list[Step[EventT]]:
        """`keystand play` and `render --script`: each line one of its events."""
        return event_lines(data, self.parse_event, source=source)

    def input_script(
        self, data: bytes | str, *, source: str = "script"
    ) -> list[tuple[int, InputEvent | float | Played[EventT]]]:
        """`keystand run --script`: (line, input event, seconds to wait or Played)
        for each line; the first malformed line raises ScriptError."""
        return input_lines(data, self.parse_event, grid=self.grid, source=source)

    # ----- the journal, the history, the JSON -------------------------------------------

    def start_record(self, state: StateT) -> dict[str, Any]:
        """The journal's first record: the game, its rules version, its card."""
        return {"game": self.name, "rules": self.rules_version, "card": state.card.text}

    def from_start_record(self, head: dict[str, Any]) -> StateT:
        return self.start(self.parse_card(str(head["card"])))

    def playing(self, state: StateT) -> bool:
        raise NotImplementedError(f"{self.name}: a game says whether it is over (`playing`)")

    def options_of(self, state: StateT) -> Options | None:
        """The menu's choices `state` was started with (None: the game has none)."""
        return None

    def summary(self, state: StateT, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
        """`keystand play --json`: its state as one JSON object."""
        status = "playing" if self.playing(state) else "over"
        return {"game": self.name, "status": status, "rejected": list(rejected)}

    def history_entry(self, state: StateT) -> HistoryEntry:
        """Its line in the history: by its name, won, lost (the summary's status) or
        abandoned, its card's code."""
        result = "abandoned" if self.playing(state) else str(self.summary(state)["status"])
        return HistoryEntry(self.name, result, card_code=state.card.code)

    def ended_words(self, entry: dict[str, Any]) -> str:
        """How a game of its history ended, in words (`keystand history`): "lost:
        sudden death", "abandoned"."""
        return ended_in_words(entry)

    def score(self, state: StateT) -> int | None:
        """A won game's score, counted in its `record` under its history line's label
        (None: it keeps none)."""
        return None

    def last_outcome(self, state: StateT) -> OutcomeT | None:
        return cast("OutcomeT | None", state.outcome)

    # ----- what the stand asks at the table ---------------------------------------------

    def cursor_seat(self, state: StateT) -> Seat | None:
        """The seat that picks a word with its own cursor now, on a stand with keys
        and no touch grid (None: nobody, or the game's roles share the keys)."""
        return None

    def quiet(self, state: StateT) -> bool:
        """A quiet moment at the table: a turn has ended and the next clue is being
        thought of (the panels' ghosting may be cleared now)."""
        return False

    def clue_by(self, state: StateT, event: EventT) -> Seat | None:
        """The seat whose clue `event` gives now, by its key or by the guess that
        follows the clue said aloud (None: it gives none). That seat needs to see its
        side for it: the stand holds the event while that seat's panel fails."""
        return None

    def turn_marks(self, state: StateT) -> frozenset[int]:
        """The words the clue giver covers or marks for this turn's touches (since its
        clue; once it has ended, until the next one): a touch on one of them is that
        hand on the table, not a guess, and the stand shows no refusal of it."""
        return frozenset()

    def act_event(self, state: StateT, verb: str, seat: Seat | None) -> EventT | None:
        """The event of a verb the stand's inputs say (clue, pass, undo, penalty) for
        `seat`: by default its script text, None where it has none."""
        try:
            return self.parse_event(verb)
        except ValueError:
            return None

    def key_event(self, state: StateT, seat: Seat, key: str) -> EventT | None:
        """The rules event of a seat's clue or pass key now (None: the key does
        nothing for this seat)."""
        return self.act_event(state, key, seat) if key in ("clue", "pass") else None

    def key_label(self, state: StateT, seat: Seat, key: str) -> str | None:
        """What a seat's clue or pass key does now, as its label names it (a word of
        the screens' [key] table: "clue", "arm", "end_turn"); None when the key
        does nothing for this seat now (the rules would refuse it)."""
        event = self.key_event(state, seat, key)
        if event is None or refused(state.apply(event)[1]):
            return None
        return "clue" if key == "clue" else "end_turn"

    def numbered_clue(self, state: StateT, seat: Seat, number: str) -> EventT | None:
        """The clue `seat`'s clue key gives now with `number` (a value of
        `clue_numbers`); None when that key gives no clue now."""
        return None

    def touch_event(self, state: StateT, row: int, col: int, *, penalty: bool) -> EventT:
        """The event of a touch on a word (`penalty`: the invalid clue's word)."""
        return self.parse_event(f"touch {row} {col}")

    def penalty_event(self, state: StateT) -> EventT | None:
        """The penalty chosen in the menu as one event, or None when the game needs
        a word for it first (the next touch names it), or has none."""
        return None

    def turn_of(self, state: StateT) -> object:
        """What the turn timer runs for: a new value starts its clock again (None:
        no turn, the game is over)."""
        return None

    def timeout_event(self, state: StateT) -> EventT:
        """The event of the turn timer running out now."""
        raise TypeError(f"{self.name} has no turn timer")

    def timer_step(self, seconds: int) -> int:
        """The seconds the screens draw a timer with `seconds` left as (they change
        only at these steps, so the panels refresh seldom)."""
        return seconds

    # ----- text and screens -------------------------------------------------------------

    def key_sides(self, card: CardT) -> KeySides:
        """The card's sides as `keystand card new` and `card show` print them: by
        default the one key both seats see."""
        return KeySides(
            about=f"{self.name.title()} key card: the one key both seats see, in table order "
            "as seat A sees the table (row 0 farthest from seat A, column 0 seat A's leftmost).",
            sides=(("the key", "".join(card.text.split())),),
            legend=self.key_legend,
        )

    def text_board(self, state: StateT) -> str:
        """The table as text: each covered word's key mark (its card's), · open."""
        marks, grid = "".join(state.card.text.split()), self.grid
        rows = []
        for r in range(grid.rows):
            cells = (grid.cell(r, c) for c in range(grid.cols))
            rows.append("  " + " ".join(marks[i] if i in state.covered else "·" for i in cells))
        return "\n".join(rows)

    def play_lines(self, state: StateT, events: int) -> list[str]:
        """What `keystand play` prints of the state after `events` script events
        (the board and the refusals follow): its status, then its summary's own
        fields ("phase guessing, agents left 3")."""
        d = self.summary(state)
        own = [_words(k, v) for k, v in d.items() if k not in _NOT_PLAYED]
        return [f"{self.name}, {events} events: {d['status']}", *([", ".join(own)] if own else [])]

    def state_lines(self, state: StateT, game_id: str) -> list[str]:
        """What `keystand state` prints above the board of the game `game_id`."""
        d = self.summary(state)
        phase = f", {d['phase']}" if "phase" in d else ""
        return [f"{self.name} game {game_id}: {d['status']}{phase}"]

    def view(self, state: StateT, seat: Seat, context: Context) -> AnyView:
        """What `seat`'s screen shows: the layouts' view (the secrecy boundary)."""
        raise NotImplementedError(f"{self.name}: a game draws its own screens (`view`)")


_NOT_PLAYED = ("game", "status", "covered", "rejected")  # play_lines' first line, the board


def _words(key: str, value: object) -> str:
    return f"{key.replace('_', ' ')} {value}"


# Whichever game is in play: the host holds a game and its state together and
# passes the game only what the game gave it (its state, its events).
AnyGame = Game[Any, Any, Any, Any]
