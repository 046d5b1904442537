"""What one seat's screen may show: the seat view the layouts draw, as plain values.

This module is the layouts' half of the secrecy boundary (docs/design.md "Secrecy"):
a `SeatView` holds the seat's own side, the public record and the announcements
the rules allow, and nothing else. The game's `view` (keystand.games) builds it
from the game state; the layouts never see the state, the card or the partner's side,
except `End.partner_side`, which exists only once the game is over.

Seats other than the viewer's own are told relative to it (`Who.ME`,
`Who.PARTNER`); `SeatView.seat` says which chair the screen faces, and that
alone decides the half turn (see `geometry.screen_cell`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..grid import STANDARD, Grid

# A grid's rows and columns, as the layouts take them: the one grid type of keystand
# (`keystand.grid`, which imports nothing). Table cell i = cols * row + col, row 0
# farthest from seat A.
Shape = Grid

SQUARE = STANDARD  # the 5x5 grid of Duet and classic Codenames
# What a seat's screen may say for a moment (`SeatView.hint`): a key that did
# nothing, the grid back, the grid's calibration asked for, done, or missed, a
# setting not saved yet, the partner leaving the game for a new one, a new
# campaign the disk refused.
HINTS = (
    "hold_menu",
    "new_game",
    "too_late",
    "input_back",
    "calibrate",
    "calibrated",
    "not_corner",
    "settings_unsaved",
    "partner_new_game",
    "campaign_unsaved",
)


class SeatId(enum.Enum):
    """The chair a screen faces. Seat A reads the table like a page; seat B sits opposite."""

    A = "A"
    B = "B"


class Mark(enum.Enum):
    """What a side of the key card says about one word."""

    AGENT = "agent"
    ASSASSIN = "assassin"
    BYSTANDER = "bystander"


class Who(enum.Enum):
    """A seat as the viewer sees it: the viewer, or the partner across the table."""

    ME = "me"
    PARTNER = "partner"


class Stage(enum.Enum):
    AWAITING_CLUE = "awaiting_clue"
    GUESSING = "guessing"
    SUDDEN_DEATH = "sudden_death"
    OVER = "over"


class LastKind(enum.Enum):
    """What the last input did (public: everyone at the table saw it happen)."""

    CLUE = "clue"
    ARMED = "armed"
    AGENT = "agent"
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    PASS = "pass"
    PENALTY = "penalty"
    UNDO = "undo"
    REJECTED = "rejected"


class Ending(enum.Enum):
    """How a game ended: won, or lost and why, each as the table saw it happen
    (docs/rules.md "Winning and the score", "The time bank", "Sudden death")."""

    WON = "won"  # the last agent found in a turn
    WON_SUDDEN_DEATH = "won_sudden_death"  # the last agent found in sudden death
    ASSASSIN = "assassin"  # `End.by` touched an assassin
    SUDDEN_DEATH = "sudden_death"  # `End.by` touched a bystander in sudden death
    # A bystander with no mistakes left costs two turns, and one was left.
    OUT_OF_TIME = "out_of_time"
    # The invalid clue's penalty took the last token; the turn needed one more
    # (its bystander or its pass).
    OUT_OF_TIME_PENALTY = "out_of_time_penalty"


@dataclass(frozen=True)
class Last:
    """The last input: its kind, who made it, the touched cell, tokens it cost.

    `reject` is the rules' code (the value of a RejectReason) when the input was
    refused; the strings files hold a short text for every code. `announced`: this
    input covered a seat's last agent, so it brought an announcement.
    """

    kind: LastKind
    by: Who | None = None
    cell: int | None = None
    tokens: int = 0
    reject: str | None = None
    announced: bool = False
    undone: str | None = None  # for an undo: what it took back (clue, touch, pass, penalty)

    def __post_init__(self) -> None:
        if self.undone not in (None, "clue", "touch", "pass", "penalty"):
            raise ValueError(f"undone {self.undone!r}: expected clue, touch, pass or penalty")
        if self.cell is not None and self.cell < 0:  # the top: SeatView's grid checks it
            raise ValueError(f"cell {self.cell} is off the grid")
        if (self.kind is LastKind.REJECTED) != (self.reject is not None):
            raise ValueError("a rejection, and only a rejection, has a reject code")


@dataclass(frozen=True)
class End:
    """The end of a game: shown only once the game is over.

    `card_code` and `partner_side` are None while the key is held back: for a few
    seconds after the end both seats may still undo a stray last touch, and a
    game the players saw the whole key of could not go on (the code names the
    card, so it is held back too)."""

    ending: Ending
    score: int | None
    card_code: str | None
    partner_side: tuple[Mark, ...] | None
    by: Who | None = None  # who touched the word that ended it (assassin, sudden death)

    def __post_init__(self) -> None:
        if (self.card_code is None) != (self.partner_side is None):
            raise ValueError("the card code and the partner's side are shown together")

    @property
    def reason(self) -> str:
        """The key of the end's reason in [end_reason]: the ending, and whose touch
        it was where one seat's touch ended the game."""
        if self.by is not None and self.ending in (Ending.ASSASSIN, Ending.SUDDEN_DEATH):
            return f"{self.ending.value}_{self.by.value}"
        return self.ending.value

    @property
    def held(self) -> bool:
        return self.partner_side is None


@dataclass(frozen=True)
class Counter:
    """One of a game's counters on the play screen (two at most): `key` names it, a
    key of the strings' [counter] table (a sign stands for "turns" and "mistakes"
    where a panel is too small for the word), `value` the number shown."""

    key: str
    value: int

    def __post_init__(self) -> None:
        from .i18n import DEFAULT, strings  # the strings' own table: the words there are

        known = strings(DEFAULT)["counter"]
        if self.key not in known:
            raise ValueError(
                f"counter {self.key!r}: the screens have words for {', '.join(known)} only "
                f"(layouts/strings/*.toml [counter])"
            )


@dataclass(frozen=True)
class MissionLabel:
    """A mission as a screen names it: the rulebook's name when it has one (a
    key of the strings' [mission_name]: `cairo`), and its numbers (`9-5`)."""

    name: str | None
    numbers: str


@dataclass(frozen=True)
class SeatView:
    """Everything one seat's screen shows during a game and at its end.

    `side` is the seat's own side of the key card in table order (index
    `grid.cols` * row + col, rows from the far side of seat A; `grid` is the
    game's shape, 5x5 unless the host says otherwise). `agents` are the cells an
    agent card covers; `my_misses` and `partner_misses` the cells each seat
    guessed and the other's side judged a bystander (a cell in both is covered).
    `clue_giver` and `guesser` are who gives the current or next clue and who
    guesses (None: either seat may clue; in sudden death, nobody is armed yet).
    `nothing_left_for_me` is the one announcement about the partner's side the
    rules allow; `nothing_left_for_partner` follows from the seat's own side.
    """

    seat: SeatId
    side: tuple[Mark, ...]
    stage: Stage
    agents: frozenset[int] = frozenset()
    my_misses: frozenset[int] = frozenset()
    partner_misses: frozenset[int] = frozenset()
    clue_giver: Who | None = None
    guesser: Who | None = None
    armed: Who | None = None
    counters: tuple[Counter, ...] = ()  # the game's own (Duet's turns and mistakes left)
    nothing_left_for_me: bool = False
    nothing_left_for_partner: bool = False
    undo_asked: Who | None = None  # a seat pressed undo; the other must press it too
    cannot_save: bool = False  # the stand could not save the last input, so did not take it
    input_lost: bool = False  # an input device (the touch grid, a seat's keys) stopped answering
    partner_panel_failed: bool = False  # the other seat's screen fails (stuck, unplugged)
    held: bool = False  # the game waits for that screen: the partner's clue is next
    hint: str | None = None  # a key did nothing: what to press ("hold_menu", "new_game")
    repaired: Repaired | None = None  # the journal was damaged on start (until the next event)
    next_mission: MissionLabel | None = None  # chosen for the next game, not this one
    mission: MissionLabel | None = None  # the mission in play (None: a game without one)
    cursor: int | None = None  # buttons only: the word this seat's cursor is on (its own)
    last: Last | None = None
    end: End | None = None
    grid: Shape = SQUARE

    def __post_init__(self) -> None:
        cells = self.grid.cells
        if len(self.side) != cells:
            raise ValueError(f"side has {len(self.side)} cells, expected {cells}")
        partner = self.end.partner_side if self.end is not None else None
        if partner is not None and len(partner) != cells:
            raise ValueError(f"partner side has {len(partner)} cells, expected {cells}")
        for name in ("agents", "my_misses", "partner_misses"):
            bad = sorted(i for i in getattr(self, name) if not 0 <= i < cells)
            if bad:
                raise ValueError(f"{name}: cells {bad} are off the grid (0..{cells - 1})")
        self.grid.check("cursor", self.cursor)
        self.grid.check("cell", self.last.cell if self.last else None)
        if (self.stage is Stage.OVER) != (self.end is not None):
            raise ValueError("the end of the game is shown when, and only when, it is over")
        if self.held and not self.partner_panel_failed:
            raise ValueError("the game waits only for a partner's screen that fails")

    @property
    def covered(self) -> frozenset[int]:
        """Cells out of play: an agent card on them, or missed by both seats."""
        return self.agents | (self.my_misses & self.partner_misses)


class Repaired(enum.Enum):
    """What start-up did with a damaged journal: resumed before the damage, or a new game."""

    RESUMED = "resumed"
    NEW_GAME = "new_game"


class Neutral(enum.Enum):
    """The screens that show no key: between games, the menu, the service stopped."""

    IDLE = "idle"
    MENU = "menu"
    OFF = "off"
    CANNOT_SAVE = "cannot_save"  # no game: the disk refused the new one
    STARTING = "starting"  # the stand is starting (the simulator page, before a frame)


@dataclass(frozen=True)
class NeutralView:
    """A neutral picture: the same for both seats, no key, nothing of any game."""

    kind: Neutral = Neutral.IDLE
