"""What the two classic Codenames screens may show, as plain values.

Classic is played by two teams, red and blue; both spymasters sit on one side
of the table and all operatives opposite (docs/classic-rules.md).
The stand's two screens take those two roles:

- `SpymastersView`: the key card (every word's colour, in table order as the
  spymasters see the grid) and the public record;
- `OperativesView`: the public record only. It has no field that could hold the
  key: the type itself is the layouts' half of the secrecy boundary.

`ClassicPublic` is the public record: what everyone at the table watched happen
(the tiles on the words and their colours, whose turn it is, the guesses the
clue still allows, what the last input did, who won and how) and the stand's
own state (a pending penalty, the turn timer, a fault, the other screen failing).
`keystand.classic_views` builds these from the game state; the layouts never see
the state or the card.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass

from .view import SQUARE, Shape

STARTING_AGENTS = 9  # the starting team's agents; the other team has one fewer
BYSTANDERS = 7
ASSASSINS = 1
# What the stand may add to a screen's message box (the strings' [classic_note] keys):
# why a key did nothing (a hint, the stand's name for it after "hint_"), or that one
# side asked to undo (the side that waits, or the side asked).
STAND_NOTES = (
    "hint_useless_clue",
    "hint_useless_pass",
    "hint_hold_menu",
    "hint_new_game",
    "hint_too_late",
    "hint_input_back",
    "hint_calibrate",
    "hint_calibrated",
    "hint_not_corner",
    "hint_settings_unsaved",
    "undo_wait_spymasters",
    "undo_wait_operatives",
    "undo_asked_spymasters",
    "undo_asked_operatives",
    "new_game_by_spymasters",
    "new_game_by_operatives",
)
# The end screen's last line: undo can still take the end back, or the next game.
END_LINES = ("hold", "new_game")
# The two screens by the people they face: the other screen's failure is told by its role.
ROLES = ("spymasters", "operatives")
TIMER_MAX = 540  # seconds: the longest turn timer the screens draw (9:00 fits every panel)
# A clue's numbers as the rulebook has them ("Baum: 2"; 0, and "unbegrenzt"), as the
# host names them; drawn as digits, "unlimited" as "∞" (`number_text`).
CLUE_NUMBERS = (*(str(n) for n in range(10)), "unlimited")


def number_text(number: str) -> str:
    """A clue's number as the screens draw it: its digit, or "∞" for unlimited."""
    return "\u221e" if number == "unlimited" else number


class Team(enum.Enum):
    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Team:
        return Team.BLUE if self is Team.RED else Team.RED

    @property
    def colour(self) -> Colour:
        """The key-card colour of this team's agents."""
        return Colour.RED if self is Team.RED else Colour.BLUE


class Colour(enum.Enum):
    """What the key card says about one word (the letters of the card text)."""

    RED = "R"
    BLUE = "U"
    BYSTANDER = "."
    ASSASSIN = "X"

    @property
    def team(self) -> Team | None:
        """The team whose agent this is; None for a bystander or the assassin."""
        return {Colour.RED: Team.RED, Colour.BLUE: Team.BLUE}.get(self)


class ClassicStage(enum.Enum):
    AWAITING_CLUE = "awaiting_clue"
    GUESSING = "guessing"
    OVER = "over"


class Win(enum.Enum):
    """How the game was won, as the table saw it happen."""

    ALL_FOUND = "all_found"  # the winner touched its own last agent
    GIVEN = "given"  # the other team touched the winner's last agent
    PENALTY = "penalty"  # the other team's clue was invalid: the winner covered its last word
    ASSASSIN = "assassin"  # the other team touched the assassin


class ClassicLastKind(enum.Enum):
    """What the last input did (public: everyone at the table saw it happen)."""

    CLUE = "clue"
    AGENT = "agent"  # a red or blue agent was touched; `colour` says which
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    PASS = "pass"
    PENALTY = "penalty"  # an invalid clue: the other team covered one of its words
    UNDO = "undo"
    TIME_UP = "time_up"  # the turn timer ran out and ended the turn
    REJECTED = "rejected"


@dataclass(frozen=True)
class ClassicLast:
    """The last input: its kind, the team on turn when it came, the word it covered
    (and that word's colour, now on the table for everyone), whether it ended the
    turn; `reject` is the rules' code (a RejectReason's value) when it was refused."""

    kind: ClassicLastKind
    team: Team | None = None
    cell: int | None = None
    colour: Colour | None = None
    turn_over: bool = False
    reject: str | None = None

    def __post_init__(self) -> None:
        if self.cell is not None and self.cell < 0:  # the top: ClassicPublic's grid checks it
            raise ValueError(f"last input: cell {self.cell} is off the grid")
        if (self.kind is ClassicLastKind.REJECTED) != (self.reject is not None):
            raise ValueError(
                f"last input {self.kind.value}: a rejection, and only a rejection, "
                "has a reject code"
            )
        if self.kind is ClassicLastKind.AGENT and (self.colour is None or self.colour.team is None):
            raise ValueError(f"last input agent: colour {self.colour!r} is not a team's colour")


def _counts_fit(colours: list[Colour], starting: Team, where: str) -> None:
    """Refuse more words of a colour than a classic key card has."""
    most = {
        starting.colour: STARTING_AGENTS,
        starting.other.colour: STARTING_AGENTS - 1,
        Colour.BYSTANDER: BYSTANDERS,
        Colour.ASSASSIN: ASSASSINS,
    }
    for colour, n in Counter(colours).items():
        if n > most[colour]:
            raise ValueError(
                f"{where}: {n} words of {colour.name.lower()}, a card with {starting.value} "
                f"starting has {most[colour]}"
            )


@dataclass(frozen=True)
class ClassicPublic:
    """The public record of a classic game, and the stand's own state.

    `revealed[i]` is the colour of the tile on table cell i (index cols * row + col
    of `grid`, 5x5 unless the host says otherwise; row 0 farthest from the
    spymasters), None while the word is uncovered.
    `starting` is the team that gave the first clue (the card's border shows it).
    `team` is the team on turn (None once the game is over). `clue_number` is the
    number of the clue being guessed (a CLUE_NUMBERS value; None: no clue, or one
    given without a number); `guesses_left` counts what it still allows (its
    number plus one, counting down; None: no limit, for 0, unlimited or no number).
    `penalty`: the group called the clue invalid and the other team's spymaster
    must now pick one of their words to cover. `timer`: seconds left on the turn
    timer (None: no timer). `winner` and `win` are set exactly when it is over.
    """

    starting: Team
    stage: ClassicStage
    team: Team | None
    revealed: tuple[Colour | None, ...] = (None,) * SQUARE.cells
    guesses_left: int | None = None
    clue_number: str | None = None
    winner: Team | None = None
    win: Win | None = None
    penalty: bool = False
    timer: int | None = None
    last: ClassicLast | None = None
    cannot_save: bool = False  # the stand could not save the last input, so did not take it
    input_lost: bool = False  # an input device stopped answering
    note: str | None = None  # a STAND_NOTES key: a press that did nothing, an undo asked
    end: str | None = None  # over only: "hold" (undo can take the end back) or "new_game"
    # The other screen fails (stuck, unplugged), named by whom it faces (a ROLES value):
    # that panel cannot say so itself, so this one does.
    panel_failed: str | None = None
    grid: Shape = SQUARE

    def __post_init__(self) -> None:
        if self.note is not None and self.note not in STAND_NOTES:
            raise ValueError(f"note {self.note!r}: expected one of {', '.join(STAND_NOTES)}")
        if self.panel_failed is not None and self.panel_failed not in ROLES:
            raise ValueError(
                f"panel failed {self.panel_failed!r}: expected one of {', '.join(ROLES)}"
            )
        over = self.stage is ClassicStage.OVER
        if self.end is not None and (self.end not in END_LINES or not over):
            raise ValueError(
                f"end line {self.end!r}: one of {', '.join(END_LINES)}, once it is over"
            )
        cells = self.grid.cells
        if len(self.revealed) != cells:
            raise ValueError(f"revealed has {len(self.revealed)} cells, expected {cells}")
        self.grid.check("last input: cell", self.last.cell if self.last else None)
        _counts_fit([c for c in self.revealed if c is not None], self.starting, "revealed")
        if over != (self.winner is not None) or over != (self.win is not None):
            raise ValueError(
                f"stage {self.stage.value}: a winner and how they won, "
                "when and only when it is over"
            )
        if over != (self.team is None):
            raise ValueError(f"stage {self.stage.value}: a team on turn, unless it is over")
        if self.guesses_left is not None and (
            self.stage is not ClassicStage.GUESSING or self.guesses_left < 0
        ):
            raise ValueError(
                f"guesses left {self.guesses_left}: a count of 0 or more, while guessing only"
            )
        self._check_number()
        if self.penalty and self.stage is not ClassicStage.GUESSING:
            raise ValueError(f"penalty pending at stage {self.stage.value}: it follows a clue")
        if self.timer is not None and not 0 <= self.timer <= TIMER_MAX:
            raise ValueError(f"timer {self.timer}: seconds left, 0..{TIMER_MAX}")

    def _check_number(self) -> None:
        """A clue's number while guessing only, and the guesses left its plus one
        allows: a count for 1 to 9, none for 0, unlimited or no number."""
        n = self.clue_number
        if n is None:
            if self.guesses_left is not None:
                raise ValueError(f"guesses left {self.guesses_left}: a clue's number limits them")
            return
        if n not in CLUE_NUMBERS or self.stage is not ClassicStage.GUESSING:
            raise ValueError(
                f"clue number {n!r}: one of {', '.join(CLUE_NUMBERS)}, while guessing only"
            )
        counts = n.isdigit() and n != "0"
        if counts != (self.guesses_left is not None) or (
            counts and self.guesses_left is not None and self.guesses_left > int(n) + 1
        ):
            raise ValueError(
                f"guesses left {self.guesses_left} on a clue for {n}: its number plus one "
                "at most, for 1 to 9; none for 0 and unlimited"
            )

    @property
    def covered(self) -> frozenset[int]:
        """The cells with a tile on them."""
        return frozenset(i for i, c in enumerate(self.revealed) if c is not None)

    def agents_total(self, team: Team) -> int:
        return STARTING_AGENTS if team is self.starting else STARTING_AGENTS - 1

    def agents_left(self, team: Team) -> int:
        """`team`'s agents not yet covered: counted from the tiles, as at the table."""
        return self.agents_total(team) - sum(1 for c in self.revealed if c is team.colour)


def _key_fits(key: tuple[Colour, ...], public: ClassicPublic) -> None:
    """Refuse a key of the wrong size or counts, or one the tiles on the table belie."""
    cells = public.grid.cells
    if len(key) != cells:
        raise ValueError(f"key has {len(key)} cells, expected {cells}")
    _counts_fit(list(key), public.starting, "key")
    wrong = [i for i, c in enumerate(public.revealed) if c is not None and c is not key[i]]
    if wrong:
        raise ValueError(f"cells {wrong}: the tile's colour is not the key's")


@dataclass(frozen=True)
class SpymastersView:
    """The spymasters' screen: the key card in table order, and the public record;
    `choosing`, the number the spymasters are choosing on their keys for the clue
    they are about to give (a CLUE_NUMBERS value; None: not choosing)."""

    key: tuple[Colour, ...]
    public: ClassicPublic
    choosing: str | None = None

    def __post_init__(self) -> None:
        _key_fits(self.key, self.public)
        if self.public.panel_failed == "spymasters":
            raise ValueError("the spymasters' screen cannot tell its own failure")
        p = self.public
        if self.choosing is not None and (
            self.choosing not in CLUE_NUMBERS
            or p.stage is not ClassicStage.AWAITING_CLUE
            or p.penalty
        ):
            raise ValueError(
                f"choosing {self.choosing!r}: one of {', '.join(CLUE_NUMBERS)}, "
                "while a clue is awaited"
            )


@dataclass(frozen=True)
class OperativesView:
    """The operatives' screen: the public record, and nothing else until the end is
    final; then `key`, the key card, as a real table turns it round for everyone
    once the game is over (the stand holds the end back a few seconds first, so
    undo can still take a stray last touch back). A key before that is refused:
    the type is the layouts' half of the secrecy boundary."""

    public: ClassicPublic
    key: tuple[Colour, ...] | None = None

    def __post_init__(self) -> None:
        if self.public.panel_failed == "operatives":
            raise ValueError("the operatives' screen cannot tell its own failure")
        if self.key is None:
            return
        if self.public.stage is not ClassicStage.OVER or self.public.end != "new_game":
            raise ValueError(
                "the operatives' screen shows the key only once the end is final "
                f"(stage {self.public.stage.value}, end {self.public.end!r})"
            )
        _key_fits(self.key, self.public)
