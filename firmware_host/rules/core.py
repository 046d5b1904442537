"""What every game's rules share: an immutable state, one step, undo, and refusals.

A game is where it started and its event list. `Referee.apply(event)` is the one
step: it returns the state after the event and what the event did (the game's
outcome), or the same game and why the rules refused the event (the game's
subclass of `BaseRejection`).
Two kinds of bad input stay apart, as in python-chess: a malformed event cannot
be built (its constructor raises EventError, naming the value), and a
well-formed one the rules do not allow now is refused, a value, not an
exception. `play` is the same step for callers that want the refusal raised
(`RejectedEvent`, carrying it).

Undo is the core's own, not any rulebook's: every state keeps the one before its
last accepted event (`previous`), so undo goes back to it, and undo again to the
one before; a refusal changes no game, so undo skips it. The events applied,
refused ones too, are a chain shared between states: appending one is O(1),
where copying a tuple on every event made a game O(N^2).

A game subclasses `Referee` with its event, outcome and rejection types and
declares the rest as data: `STEPS`, each event type's step (a method of the
game's: the game after the event and its outcome, or the refusal's reason),
`REFUSED` (its rejection type), `GAME_OVER` and `NOTHING_TO_UNDO` (its reasons for
an event after the end and an undo with nothing before it), `OUTCOME` and
`UNDONE` (its outcome type and the result that says an event was undone), and
whether the game is `over`. The core's `_step` dispatches by the table, refuses
every event once the game is over, and builds undo's outcome and refusal; a game
whose step is not a table writes `_step` (and undo's two hooks) itself.
"""

from __future__ import annotations

import enum
from abc import ABC
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from .errors import KeystandError

EventT = TypeVar("EventT")  # a game's event: a union of small immutable values
OutcomeT = TypeVar("OutcomeT")  # what an accepted event did, in a game's own terms
RejectionT = TypeVar("RejectionT", bound="BaseRejection")  # a game's refusal


@dataclass(frozen=True)
class Undo:
    """Take back the last accepted event (the game returns to just before it)."""

    def __str__(self) -> str:
        return "undo"


class BaseRejectReason(enum.Enum):
    """A game's refusal codes derive from this: each member is `NAME = code, message`.
    The code is the member's value and a contract (`keystand play --json`, the
    screens' `reject`, scripts' output); the message is for people."""

    _value_: str
    message: str

    def __new__(cls, code: str, message: str) -> Self:
        member = object.__new__(cls)
        member._value_ = code
        member.message = message
        return member


@dataclass(frozen=True)
class BaseRejection:
    """An input the rules refused, and why; the state does not change. A game's
    subclass narrows `event` and `reason` to its own types."""

    event: object
    reason: BaseRejectReason

    @property
    def code(self) -> str:
        return self.reason.value

    @property
    def message(self) -> str:
        return self.reason.message


class RejectedEvent(KeystandError, ValueError):
    """`play` refused a well-formed event; `rejection` says which and why."""

    def __init__(self, rejection: BaseRejection) -> None:
        self.rejection = rejection
        super().__init__(f"{rejection.event}: {rejection.message}")


@dataclass(frozen=True)
class Chain(Generic[EventT]):
    """The events applied so far, newest first; each state holds its own node and
    shares the rest with the states before it."""

    event: EventT
    parent: Chain[EventT] | None
    length: int

    def events(self) -> tuple[EventT, ...]:
        out: list[EventT] = []
        node: Chain[EventT] | None = self
        while node is not None:
            out.append(node.event)
            node = node.parent
        return tuple(reversed(out))


@dataclass(frozen=True)
class Referee(ABC, Generic[EventT, OutcomeT, RejectionT]):
    """One moment of a game, and how it got here.

    A subclass's own fields are the game (compared for equality); these are the
    history (not compared: undo then the same event again compares equal).
    """

    last: OutcomeT | RejectionT | None = field(default=None, compare=False, kw_only=True)
    # The last accepted outcome, kept when refusals follow it (a screen must not
    # lose "Agent found" to the bounce of the same finger).
    outcome: OutcomeT | None = field(default=None, compare=False, kw_only=True)
    chain: Chain[EventT] | None = field(default=None, compare=False, repr=False, kw_only=True)
    previous: Self | None = field(default=None, compare=False, repr=False, kw_only=True)
    made_by: EventT | None = field(default=None, compare=False, repr=False, kw_only=True)

    # ----- what a game declares --------------------------------------------------------

    # Each event type's step: the game's method taking the event, returning the game
    # after it and its outcome, or the reason (a BaseRejectReason) it is refused.
    STEPS: ClassVar[Mapping[type, Callable[[Any, Any], Any]]] = {}
    GAME: ClassVar[str] = ""  # how a malformed event's error names the game (its class)
    REFUSED: ClassVar[type[BaseRejection]]  # its rejection type: (event, reason)
    GAME_OVER: ClassVar[BaseRejectReason]  # any event but undo once the game is over
    NOTHING_TO_UNDO: ClassVar[BaseRejectReason]  # undo at the start
    OUTCOME: ClassVar[type]  # its outcome type: (event, result, undone=...)
    UNDONE: ClassVar[enum.Enum]  # the outcome's result of an undo

    @property
    def over(self) -> bool:
        """Whether the game has ended: the core refuses every event but undo then."""
        raise NotImplementedError(f"{type(self).__name__} declares no `over`")

    def _step(self, event: EventT) -> tuple[Self, OutcomeT] | RejectionT:
        """The game after `event` (never an Undo) and its outcome, or the refusal, by
        the game's `STEPS`; raises TypeError for a value that is not one of its events."""
        step = self.STEPS.get(type(event))
        if step is None:
            raise TypeError(f"not a {self.GAME or type(self).__name__} event: {event!r}")
        if self.over:
            return cast(RejectionT, self.REFUSED(event, self.GAME_OVER))
        result = step(self, event)
        if isinstance(result, BaseRejectReason):
            return cast(RejectionT, self.REFUSED(event, result))
        return cast(tuple[Self, OutcomeT], result)

    def _undo_outcome(self, event: Undo) -> OutcomeT:
        """What undoing `made_by` did, in the game's terms."""
        return cast(OutcomeT, self.OUTCOME(event, self.UNDONE, undone=self.made_by))

    def _nothing_to_undo(self, event: Undo) -> RejectionT:
        """The refusal of an undo at the start (or just after one undid everything)."""
        return cast(RejectionT, self.REFUSED(event, self.NOTHING_TO_UNDO))

    # ----- the step --------------------------------------------------------------------

    def apply(self, event: EventT) -> tuple[Self, OutcomeT | RejectionT]:
        """The state after `event`, and what it did or why it was refused. Never raises
        for a well-formed event; a refused one leaves the game as it was."""
        chain = Chain(event, self.chain, self.events_applied + 1)
        if isinstance(event, Undo):
            return self._undo(event, chain)
        result = self._step(event)
        if isinstance(result, BaseRejection):
            return replace(self, last=result, chain=chain), result
        state, outcome = result
        after = replace(
            state, last=outcome, outcome=outcome, chain=chain, previous=self, made_by=event
        )
        return after, outcome

    def play(self, event: EventT) -> tuple[Self, OutcomeT]:
        """`apply`, raising RejectedEvent for a refused event instead of returning it."""
        state, result = self.apply(event)
        if isinstance(result, BaseRejection):
            raise RejectedEvent(result)
        return state, result

    def apply_all(self, events: Iterable[EventT]) -> Self:
        """The state after each of `events` in turn, refused ones included (a replay)."""
        state = self
        for event in events:
            state, _ = state.apply(event)
        return state

    def _undo(self, event: Undo, chain: Chain[EventT]) -> tuple[Self, OutcomeT | RejectionT]:
        before = self.previous
        if before is None:
            refusal = self._nothing_to_undo(event)
            return replace(self, last=refusal, chain=chain), refusal
        outcome = self._undo_outcome(event)
        return replace(before, last=outcome, outcome=outcome, chain=chain), outcome

    # ----- the history -----------------------------------------------------------------

    @property
    def log(self) -> tuple[EventT, ...]:
        """Every event applied to reach this state, refused ones too, oldest first
        (O(N): for replay and repr, not for the step)."""
        return self.chain.events() if self.chain else ()

    @property
    def events_applied(self) -> int:
        return self.chain.length if self.chain else 0
