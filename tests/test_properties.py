"""Property tests of the Duet referee over random event streams on random cards and missions.

Every expectation is derived from docs/rules.md (and the rulebook it
condenses), not from running the code: `Ref` below is an independent reference model
of the rules written from docs/rules.md, and each event a stream feeds the referee is
also fed to the model; the two must agree on whether the event is accepted and on
every value `keystand play --json` shows (docs/design.md "Contracts"). On top of the
model the file checks the invariants the issue names (token accounting, agents,
covers, the score, replay, undo, a finished game) after every single event.

Points the rules leave open and the project decided (the issue): after the game
is over every event except Undo is refused with GAME_OVER; Undo reopens a finished
game; in sudden death a seat with words left may press its key ("I am guessing")
even when it is the only such seat. Pinned here from the wording of docs/rules.md:
Undo returns to the state before the last accepted event not yet undone, so undo
after undo goes one more step back ("Undo (the stand's own addition)"); a penalty
needs a current clue and comes once per clue ("The invalid-clue penalty": "once per
clue, only while a clue is being guessed"); a pass or a bystander with the bank
already empty (a penalty took the last token) needs a token the bank does not have,
so the game is lost at once (the same section: both "lose the game at once", after
"The time bank"'s "If a turn causes you to use up more tokens than you have, you
lose immediately"). And "What the table says without a key": once the giver of
the next clue is known, a touch gives that clue and is its first guess, except on
the word the last turn ended on (its timer token is still to be placed); a touch
that leaves its guesser nothing to find ends the turn as a pass would.

Event streams are lists of "intents": an intent is either a fully random event or
a "smart" one chosen from the current public state (a touch of an agent on the
judging side, a clue by a seat allowed to give one, a pass by the guesser...), so
games are won, lost and reach sudden death often; `test_generated_games_reach_*`
checks that they do.
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings, target
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from keystand.games.duet.summary import state_json
from keystand.rules import NAMED, Card, Clue, Event, Key, Mission, Pass, Penalty, Seat, Touch, Undo
from keystand.rules.cardcode import CARD_COUNT, generate, unrank
from keystand.rules.duet import (
    Duet,
    Outcome,
    Phase,
    Reason,
    Rejection,
    RejectReason,
    Result,
    Status,
)

CELLS = range(25)
ALL_EVENTS: tuple[Event, ...] = (
    *(Touch(r, c) for r in range(5) for c in range(5)),
    Clue(Seat.A),
    Clue(Seat.B),
    Pass(Seat.A),
    Pass(Seat.B),
    Penalty(),
    Undo(),
)
ALL_BUT_UNDO = ALL_EVENTS[:-1]

# ----- the reference model (docs/rules.md, written without looking at duet.py's logic) ------


_SIDES: dict[int, tuple[Card, dict[tuple[Seat, Key], frozenset[int]]]] = {}


def cells_of(card: Card, seat: Seat, key: Key) -> frozenset[int]:
    """The cells `seat`'s side of `card` marks `key` (cached by identity: hashing a
    card is slow, and the checks ask this on every event)."""
    entry = _SIDES.get(id(card))
    if entry is None or entry[0] is not card:
        table = {
            (s, k): frozenset(i for i in CELLS if (card.a if s is Seat.A else card.b)[i] is k)
            for s in Seat
            for k in Key
        }
        entry = _SIDES[id(card)] = (card, table)
    return entry[1][seat, key]


@dataclass(frozen=True)
class Ref:
    """The rules of docs/rules.md as a plain model: the bank, covers, misses, turns."""

    card: Card
    turns: int
    loose: bool
    check: int  # tokens check side up in the bank
    byst: int  # tokens bystander side up in the bank
    agents: frozenset[int] = frozenset()
    miss_a: frozenset[int] = frozenset()  # guessed by A, bystander on B's side
    miss_b: frozenset[int] = frozenset()
    status: str = "playing"
    reason: str | None = None
    giver: Seat | None = None  # the clue giver of the turn on now
    givers: tuple[Seat, ...] = ()
    correct: bool = False  # a correct guess this turn
    penalised: bool = False  # this turn's clue was called invalid
    sudden: bool = False  # sudden death reached
    armed: Seat | None = None
    passes: int = 0  # tokens a guesser took to end a turn
    token_due: int | None = None  # the word the last turn missed, its token not yet placed

    @classmethod
    def start(cls, card: Card, mission: Mission, loose: bool) -> Ref:
        return cls(card, mission.turns, loose, mission.turns - mission.mistakes, mission.mistakes)

    def key(self, seat: Seat, cell: int) -> Key:
        return (self.card.a if seat is Seat.A else self.card.b)[cell]

    def own_agents(self, seat: Seat) -> frozenset[int]:
        return cells_of(self.card, seat, Key.AGENT)

    def has_words(self, seat: Seat) -> bool:
        """`seat` can still guess: an agent on its partner's side is not covered."""
        return not self.own_agents(seat.partner) <= self.agents

    def misses(self, seat: Seat) -> frozenset[int]:
        return self.miss_a if seat is Seat.A else self.miss_b

    @property
    def bank(self) -> int:
        return self.check + self.byst

    @property
    def covered(self) -> frozenset[int]:
        return self.agents | (self.miss_a & self.miss_b)

    @property
    def phase(self) -> str:
        if self.status != "playing":
            return "over"
        if self.sudden:
            return "sudden_death"
        return "guessing" if self.giver else "awaiting_clue"

    def may_clue(self, seat: Seat) -> bool:
        if not self.has_words(seat.partner):
            return False  # seat's own agents are all covered: the partner gives the clues
        if not self.has_words(seat):
            return True  # seat has nothing to guess: it gives every clue
        if self.loose:
            return self.givers[-2:] != (seat, seat)  # two in a row, never three
        return not self.givers or self.givers[-1] is not seat  # alternate

    def sudden_guesser(self) -> Seat | None:
        able = [s for s in Seat if self.has_words(s)]
        if len(able) == 1:
            return able[0]
        return self.armed if self.armed in able else None

    @property
    def clue_giver(self) -> Seat | None:
        if self.phase == "guessing":
            return self.giver
        if self.phase == "awaiting_clue":
            allowed = [s for s in Seat if self.may_clue(s)]
            return allowed[0] if len(allowed) == 1 else None
        return None

    @property
    def guesser(self) -> Seat | None:
        if self.phase == "sudden_death":
            return self.sudden_guesser()
        giver = self.clue_giver
        return giver.partner if giver else None

    @property
    def score(self) -> int | None:
        """docs/rules.md "Winning and the score"."""
        if self.status != "won":
            return None
        if self.sudden:
            return 0 + self.passes - 1
        return 3 * max(0, self.bank - 1) + self.passes

    def view(self) -> dict[str, Any]:
        """What `keystand play --json` must show (docs/design.md "Contracts"), from the model."""

        def seat(s: Seat | None) -> str | None:
            return s.value if s else None

        return {
            "status": self.status,
            "reason": self.reason,
            "phase": self.phase,
            "clue_giver": seat(self.clue_giver),
            "guesser": seat(self.guesser),
            "turns_left": self.bank,
            "mistakes_left": self.byst,
            "agents_found": len(self.agents),
            "covered": sorted(self.covered),
            "misses": {"A": sorted(self.miss_a), "B": sorted(self.miss_b)},
            "passes": self.passes,
            "score": self.score,
            "rejected": [],
        }

    def end_turn(self, token_due: int | None = None) -> Ref:
        return replace(
            self,
            giver=None,
            correct=False,
            penalised=False,
            sudden=self.bank == 0,
            armed=None,
            token_due=token_due,
        )

    def take_pass_token(self) -> Ref:
        """The guesser ends the turn with a token: check side, else bystander side, else
        (a penalty emptied the bank) the game is lost."""
        if self.check:
            return replace(self, check=self.check - 1, passes=self.passes + 1).end_turn()
        if self.byst:
            return replace(self, byst=self.byst - 1, passes=self.passes + 1).end_turn()
        return replace(self, status="lost", reason="out_of_time")

    def step(self, e: Event) -> tuple[Ref | None, RejectReason | None]:
        """(the model after `e`, None) if accepted; (None, reason or None) if refused.
        A reason is given only where it is the one reason that applies. Not for Undo."""
        if self.status != "playing":
            return None, RejectReason.GAME_OVER
        phase = self.phase
        if isinstance(e, Clue):
            if phase == "sudden_death":  # the clue key means "I am guessing"
                return (
                    (replace(self, armed=e.seat), None) if self.has_words(e.seat) else (None, None)
                )
            if phase == "guessing":
                return None, RejectReason.TURN_IN_PROGRESS  # one clue per turn
            if not self.may_clue(e.seat):
                return None, None
            return replace(self, giver=e.seat, givers=(*self.givers, e.seat), token_due=None), None
        if isinstance(e, Pass):
            if phase == "sudden_death":
                return None, RejectReason.PASS_IN_SUDDEN_DEATH
            if phase != "guessing" or e.seat is self.giver or not self.correct:
                return None, None
            return self.take_pass_token(), None  # a penalty may have emptied the bank
        if isinstance(e, Penalty):
            if phase != "guessing" or self.penalised:
                return None, None
            if self.check:
                return replace(self, check=self.check - 1, penalised=True), None
            return replace(self, byst=self.byst - 1, penalised=True), None
        assert isinstance(e, Touch)
        if phase == "awaiting_clue":
            giver = self.clue_giver
            if giver is None or e.row * 5 + e.col == self.token_due:
                return None, RejectReason.NO_CLUE  # whose clue is not known; the token's hand
            given = replace(self, giver=giver, givers=(*self.givers, giver), token_due=None)
            return given.step(e)  # the clue said aloud, and its first guess
        if phase == "sudden_death":
            guesser = self.sudden_guesser()
            if guesser is None:
                return None, None
        else:
            assert self.giver is not None
            guesser = self.giver.partner
        cell = e.row * 5 + e.col
        if cell in self.covered:
            return None, RejectReason.COVERED if phase == "guessing" else None
        if cell in self.misses(guesser):
            return None, RejectReason.ALREADY_MISSED if phase == "guessing" else None
        key = self.key(guesser.partner, cell)  # judged by the clue giver's side only
        if key is Key.ASSASSIN:
            return replace(self, status="lost", reason="assassin"), None
        if key is Key.AGENT:
            state = replace(self, agents=self.agents | {cell}, correct=True)
            if len(state.agents) == 15:
                state = replace(state, status="won")
            elif phase == "guessing" and not state.has_words(guesser):
                state = state.take_pass_token()  # nothing left to find: the turn ends
            return state, None
        if guesser is Seat.A:
            state = replace(self, miss_a=self.miss_a | {cell})
        else:
            state = replace(self, miss_b=self.miss_b | {cell})
        if phase == "sudden_death":
            return replace(state, status="lost", reason="sudden_death"), None
        if self.byst:
            return replace(state, byst=self.byst - 1).end_turn(cell), None
        if self.check >= 2:
            return replace(state, check=self.check - 2).end_turn(cell), None
        # One check token left, or none (a penalty took the last): more than the bank has.
        return replace(state, status="lost", reason="out_of_time"), None


# ----- invariants of one state ------------------------------------------------------------


def expected_score(state: Duet) -> int | None:
    """docs/rules.md "Winning and the score": 3 per token left after one for the winning
    turn (0 in sudden death), +1 per pass, -1 if sudden death was needed."""
    if state.status is not Status.WON:
        return None
    bank_points = 0 if state.sudden_death else 3 * max(0, state.turns_left - 1)
    return bank_points + state.passes - (1 if state.sudden_death else 0)


def check_invariants(state: Duet) -> None:
    card, mission = state.card, state.mission
    # the time bank
    assert state.tokens_spent + state.turns_left == mission.turns
    assert state.bank_check >= 0 and state.bank_bystander >= 0
    assert state.turns_left == state.bank_check + state.bank_bystander
    assert 0 <= state.mistakes_left <= state.turns_left <= mission.turns
    assert state.mistakes_left <= mission.mistakes
    assert min(state.passes, state.mistake_tokens, state.discarded) >= 0
    # agents and covers
    assert 0 <= state.agents_found == len(state.agents) <= 15
    assert state.agents <= cells_of(card, Seat.A, Key.AGENT) | cells_of(card, Seat.B, Key.AGENT)
    assert (state.status is Status.WON) == (len(state.agents) == 15)
    assert state.covered >= state.agents
    assert state.covered == state.agents | (state.misses_a & state.misses_b)
    assert state.misses(Seat.A) == state.misses_a and state.misses(Seat.B) == state.misses_b
    # a seat's misses are bystanders on its partner's side (the judge)
    assert state.misses_a <= cells_of(card, Seat.B, Key.BYSTANDER)
    assert state.misses_b <= cells_of(card, Seat.A, Key.BYSTANDER)
    # a seat has nothing left to guess exactly when its partner's agents are covered
    for seat in Seat:
        assert state.nothing_left_to_guess(seat) == (
            cells_of(card, seat.partner, Key.AGENT) <= state.agents
        )
    # status, phase, reason, score
    assert (state.phase is Phase.OVER) == (state.status is not Status.PLAYING)
    assert (state.reason is not None) == (state.status is Status.LOST)
    if state.phase is Phase.SUDDEN_DEATH:
        assert state.turns_left == 0 and state.sudden_death
    if state.phase in (Phase.AWAITING_CLUE, Phase.GUESSING):
        assert not state.sudden_death
    if state.phase is Phase.AWAITING_CLUE:
        assert state.turns_left >= 1  # an empty bank after a turn is sudden death
    assert state.score == expected_score(state)
    if state.phase is Phase.OVER:
        assert state.clue_giver is None and state.guesser is None
        assert state.may_give_clue() == ()
    if state.phase is Phase.GUESSING:
        assert state.clue_giver is not None and state.guesser is state.clue_giver.partner
    # clues: strict order alternates, loose order never three in a row, except that the
    # partner of a seat whose agents are all covered gives every clue from then on
    in_a_row = 3 if state.loose_order else 2
    for i, seat in enumerate(state.givers):
        if i + 1 >= in_a_row and set(state.givers[i + 1 - in_a_row : i + 1]) == {seat}:
            assert cells_of(card, seat.partner, Key.AGENT) <= state.agents


def check_step(before: Duet, e: Event, after: Duet, outcome: Outcome) -> None:
    """An accepted event other than Undo only moves the game forward, and its outcome
    tells the public facts of that step."""
    assert before.status is Status.PLAYING
    assert after.card == before.card and after.mission == before.mission
    assert after.loose_order == before.loose_order
    assert after.agents >= before.agents
    assert after.misses_a >= before.misses_a and after.misses_b >= before.misses_b
    assert before.turns_left - 2 <= after.turns_left <= before.turns_left
    assert after.tokens_spent >= before.tokens_spent and after.passes >= before.passes
    changed = (
        (after.agents - before.agents)
        | (after.misses_a - before.misses_a)
        | (after.misses_b - before.misses_b)
    )
    if isinstance(e, Touch):
        assert changed <= {e.cell} and outcome.cell == e.cell
        assert (outcome.result is Result.AGENT) == (e.cell in after.agents - before.agents)
        assert (outcome.result is Result.ASSASSIN) == (after.reason is Reason.ASSASSIN)
        missed = (after.misses_a - before.misses_a) | (after.misses_b - before.misses_b)
        assert (outcome.result is Result.BYSTANDER) == (missed == {e.cell})
    else:
        assert not changed
    assert outcome.tokens == before.turns_left - after.turns_left
    if isinstance(e, Touch) and before.phase is Phase.AWAITING_CLUE:
        # The touch gave the clue: its turn ended with it unless guessing goes on.
        assert len(after.givers) == len(before.givers) + 1
        assert outcome.turn_over == (after.phase is not Phase.GUESSING)
    else:
        assert outcome.turn_over == (after.phase not in (before.phase, Phase.GUESSING))
    if after.status is Status.PLAYING:
        # docs/rules.md "A turn": a seat whose agents are all covered says so, at once
        newly_done = tuple(
            seat
            for seat in Seat
            if cells_of(after.card, seat, Key.AGENT) <= after.agents
            and not cells_of(after.card, seat, Key.AGENT) <= before.agents
        )
        assert outcome.announced == newly_done
    if isinstance(e, Clue):
        assert after.turns_left == before.turns_left  # a clue itself costs nothing
    if isinstance(e, Penalty):
        assert after.turns_left == before.turns_left - 1
    if before.phase is Phase.SUDDEN_DEATH:
        assert after.phase in (Phase.SUDDEN_DEATH, Phase.OVER)
        assert after.turns_left == 0


# ----- the harness: the referee and the model side by side ---------------------------------


class Game:
    """One game: every event goes to the referee and to the model, and is checked."""

    def __init__(self, card: Card, mission: Mission, loose: bool) -> None:
        self.state = Duet.start(card, mission, loose_order=loose)
        self.ref = Ref.start(card, mission, loose)
        self.undo_stack: list[tuple[Duet, Ref]] = []  # before each accepted event
        self.accepted: list[Event] = []
        self.saw_sudden_death = False
        self.endings: list[str] = []
        check_invariants(self.state)
        assert state_json(self.state) == self.ref.view()

    def step(self, e: Event) -> Outcome | Rejection:
        before = self.state
        after, result = before.apply(e)  # nothing raises
        assert after.log == (*before.log, e)
        assert after.last == result and result.event == e
        if isinstance(e, Undo):
            if self.undo_stack:
                self.assert_same(after, self.undo_stack[-1][0])
                self.ref = self.undo_stack.pop()[1]
                assert isinstance(result, Outcome) and result.result is Result.UNDO
            else:
                assert isinstance(result, Rejection)
                assert result.reason is RejectReason.NOTHING_TO_UNDO
        else:
            ref, reason = self.ref.step(e)
            if before.phase is Phase.OVER:
                assert reason is RejectReason.GAME_OVER  # the model agrees it is over
            if ref is None:
                assert isinstance(result, Rejection), f"{e} accepted, docs/rules.md refuses it"
                if reason is not None:
                    assert result.reason is reason
            else:
                assert isinstance(result, Outcome), (
                    f"{e} refused ({result.reason}), docs/rules.md allows it"
                )
                check_step(before, e, after, result)
                self.check_undo_then_redo(before, e, after, result)
                self.undo_stack.append((before, self.ref))
                self.ref = ref
        if isinstance(result, Rejection):
            # a refused event leaves the game as it was, and what undo returns to
            assert after == before
            assert after.previous is before.previous
        else:
            self.accepted.append(e)
        assert state_json(after) == self.ref.view()
        assert after.agents == self.ref.agents
        check_invariants(after)
        if after.phase is Phase.OVER and before.phase is not Phase.OVER:
            self.check_finished(before, after)
            self.endings.append(f"{after.status.value}/{after.reason and after.reason.value}")
        self.saw_sudden_death |= after.phase is Phase.SUDDEN_DEATH
        self.state = after
        return result

    @staticmethod
    def assert_same(got: Duet, want: Duet) -> None:
        """Equal as states, and field by field in what `keystand play --json` shows."""
        assert got == want
        assert state_json(got) == state_json(want)

    def check_undo_then_redo(self, before: Duet, e: Event, after: Duet, outcome: Outcome) -> None:
        undone, result = after.apply(Undo())
        assert isinstance(result, Outcome) and result.undone == e
        self.assert_same(undone, before)
        redone, again = undone.apply(e)
        assert again == outcome
        self.assert_same(redone, after)

    def check_finished(self, before: Duet, over: Duet) -> None:
        """A finished game refuses everything but Undo, which reopens it."""
        for e in ALL_EVENTS:
            after, result = over.apply(e)
            if isinstance(e, Undo):
                assert isinstance(result, Outcome)
                self.assert_same(after, before)
                assert after.phase is not Phase.OVER
            else:
                assert isinstance(result, Rejection) and result.reason is RejectReason.GAME_OVER
                assert after == over
                assert after.apply(Undo())[0] == before

    def check_replay(self) -> None:
        state = self.state
        for events in (state.log, self.accepted):  # refused events change nothing
            again = Duet.replay(state.card, state.mission, events, loose_order=state.loose_order)
            self.assert_same(again, state)
            assert again.log == tuple(events)
        # and the replayed game goes on the same way (undo included)
        again = Duet.replay(state.card, state.mission, state.log, loose_order=state.loose_order)
        for e in ALL_EVENTS:
            self.assert_same(again.apply(e)[0], state.apply(e)[0])


# ----- strategies --------------------------------------------------------------------------

cards = st.one_of(
    st.integers(0, CARD_COUNT - 1).map(unrank),
    st.integers(0, 2**32 - 1).map(generate),
)


@st.composite
def missions(draw: st.DrawFn, max_turns: int = 25) -> Mission:
    turns = draw(
        st.one_of(
            st.sampled_from(sorted({m.turns for m in NAMED.values()})),
            st.integers(1, 4),
            st.integers(1, max_turns),
        )
    )
    return Mission(turns, draw(st.integers(0, turns)))


# Intents: (kind, pick). A kind is drawn by weight out of 200.
KIND_WEIGHTS = {
    "agent": 92,  # touch an uncovered agent on the judging side
    "clue": 36,  # a clue by a seat that may give one (in sudden death: arm a seat)
    "pass": 22,  # the guesser ends the turn
    "bystander": 26,  # touch a bystander on the judging side
    "random": 12,  # any event at all
    "undo": 7,
    "penalty": 4,
    "assassin": 1,
}
_KINDS = tuple(KIND_WEIGHTS)
_BOUNDS = [sum(list(KIND_WEIGHTS.values())[: i + 1]) for i in range(len(KIND_WEIGHTS))]
_JUDGED = {"agent": Key.AGENT, "bystander": Key.BYSTANDER, "assassin": Key.ASSASSIN}

intents = st.tuples(st.integers(0, _BOUNDS[-1] - 1), st.integers(0, 30))
# Short streams shrink well; long ones finish games.
streams = st.one_of(st.lists(intents, max_size=40), st.lists(intents, min_size=60, max_size=200))


def kind_of(k: int) -> str:
    return _KINDS[bisect.bisect_right(_BOUNDS, k)]


def choose(state: Duet, kind: str, pick: int) -> Event:
    """An event for `kind` from the public state (only to steer the stream; whether it
    is legal is for the model to say)."""
    if kind == "random":
        return ALL_EVENTS[pick % len(ALL_EVENTS)]
    if kind == "undo":
        return Undo()
    if kind == "penalty":
        return Penalty()
    seats = tuple(Seat)
    if kind == "clue":
        if state.phase is Phase.SUDDEN_DEATH:
            seats = tuple(s for s in Seat if state.can_guess(s)) or seats
        else:
            seats = state.may_give_clue() or seats
        return Clue(seats[pick % len(seats)])
    guesser = state.guesser
    if kind == "pass":
        return Pass(guesser or seats[pick % 2])
    if guesser is None:
        return Touch.at(pick % 25)
    judge = state.card.side(guesser.partner)
    cells = [
        i
        for i in CELLS
        if judge[i] is _JUDGED[kind] and i not in state.covered | state.misses(guesser)
    ] or list(CELLS)
    return Touch.at(cells[pick % len(cells)])


def play(game: Game, stream: list[tuple[int, int]]) -> None:
    for k, pick in stream:
        game.step(choose(game.state, kind_of(k), pick))
    for ending in game.endings:
        event(f"ending: {ending}")
    event(f"ends {game.state.status.value}")
    if game.saw_sudden_death:
        event("reached sudden death")
    target(float(game.state.agents_found), label="agents found")


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----- the properties -------------------------------------------------------------------


@SETTINGS
@given(cards, missions(), st.booleans(), streams)
def test_smart_streams_follow_the_rules_and_keep_every_invariant(card, mission, loose, stream):
    """Per event: the model agrees (accepted or refused, and the whole JSON view), the
    bank adds up to T, agents <= 15, won iff 15 agents, covers and misses are
    consistent, the score matches the rulebook, a refused event changes nothing,
    undo then the same event gives the same state, and a game that ends refuses all
    but Undo. At the end: replaying the log gives the same state."""
    game = Game(card, mission, loose)
    play(game, stream)
    game.check_replay()


@settings(max_examples=60, deadline=None)
@given(cards, missions(), st.booleans(), st.lists(st.sampled_from(ALL_EVENTS), max_size=120))
def test_fully_random_events_never_raise_and_keep_every_invariant(card, mission, loose, events):
    game = Game(card, mission, loose)
    for e in events:
        game.step(e)
    game.check_replay()


@settings(max_examples=30, deadline=None)
@given(cards, missions(max_turns=9), st.booleans(), st.lists(intents, min_size=40, max_size=120))
def test_replaying_the_log_gives_the_same_state_at_every_point(card, mission, loose, stream):
    """Duet.replay(card, mission, log) == state after every prefix of the stream."""
    state = Duet.start(card, mission, loose_order=loose)
    for k, pick in stream:
        state, _ = state.apply(choose(state, kind_of(k), pick))
        again = Duet.replay(card, mission, state.log, loose_order=loose)
        assert again == state
        assert state_json(again) == state_json(state)


@settings(max_examples=60, deadline=None)
@given(
    cards,
    missions(max_turns=9),
    st.booleans(),
    st.lists(intents, min_size=80, max_size=250),
    st.data(),
)
def test_a_finished_game_refuses_everything_but_undo(card, mission, loose, stream, data):
    """Play until the game ends, then throw random events at it: all refused with
    GAME_OVER and the state unchanged; one Undo returns to just before the end."""
    game = Game(card, mission, loose)
    ending_before = None
    for k, pick in stream:
        before = game.state
        game.step(choose(before, kind_of(k), pick))
        if game.state.phase is Phase.OVER:
            ending_before = before
            break
    if ending_before is None:
        event("stream ended before the game")
        return
    over = game.state
    for e in data.draw(st.lists(st.sampled_from(ALL_BUT_UNDO), min_size=1, max_size=20)):
        result = game.step(e)
        assert isinstance(result, Rejection) and result.reason is RejectReason.GAME_OVER
        assert game.state == over
    game.step(Undo())
    assert game.state == ending_before
    assert game.state.phase is not Phase.OVER


class DuetMachine(RuleBasedStateMachine):
    """The same checks (Game.step) driven by hypothesis' stateful engine."""

    game: Game | None = None

    @initialize(card=cards, mission=missions(max_turns=12), loose=st.booleans())
    def begin(self, card, mission, loose):
        self.game = Game(card, mission, loose)

    def intent(self, kind: str, pick: int) -> None:
        assert self.game is not None
        self.game.step(choose(self.game.state, kind, pick))

    @rule(cell=st.integers(0, 24))
    def touch(self, cell):
        self.intent("random", cell)

    @rule(e=st.sampled_from(ALL_EVENTS[25:]))
    def other(self, e):
        assert self.game is not None
        self.game.step(e)

    @rule(pick=st.integers(0, 30))
    def touch_agent(self, pick):
        self.intent("agent", pick)

    @rule(pick=st.integers(0, 30))
    def touch_agent_again(self, pick):  # a second rule: agents twice as often
        self.intent("agent", pick)

    @rule(pick=st.integers(0, 30))
    def touch_bystander(self, pick):
        self.intent("bystander", pick)

    @rule(pick=st.integers(0, 1))
    def give_clue(self, pick):
        self.intent("clue", pick)

    @rule(pick=st.integers(0, 1))
    def end_turn(self, pick):
        self.intent("pass", pick)

    @invariant()
    def still_consistent(self):
        if self.game is not None:
            check_invariants(self.game.state)
            assert state_json(self.game.state) == self.game.ref.view()

    def teardown(self):
        if self.game is not None:
            self.game.check_replay()


DuetMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=80, deadline=None)
TestDuetMachine = DuetMachine.TestCase


# ----- the streams exercise what they should ------------------------------------------------


def random_stream(rng: random.Random, n: int) -> list[tuple[int, int]]:
    return [(rng.randrange(_BOUNDS[-1]), rng.randrange(31)) for _ in range(n)]


def test_generated_games_reach_won_lost_and_sudden_death():
    """The smart streams, on the missions the tests draw, win, lose (each way) and reach
    sudden death often enough for the properties above to be exercised there."""
    rng = random.Random(20240601)
    endings: Counter[str] = Counter()
    sudden = 0
    games = 200
    for seed in range(games):
        turns = rng.choice([1, 2, 3, 4, 6, 7, 8, 9, 11, 15, 25])
        mission = Mission(turns, rng.randint(0, turns))
        game = Game(generate(seed), mission, rng.random() < 0.5)
        play_until_over(game, random_stream(rng, 200))
        endings[f"{game.state.status.value}/{game.state.reason and game.state.reason.value}"] += 1
        sudden += game.saw_sudden_death
    assert endings["won/None"] >= games // 5, endings
    for reason in ("assassin", "sudden_death", "out_of_time"):
        assert endings[f"lost/{reason}"] >= games // 20, endings
    assert sudden >= games // 8, (sudden, endings)


def play_until_over(game: Game, stream: list[tuple[int, int]]) -> None:
    for k, pick in stream:
        game.step(choose(game.state, kind_of(k), pick))
        if game.state.phase is Phase.OVER:
            return


@pytest.mark.parametrize("loose", [False, True])
def test_a_sudden_death_win_scores_passes_minus_one(loose):
    """A fixed game through sudden death to a win: the score is passes - 1 (docs/rules.md
    "Winning and the score")."""
    card = generate(7)
    a_agents = sorted(card.agents(Seat.A))  # A gives clues: B guesses these
    b_only = sorted(card.agents(Seat.B) - card.agents(Seat.A))
    game = Game(card, Mission(1, 0), loose)
    game.step(Clue(Seat.A))
    game.step(Touch.at(a_agents[0]))
    game.step(Pass(Seat.B))  # the only token: sudden death
    assert game.state.phase is Phase.SUDDEN_DEATH and game.state.passes == 1
    assert isinstance(game.step(Touch.at(a_agents[1])), Rejection)  # nobody armed yet
    game.step(Clue(Seat.B))  # B says "I am guessing"
    for cell in a_agents[1:]:
        assert isinstance(game.step(Touch.at(cell)), Outcome)
    for cell in b_only:  # only A has words left: no arming needed
        assert game.state.guesser is Seat.A
        assert isinstance(game.step(Touch.at(cell)), Outcome)
    assert game.state.status is Status.WON
    assert game.state.score == 1 - 1
    game.check_replay()


@pytest.mark.parametrize("ending", ["pass", "bystander"])
def test_a_penalty_that_empties_the_bank(ending):
    """docs/rules.md "The invalid-clue penalty": the penalty discards the only token and
    the guesser goes on; a pass or a bystander then needs one more token than the bank
    holds, and both "lose the game at once" ("The time bank": "If a turn causes you to
    use up more tokens than you have, you lose immediately")."""
    card = generate(11)
    game = Game(card, Mission(1, 1), False)
    game.step(Clue(Seat.A))
    assert isinstance(game.step(Penalty()), Outcome)
    assert game.state.turns_left == 0 and game.state.mistakes_left == 0
    assert isinstance(game.step(Penalty()), Rejection)  # one penalty per clue
    game.step(Touch.at(min(cells_of(card, Seat.A, Key.AGENT))))  # B guesses, A's side judges
    assert game.state.phase is Phase.GUESSING
    if ending == "pass":
        assert isinstance(game.step(Pass(Seat.B)), Outcome)
    else:
        game.step(Touch.at(min(cells_of(card, Seat.A, Key.BYSTANDER))))
    assert (game.state.status, game.state.reason) == (Status.LOST, Reason.OUT_OF_TIME)
    assert game.state.passes == 0 and game.state.mistake_tokens == 0
    game.check_replay()


def outcome_rank(state: Duet) -> int:
    """How well a game stands for the team: lost 0, in sudden death 1, in play 2, won 3."""
    if state.status is Status.LOST:
        return 0
    if state.status is Status.WON:
        return 3
    return 1 if state.phase is Phase.SUDDEN_DEATH else 2


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cards, missions(max_turns=9), st.booleans(), streams, st.integers(0, 10**6))
def test_a_penalty_never_leaves_the_team_better_off(card, mission, loose, stream, where):
    """The rulebook: the penalty is "a one-turn penalty" and then "the turn ends in the
    usual way". Take a random game, call one of its clues invalid, and replay the same
    touches, passes and clues: at the point where the game without the penalty was lost,
    the game with it is not still in play; and at no point does the penalised game stand
    better (won, or in play where the other is in sudden death) while the same events
    are judged the same way in both."""
    game = Game(card, mission, loose)
    for k, pick in stream:
        event_ = choose(game.state, kind_of(k), pick)
        if not isinstance(event_, (Penalty, Undo)):
            game.step(event_)
    events = [e for e in game.state.log if not isinstance(e, (Penalty, Undo))]
    clues = [i for i, e in enumerate(events) if isinstance(e, Clue)]
    if not clues:
        return
    at = clues[where % len(clues)] + 1
    with_penalty = [*events[:at], Penalty(), *events[at:]]
    plain = Duet.start(card, mission, loose_order=loose)
    penalised = Duet.start(card, mission, loose_order=loose)
    for e in with_penalty[:at]:
        plain, _ = plain.apply(e)
        penalised, _ = penalised.apply(e)
    if plain.phase is not Phase.GUESSING:
        return  # that clue was refused: nothing to penalise
    penalised, result = penalised.apply(Penalty())
    assert isinstance(result, Outcome)
    for e in events[at:]:
        plain, a = plain.apply(e)
        penalised, b = penalised.apply(e)
        assert outcome_rank(penalised) <= outcome_rank(plain), (e, plain.phase, penalised.phase)
        assert penalised.turns_left <= plain.turns_left or penalised.phase is Phase.OVER
        if plain.status is Status.LOST:
            assert penalised.status is not Status.PLAYING, (e, penalised.phase)
            event(f"without the penalty lost; with it {penalised.status.value}")
            break
        if (
            plain.phase is not penalised.phase
            or type(a) is not type(b)
            or (isinstance(a, Outcome) and isinstance(b, Outcome) and a.result is not b.result)
        ):
            break  # the games part ways: the same events no longer mean the same moves
