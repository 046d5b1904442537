"""The classic Codenames referee: one immutable game state and the pure step `apply`.

The rules are the German rulebook's (Codenames, Czech Games Edition); comments
quote it where a choice is made, and
docs/classic-rules.md lists every point it leaves open and what the stand decided.
A game is its card and its event list: `Classic.replay` rebuilds any state from
those, and undo is an event that returns to the state before the last accepted one.

Two teams, red and blue; both spymasters see the key card, the operatives touch
words. A touch is judged by the key: the team on turn's colour lets them guess
again (up to the clue's number plus one), anything else ends the turn, and the
assassin ends the game.

Malformed input cannot be built (EventError, from classic_events); a well-formed
event the rules refuse now comes back from `apply` as a `Rejection` and changes
nothing. `play` is the same step for callers that want the refusal raised, as
`RejectedEvent`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from .classic_card import ClassicCard, ClassicKey, Team
from .classic_events import Clue, Event, Pass, Penalty, Timeout, Touch
from .core import BaseRejection, BaseRejectReason, Referee
from .core import RejectedEvent as RejectedEvent  # `play` raises it (the core's)

# Bump when a change would replay an old event list to a different state (for the
# journal's start record: a game journaled under another version is not resumed blindly).
RULES_VERSION = 1


class _Named(enum.Enum):
    """An enum whose repr is the Python that names it (pasteable, as elsewhere)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class Status(_Named):
    PLAYING = "playing"
    OVER = "over"


class Reason(_Named):
    """How a game was won."""

    ALL_FOUND = "all_found"  # the winner's last agent was covered (by either team)
    ASSASSIN = "assassin"  # the loser touched the assassin


class Phase(_Named):
    AWAITING_CLUE = "awaiting_clue"
    GUESSING = "guessing"
    OVER = "over"


class RejectReason(_Named, BaseRejectReason):
    """Why the rules refused a well-formed input: `NAME = code, message`. The code is
    the stable value other tools see (`keystand play --json`); the message is for people.

    PENALTY_NOT_THEIR_WORD tells something of the key (that word is not the other
    team's): show it on the spymasters' screen only.
    """

    GAME_OVER = "game_over", "the game is over"
    NO_CLUE = "no_clue", "no clue has been given for this turn yet"
    COVERED = "covered", "that word is already covered"
    TURN_IN_PROGRESS = (
        "turn_in_progress",
        "a turn is in progress: the operatives must finish it first",
    )
    CLUE_OUT_OF_TURN = "clue_out_of_turn", "it is the other team's turn to give a clue"
    PASS_NO_TURN = "pass_no_turn", "no turn to end: no clue has been given"
    PASS_OUT_OF_TURN = "pass_out_of_turn", "only the team on turn can end its turn"
    PASS_BEFORE_GUESS = "pass_before_guess", "the operatives must make at least one guess first"
    PENALTY_NO_CLUE = "penalty_no_clue", "no clue to call invalid: a penalty follows a clue"
    PENALTY_AFTER_GUESS = (
        "penalty_after_guess",
        "a guess has been made: an invalid clue noticed later counts as valid",
    )
    PENALTY_NOT_THEIR_WORD = (
        "penalty_not_their_word",
        "the other team's spymaster covers one of their own words: that word is not theirs",
    )
    NOTHING_TO_UNDO = "nothing_to_undo", "nothing to undo"
    TIMEOUT_OUT_OF_TURN = "timeout_out_of_turn", "the timer runs out on the team on turn only"


@dataclass(frozen=True)
class Rejection(BaseRejection):
    """An input the rules refused, and why. The state does not change."""

    event: Event
    reason: RejectReason


class Result(_Named):
    """What an accepted event did."""

    CLUE = "clue"
    OWN_AGENT = "own_agent"  # the touching team's colour: guess again
    OTHER_AGENT = "other_agent"  # the other team's colour: the turn ends
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    PASS = "pass"
    PENALTY = "penalty"
    UNDO = "undo"
    TIME_UP = "time_up"  # the turn timer ran out: the turn ends


@dataclass(frozen=True)
class Outcome:
    """What an accepted event did: public facts only (a touched or penalty-covered
    word gets its tile on the table for everyone to see).

    `team` is the team on turn when the event came (for a penalty, the team whose
    clue was invalid); `cell` and `key` the word covered, if any; `turn_over` that
    the turn ended with this event; `winner` that the game did.
    """

    event: Event
    result: Result
    team: Team | None = None
    cell: int | None = None
    key: ClassicKey | None = None
    turn_over: bool = False
    winner: Team | None = None
    undone: Event | None = None


@dataclass(frozen=True)
class Classic(Referee[Event, Outcome, Rejection]):
    """One moment of a classic game. Build with `Classic.start` or `Classic.replay`.

    Fields compared for equality are the game; `last`, `chain`, `previous` and
    `made_by` are how it got here (undo then the same event again compares equal).
    """

    card: ClassicCard
    status: Status
    winner: Team | None
    reason: Reason | None
    phase: Phase
    team: Team  # the team on turn (when over: the team whose turn ended the game)
    clue: Clue | None  # the clue being guessed, while guessing
    guesses: int  # words touched on this clue
    covered: frozenset[int]  # cells with a tile on them (touched, or covered by a penalty)

    # ----- construction -------------------------------------------------------------

    @classmethod
    def start(cls, card: ClassicCard) -> Classic:
        # "Die Teams sind abwechselnd am Zug, beginnend mit dem Team, dessen Farbe
        # die Dreiecke auf der Codekarte haben": the team with 9 agents.
        return cls(
            card=card,
            status=Status.PLAYING,
            winner=None,
            reason=None,
            phase=Phase.AWAITING_CLUE,
            team=card.starting,
            clue=None,
            guesses=0,
            covered=frozenset(),
        )

    @classmethod
    def replay(cls, card: ClassicCard, events: Iterable[Event] = ()) -> Classic:
        return cls.start(card).apply_all(events)

    def __repr__(self) -> str:
        return f"Classic.replay({self.card!r}, {list(self.log)!r})"

    # ----- what anyone at the table can see ------------------------------------------

    @property
    def turn(self) -> Team | None:
        """The team on turn, None when the game is over."""
        return None if self.phase is Phase.OVER else self.team

    @property
    def guesses_left(self) -> int | None:
        """Guesses the current clue still allows, None when there is no limit (no
        clue yet, a clue for 0, unlimited or without a number; the game over)."""
        if self.phase is not Phase.GUESSING or self.clue is None:
            return None
        limit = self.clue.limit
        return None if limit is None else limit - self.guesses

    def agents_left(self, team: Team) -> int:
        """`team`'s agents not yet covered (the count is public: the tiles are on the table)."""
        return len(self.card.agents(team) - self.covered)

    # ----- the step ------------------------------------------------------------------

    # Not in the rulebook: the stand's way to take back a stray touch, as in Duet.
    # Undo also reopens a game a stray touch ended.
    # (the core's undo: `OUTCOME` with `UNDONE`, and `NOTHING_TO_UNDO`)

    def _clue(self, event: Clue) -> tuple[Classic, Outcome] | RejectReason:
        if self.phase is Phase.GUESSING:
            return RejectReason.TURN_IN_PROGRESS
        if event.team is not self.team:
            # "Die Teams sind abwechselnd am Zug"
            return RejectReason.CLUE_OUT_OF_TURN
        state = replace(self, phase=Phase.GUESSING, clue=event, guesses=0)
        return state, Outcome(event, Result.CLUE, team=event.team)

    def _touch(self, event: Touch) -> tuple[Classic, Outcome] | RejectReason:
        if self.phase is not Phase.GUESSING:
            return RejectReason.NO_CLUE
        cell = event.cell
        if cell in self.covered:
            return RejectReason.COVERED
        # "Der Agentenchef deckt diese Karte mit einem Plättchen ab, dessen Farbe der
        # auf der Codekarte dort angezeigten Farbe entspricht": every touched word
        # gets its tile, the assassin too.
        key = self.card.key(cell)
        team = self.team
        state = replace(self, covered=self.covered | {cell}, guesses=self.guesses + 1)

        def outcome(result: Result, *, turn_over: bool, winner: Team | None = None) -> Outcome:
            return Outcome(event, result, team, cell, key, turn_over=turn_over, winner=winner)

        if key is ClassicKey.ASSASSIN:
            # "Wenn ihr auf den Attentäter tippt, verliert ihr das Spiel!" and "Ihr
            # gewinnt auch, wenn das andere Team auf den Attentäter tippt."
            return state._over(team.other, Reason.ASSASSIN), outcome(
                Result.ASSASSIN, turn_over=True, winner=team.other
            )
        owner = key.team
        if owner is not None and state.agents_left(owner) == 0:
            # "Wenn euer Team keine Wörter mehr zu erraten hat, gewinnt ihr ... Ihr
            # könnt aber auch gewinnen, wenn das andere Team euer letztes Wort in
            # seinem Zug errät."
            result = Result.OWN_AGENT if owner is team else Result.OTHER_AGENT
            return state._over(owner, Reason.ALL_FOUND), outcome(
                result, turn_over=True, winner=owner
            )
        if owner is team:
            # "Habt ihr ein Wort eurer eigenen Farbe erraten, dürft ihr erneut raten",
            # up to the number plus one ("die Regel plus 1"); no limit for 0 ("Ignoriert
            # die Regel plus 1"), unlimited, or a clue without a number.
            limit = self.clue.limit if self.clue else None
            if limit is not None and state.guesses >= limit:
                return state._end_turn(), outcome(Result.OWN_AGENT, turn_over=True)
            return state, outcome(Result.OWN_AGENT, turn_over=False)
        # "Wenn ihr auf einen unbeteiligten Zuschauer tippt, endet euer Zug." / "Wenn
        # ihr auf ein Wort des anderen Teams tippt, endet euer Zug und ihr habt dem
        # anderen Team geholfen!"
        result = Result.BYSTANDER if owner is None else Result.OTHER_AGENT
        return state._end_turn(), outcome(result, turn_over=True)

    def _pass(self, event: Pass) -> tuple[Classic, Outcome] | RejectReason:
        if self.phase is not Phase.GUESSING:
            return RejectReason.PASS_NO_TURN
        if event.team is not self.team:
            return RejectReason.PASS_OUT_OF_TURN
        if not self.guesses:
            # "Ihr müsst aber auf jeden Fall 1 Rateversuch machen."
            return RejectReason.PASS_BEFORE_GUESS
        return self._end_turn(), Outcome(event, Result.PASS, team=event.team, turn_over=True)

    def _penalty(self, event: Penalty) -> tuple[Classic, Outcome] | RejectReason:
        # "Wenn ein Agentenchef versehentlich einen ungültigen Hinweis gibt, endet der
        # Zug seines Teams sofort, ohne Rateversuche und der gegnerische Agentenchef
        # darf eines seiner eigenen Wörter abdecken, bevor er einen neuen Hinweis gibt."
        if self.phase is not Phase.GUESSING:
            return RejectReason.PENALTY_NO_CLUE
        if self.guesses:
            # "Außerdem ist ein ungültiger Hinweis automatisch gültig, wenn er erst
            # später als ungültig bemerkt wird": once a word is touched, it is later.
            return RejectReason.PENALTY_AFTER_GUESS
        cell = event.cell
        if cell in self.covered:
            return RejectReason.COVERED
        other = self.team.other
        key = self.card.key(cell)
        if key is not other.key:
            return RejectReason.PENALTY_NOT_THEIR_WORD
        state = replace(self, covered=self.covered | {cell})
        if state.agents_left(other) == 0:
            # Their last word: "Wenn euer Team keine Wörter mehr zu erraten hat,
            # gewinnt ihr."
            state = state._over(other, Reason.ALL_FOUND)
            winner: Team | None = other
        else:
            state, winner = state._end_turn(), None
        return state, Outcome(
            event, Result.PENALTY, self.team, cell, key, turn_over=True, winner=winner
        )

    def _timeout(self, event: Timeout) -> tuple[Classic, Outcome] | RejectReason:
        # The rulebook's timer variant says nothing of what happens when the time is
        # up; the stand ends the turn, as most groups play it (docs/classic-rules.md),
        # in either phase: a spymaster who found no clue loses the turn too.
        if event.team is not self.team:
            return RejectReason.TIMEOUT_OUT_OF_TURN
        return self._end_turn(), Outcome(event, Result.TIME_UP, team=event.team, turn_over=True)

    def _end_turn(self) -> Classic:
        # "Wenn euer Zug endet, ist das andere Team am Zug."
        return replace(self, phase=Phase.AWAITING_CLUE, team=self.team.other, clue=None, guesses=0)

    def _over(self, winner: Team, reason: Reason) -> Classic:
        return replace(
            self, status=Status.OVER, winner=winner, reason=reason, phase=Phase.OVER, clue=None
        )

    # The core's dispatch and undo (rules.core), by these:
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    STEPS = MappingProxyType(
        {Touch: _touch, Clue: _clue, Pass: _pass, Penalty: _penalty, Timeout: _timeout}
    )
    GAME = "classic"
    REFUSED = Rejection
    GAME_OVER = RejectReason.GAME_OVER
    NOTHING_TO_UNDO = RejectReason.NOTHING_TO_UNDO
    OUTCOME = Outcome
    UNDONE = Result.UNDO


def apply(state: Classic, event: Event) -> tuple[Classic, Outcome | Rejection]:
    """`state.apply(event)`: the state after `event` and what it did or why it was refused."""
    return state.apply(event)


def summary(state: Classic, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The state as docs/design.md's `keystand play --game classic --json` names its fields;
    `rejected` is the caller's list of {line, event, reason} (as for Duet)."""
    return {
        "status": state.status.value,
        "winner": state.winner.value if state.winner else None,
        "reason": state.reason.value if state.reason else None,
        "phase": state.phase.value,
        "turn": state.turn.value if state.turn else None,
        "guesses_left": state.guesses_left,
        "agents_left": {team.value: state.agents_left(team) for team in Team},
        "covered": sorted(state.covered),
        "rejected": list(rejected),
    }
