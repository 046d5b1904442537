"""Practice: a third game that lives in the tests only, to prove the games seam.

Trivial rules on a grid of another shape than Codenames' 5x5: 4 rows of 5 words
(the spread of Codenames Pictures). One key card, seen by both seats: 8 agents,
1 assassin, 11 bystanders. A clue (either seat) opens guessing; a touch on an
agent covers it and guessing goes on, on a bystander covers it and ends the
turn, on the assassin loses; finding every agent wins; pass ends the turn.
Undo is the rules core's. Standard library and keystand.rules only, as every
game's rules.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace
from types import MappingProxyType

from keystand.rules import CardError, EventError, Grid, digits
from keystand.rules.core import BaseRejection, BaseRejectReason, Referee, Undo

GRID = Grid(4, 5)
AGENTS = 8
RULES_VERSION = 1


class Key(enum.Enum):
    AGENT = "G"
    ASSASSIN = "X"
    BYSTANDER = "."


@dataclass(frozen=True)
class PracticeCard:
    """The one key: table order, row by row from the far side of seat A."""

    keys: tuple[Key, ...]

    def __post_init__(self) -> None:
        if len(self.keys) != GRID.cells:
            raise CardError(f"a practice card has {GRID.cells} words, not {len(self.keys)}")
        counts = {k: self.keys.count(k) for k in Key}
        if counts[Key.AGENT] != AGENTS or counts[Key.ASSASSIN] != 1:
            raise CardError(
                f"a practice card has {AGENTS} G and 1 X, not "
                f"{counts[Key.AGENT]} G and {counts[Key.ASSASSIN]} X"
            )

    @classmethod
    def parse(cls, text: str) -> PracticeCard:
        """Card text: 20 of G X . (spaces between rows as you like)."""
        marks = "".join(text.split())
        bad = sorted({m for m in marks if m not in "GX."})
        if bad:
            raise CardError(f"practice card {text!r}: {bad[0]!r} is not G, X or .")
        return cls(tuple(Key(m) for m in marks))

    @classmethod
    def from_code(cls, code: str) -> PracticeCard:
        """The code is the text with `.` as N, so it reads out loud (`GGNXN...`)."""
        if not code.startswith("P-"):
            raise CardError(f"practice code {code!r}: expected P- then 20 of G X N")
        return cls.parse(code[2:].replace("N", "."))

    @property
    def text(self) -> str:
        marks = "".join(k.value for k in self.keys)
        cols = GRID.cols
        return " ".join(marks[i : i + cols] for i in range(0, len(marks), cols))

    @property
    def code(self) -> str:
        return "P-" + "".join(k.value for k in self.keys).replace(".", "N")

    @classmethod
    def generate(cls, seed: int | None = None) -> PracticeCard:
        keys = [Key.AGENT] * AGENTS + [Key.ASSASSIN] + [Key.BYSTANDER] * (GRID.cells - AGENTS - 1)
        random.Random(seed).shuffle(keys)
        return cls(tuple(keys))


@dataclass(frozen=True)
class Clue:
    def __str__(self) -> str:
        return "clue"


@dataclass(frozen=True)
class Pass:
    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Touch:
    row: int
    col: int

    def __post_init__(self) -> None:
        if not GRID.contains(self.row, self.col):
            raise EventError(
                f"touch {self.row} {self.col}: rows are 0..{GRID.rows - 1}, "
                f"columns 0..{GRID.cols - 1}"
            )

    @property
    def cell(self) -> int:
        return GRID.cell(self.row, self.col)

    def __str__(self) -> str:
        return f"touch {self.row} {self.col}"


Event = Clue | Pass | Touch | Undo


def parse_event(text: str) -> Event:
    words = text.split()
    verb = words[0].lower() if words else ""
    simple: dict[str, Event] = {"clue": Clue(), "pass": Pass(), "undo": Undo()}
    if verb in simple and len(words) == 1:
        return simple[verb]
    if verb == "touch" and len(words) == 3:
        try:
            return Touch(digits(words[1]), digits(words[2]))
        except ValueError as e:
            if isinstance(e, EventError):
                raise
            raise EventError(f"{text!r}: expected touch ROW COL, two numbers") from None
    raise EventError(f"{text!r}: expected clue, pass, undo or touch ROW COL")


class Phase(enum.Enum):
    AWAITING_CLUE = "awaiting_clue"
    GUESSING = "guessing"
    OVER = "over"


class RejectReason(BaseRejectReason):
    GAME_OVER = "game_over", "the game is over"
    NO_CLUE = "no_clue", "give a clue first"
    COVERED = "covered", "that word is already covered"
    GUESSING = "guessing", "a clue is being guessed: pass first"
    NOTHING_TO_UNDO = "nothing_to_undo", "nothing to undo"


@dataclass(frozen=True)
class Rejection(BaseRejection):
    event: Event
    reason: RejectReason


class Result(enum.Enum):
    CLUE = "clue"
    AGENT = "agent"
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    PASS = "pass"
    UNDO = "undo"


@dataclass(frozen=True)
class Outcome:
    event: Event
    result: Result
    cell: int | None = None
    undone: Event | None = None


@dataclass(frozen=True)
class Practice(Referee[Event, Outcome, Rejection]):
    card: PracticeCard
    phase: Phase
    covered: frozenset[int]
    won: bool | None  # None while playing

    @classmethod
    def start(cls, card: PracticeCard) -> Practice:
        return cls(card=card, phase=Phase.AWAITING_CLUE, covered=frozenset(), won=None)

    @property
    def agents_left(self) -> int:
        agents = {i for i, k in enumerate(self.card.keys) if k is Key.AGENT}
        return len(agents - self.covered)

    def _clue(self, event: Clue) -> tuple[Practice, Outcome] | RejectReason:
        if self.phase is Phase.GUESSING:
            return RejectReason.GUESSING
        return replace(self, phase=Phase.GUESSING), Outcome(event, Result.CLUE)

    def _pass(self, event: Pass) -> tuple[Practice, Outcome] | RejectReason:
        if self.phase is not Phase.GUESSING:
            return RejectReason.NO_CLUE
        return replace(self, phase=Phase.AWAITING_CLUE), Outcome(event, Result.PASS)

    def _touch(self, event: Touch) -> tuple[Practice, Outcome] | RejectReason:
        if self.phase is not Phase.GUESSING:
            return RejectReason.NO_CLUE
        if event.cell in self.covered:
            return RejectReason.COVERED
        key = self.card.keys[event.cell]
        state = replace(self, covered=self.covered | {event.cell})
        if key is Key.ASSASSIN:
            state = replace(state, phase=Phase.OVER, won=False)
            return state, Outcome(event, Result.ASSASSIN, event.cell)
        if key is Key.BYSTANDER:
            return replace(state, phase=Phase.AWAITING_CLUE), Outcome(
                event, Result.BYSTANDER, event.cell
            )
        if state.agents_left == 0:
            state = replace(state, phase=Phase.OVER, won=True)
        return state, Outcome(event, Result.AGENT, event.cell)

    # The core's dispatch and undo (keystand.rules.core), by these:
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    STEPS = MappingProxyType({Clue: _clue, Pass: _pass, Touch: _touch})
    GAME = "practice"
    REFUSED = Rejection
    GAME_OVER = RejectReason.GAME_OVER
    NOTHING_TO_UNDO = RejectReason.NOTHING_TO_UNDO
    OUTCOME = Outcome
    UNDONE = Result.UNDO
