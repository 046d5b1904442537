"""The rules core (keystand.rules.core): the step, undo, the event chain and refusals,
shared by every game.

A counting game defined here (add 1..3 to a total that may not pass 10) checks the
core on its own, as a third game would use it; then the same checks walk Duet and
classic through seeded random events, so both games are seen to take the core's
behaviour, not copies of it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import pytest

from keystand import games
from keystand.rules import Clue, Pass, Penalty, Seat, Touch, classic_code, classic_events, generate
from keystand.rules import classic as classic_rules
from keystand.rules.core import (
    BaseRejection,
    BaseRejectReason,
    Chain,
    Referee,
    RejectedEvent,
    Undo,
)
from keystand.rules.duet import Duet
from keystand.rules.duet import RejectReason as DuetReason

# ----- a game of the core's own, as small as a game can be --------------------------------


@dataclass(frozen=True)
class Add:
    n: int


Event = Add | Undo


class Why(BaseRejectReason):
    TOO_MUCH = "too_much", "the total may not pass 10"
    NOTHING_TO_UNDO = "nothing_to_undo", "nothing to undo"


@dataclass(frozen=True)
class Refused(BaseRejection):
    event: Event
    reason: Why


@dataclass(frozen=True)
class Added:
    event: Event
    total: int
    undone: Event | None = None


@dataclass(frozen=True)
class Count(Referee[Event, Added, Refused]):
    total: int

    def _step(self, event: Event) -> tuple[Count, Added] | Refused:
        if not isinstance(event, Add):
            raise TypeError(f"not a counting event: {event!r}")
        if self.total + event.n > 10:
            return Refused(event, Why.TOO_MUCH)
        state = replace(self, total=self.total + event.n)
        return state, Added(event, state.total)

    def _undo_outcome(self, event: Undo) -> Added:
        return Added(event, -1, undone=self.made_by)

    def _nothing_to_undo(self, event: Undo) -> Refused:
        return Refused(event, Why.NOTHING_TO_UNDO)


def test_an_accepted_event_records_what_it_did_and_where_it_came_from():
    start = Count(0)
    after, outcome = start.apply(Add(3))
    assert outcome == Added(Add(3), 3)
    assert after.total == 3 and after.last == outcome and after.outcome == outcome
    assert after.previous is start and after.made_by == Add(3)
    assert after.log == (Add(3),) and after.events_applied == 1
    assert start.total == 0 and start.log == ()  # the state before is untouched


def test_a_refusal_leaves_the_game_as_it_was():
    before, _ = Count(0).apply(Add(3))
    before, _ = before.apply(Add(3))
    after, result = before.apply(Add(5))
    assert result == Refused(Add(5), Why.TOO_MUCH)
    assert after == before and after.total == 6
    assert after.previous is before.previous and after.made_by == before.made_by
    # `last` says what just happened; `outcome` keeps the last thing that changed the game.
    assert after.last is result and after.outcome is before.outcome
    assert after.log == (Add(3), Add(3), Add(5))  # refused events stay in the log


def test_undo_walks_the_chain_back_to_the_start_then_refuses():
    states = [Count(0)]
    for n in (1, 2, 3):
        state, _ = states[-1].apply(Add(n))
        states.append(state)
    state = states[-1]
    for back, made_by in zip(reversed(states[:-1]), (Add(3), Add(2), Add(1)), strict=True):
        state, outcome = state.apply(Undo())
        assert outcome == Added(Undo(), -1, undone=made_by)
        assert state == back and state.previous is back.previous
        assert state.outcome is outcome
    state, refusal = state.apply(Undo())
    assert refusal == Refused(Undo(), Why.NOTHING_TO_UNDO)
    assert state == Count(0) and state.previous is None
    assert state.events_applied == 7  # three adds, three undos, the refused undo


def test_undo_skips_refusals_and_takes_back_the_last_accepted_event():
    one, _ = Count(0).apply(Add(2))
    two, _ = one.apply(Add(3))
    refused, _ = two.apply(Add(9))
    back, outcome = refused.apply(Undo())
    assert isinstance(outcome, Added) and outcome.undone == Add(3)
    assert back == one and back.previous is one.previous


def test_the_chain_is_shared_between_states_not_copied():
    state = Count(0)
    for i in range(200):
        before = state
        state, _ = state.apply(Add(1) if i % 3 else Add(3))
        assert state.chain is not None and state.chain.parent is before.chain
        assert state.chain.length == i + 1
    # Two games branching from one state share its whole history.
    left, _ = state.apply(Undo())
    right, _ = state.apply(Add(1))
    assert left.chain is not None and right.chain is not None
    assert left.chain.parent is right.chain.parent is state.chain


def test_chain_lists_its_events_oldest_first():
    chain = Chain("c", Chain("b", Chain("a", None, 1), 2), 3)
    assert chain.events() == ("a", "b", "c")


def test_apply_all_is_the_steps_one_by_one():
    events: list[Event] = [Add(4), Add(9), Undo(), Add(2), Undo(), Undo(), Add(1)]
    stepped = Count(0)
    for event in events:
        stepped, _ = stepped.apply(event)
    replayed = Count(0).apply_all(events)
    assert replayed == stepped and replayed.log == tuple(events)
    assert replayed.last == stepped.last and replayed.outcome == stepped.outcome


def test_play_raises_the_refusal_with_the_refused_value():
    state = Count(0).apply_all([Add(3), Add(3), Add(3)])
    with pytest.raises(RejectedEvent) as info:
        state.play(Add(2))
    assert info.value.rejection == Refused(Add(2), Why.TOO_MUCH)
    assert str(info.value) == "Add(n=2): the total may not pass 10"
    assert isinstance(info.value, ValueError)  # the builtin it fits, as the other leaves
    _, outcome = state.play(Add(1))
    assert outcome == Added(Add(1), 10)


def test_a_value_that_is_no_event_is_malformed_not_refused():
    with pytest.raises(TypeError, match="not a counting event"):
        Count(0).apply("add 1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a Duet event"):
        Duet.start(generate(seed=1)).apply("touch 0 0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a classic event"):
        classic_rules.Classic.start(classic_code.generate(random.Random(1))).apply("undo")  # type: ignore[arg-type]


def test_a_reason_is_its_stable_code_with_a_message():
    assert Why.TOO_MUCH.value == "too_much" and Why("too_much") is Why.TOO_MUCH
    assert Why.TOO_MUCH.message == "the total may not pass 10"
    refusal = Refused(Add(5), Why.TOO_MUCH)
    assert (refusal.code, refusal.message) == ("too_much", "the total may not pass 10")


@pytest.mark.parametrize("reasons", [Why, DuetReason, classic_rules.RejectReason])
def test_every_game_reason_has_a_unique_code_and_a_message(reasons):
    assert issubclass(reasons, BaseRejectReason)
    codes = [r.value for r in reasons]
    assert len(codes) == len(set(codes))
    assert all(isinstance(r.value, str) and r.message for r in reasons)
    assert reasons.NOTHING_TO_UNDO.value == "nothing_to_undo"


# ----- Duet and classic take the core's behaviour ------------------------------------------


def duet_start(rng: random.Random) -> Duet:
    return Duet.start(generate(seed=rng.randrange(1000)))


def duet_event(rng: random.Random) -> object:
    seat = rng.choice(list(Seat))
    return rng.choice(
        [Touch.at(rng.randrange(25)), Clue(seat), Clue(seat), Pass(seat), Penalty(), Undo()]
    )


def classic_start(rng: random.Random) -> classic_rules.Classic:
    return classic_rules.Classic.start(classic_code.generate(rng))


def classic_event(rng: random.Random) -> object:
    team = rng.choice(list(classic_rules.Team))
    number = rng.choice([None, 0, 1, 2, classic_events.UNLIMITED])
    return rng.choice(
        [
            Touch.at(rng.randrange(25)),
            classic_events.Clue(team, number),
            classic_events.Pass(team),
            classic_events.Penalty(*divmod(rng.randrange(25), 5)),
            classic_events.Timeout(team),
            Undo(),
        ]
    )


GAMES: Sequence[
    tuple[str, Callable[[random.Random], Referee], Callable[[random.Random], object]]
] = [
    ("duet", duet_start, duet_event),
    ("classic", classic_start, classic_event),
]


@pytest.mark.parametrize(("name", "start", "event"), GAMES, ids=[g[0] for g in GAMES])
@pytest.mark.parametrize("seed", range(6))
def test_each_game_steps_refuses_and_undoes_through_the_core(name, start, event, seed):
    rng = random.Random(seed)
    state = start(rng)
    assert isinstance(state, Referee)
    accepted = [state]  # the states undo must come back to, newest last
    for _ in range(150):
        before = state
        e = event(rng)
        state, result = state.apply(e)
        assert state.chain is not None and state.chain.parent is before.chain
        assert state.last is result
        if games.refused(result):
            assert isinstance(result, BaseRejection) and result.event == e
            assert state == before and state.previous is before.previous
            assert state.outcome is before.outcome
        elif isinstance(e, Undo):
            accepted.pop()
            assert state == accepted[-1] and state.previous is accepted[-1].previous
            assert result.undone == before.made_by
        else:
            assert state.previous is before and state.made_by == e
            accepted.append(state)
    # Undo all the way back: every accepted state in turn, then the start, then refused.
    while len(accepted) > 1:
        accepted.pop()
        state, result = state.apply(Undo())
        assert not games.refused(result) and state == accepted[-1]
    state, result = state.apply(Undo())
    assert games.refused(result) and result.code == "nothing_to_undo"
    assert state == accepted[0] and state.previous is None


def test_games_refused_knows_every_games_refusal_and_nothing_else():
    duet, duet_refusal = Duet.start(generate(seed=1)).apply(Undo())
    classic = classic_rules.Classic.start(classic_code.generate(random.Random(1)))
    _, classic_refusal = classic.apply(Undo())
    assert games.refused(duet_refusal) and games.refused(classic_refusal)
    assert games.refused(Refused(Add(1), Why.TOO_MUCH))  # a game games/ has never heard of
    _, accepted = duet.apply(Clue(Seat.A))
    assert not games.refused(accepted) and not games.refused(None)
    # One shape, each game its own type: the same code from two games is two refusals.
    assert duet_refusal.code == classic_refusal.code == "nothing_to_undo"
    assert duet_refusal != classic_refusal
