"""Property tests of the classic referee over random event streams on random cards.

Every expectation is derived from the German rulebook (classic-rules-de.txt) and the
decisions of docs/classic-rules.md, not from running the code: `Ref` below is an
independent reference model of the rules, and each event a stream feeds the referee
is also fed to the model; the two must agree on whether the event is accepted and on
every field of the JSON summary (docs/design.md "Contracts"). On top of the model
the file checks, after every single event, what the issue names: agents left add up,
the game ends exactly when a rule says so, replay equals state, undo then redo
equals state, and nothing raises but the documented errors (EventError for
malformed input; a refusal is a returned Rejection).

Streams are lists of "intents": a fully random event, or a "smart" one chosen from
the public state and the key (a touch of the team on turn's own word, a clue by the
team on turn, a penalty on the other team's word...), so games are won both ways
often; `test_generated_games_reach_every_ending` checks that they do.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from keystand.rules.classic import (
    Classic,
    Outcome,
    Phase,
    Rejection,
    RejectReason,
    Result,
    Status,
    summary,
)
from keystand.rules.classic_card import ClassicCard, Team
from keystand.rules.classic_code import CLASSIC_CARD_COUNT, rank, unrank
from keystand.rules.classic_events import (
    UNLIMITED,
    Clue,
    Event,
    Number,
    Pass,
    Penalty,
    Touch,
    Undo,
    parse_event,
)
from keystand.rules.errors import EventError

NUMBERS: tuple[Number, ...] = (None, UNLIMITED, *range(10))
ALL_EVENTS: tuple[Event, ...] = (
    *(Touch(r, c) for r in range(5) for c in range(5)),
    *(Penalty(r, c) for r in range(5) for c in range(5)),
    *(Clue(t, n) for t in Team for n in NUMBERS),
    *(Pass(t) for t in Team),
    Undo(),
)
OTHER = {"red": "blue", "blue": "red"}
LETTER = {"red": "R", "blue": "U"}

# ----- the reference model (the rulebook, written without looking at classic.py) --------


@dataclass(frozen=True)
class Ref:
    keys: str  # the card's 25 letters, R U . X
    team: str  # the team on turn, "red" or "blue"
    covered: frozenset[int] = frozenset()
    guessing: bool = False  # a clue was given and the turn is on
    limit: int | None = None  # guesses the clue allows: number + 1, None for no limit
    guesses: int = 0  # words touched on this clue
    winner: str | None = None
    reason: str | None = None

    @classmethod
    def start(cls, keys: str) -> Ref:
        # "beginnend mit dem Team, dessen Farbe die Dreiecke ... haben": the team with 9
        return cls(keys, "red" if keys.count("R") == 9 else "blue")

    def left(self, team: str) -> int:
        return sum(
            1 for i, k in enumerate(self.keys) if k == LETTER[team] and i not in self.covered
        )

    def view(self) -> dict[str, Any]:
        over = self.winner is not None
        return {
            "status": "over" if over else "playing",
            "winner": self.winner,
            "reason": self.reason,
            "phase": "over" if over else ("guessing" if self.guessing else "awaiting_clue"),
            "turn": None if over else self.team,
            "guesses_left": (
                None
                if over or not self.guessing or self.limit is None
                else self.limit - self.guesses
            ),
            "agents_left": {"red": self.left("red"), "blue": self.left("blue")},
            "covered": sorted(self.covered),
            "rejected": [],
        }

    def next_turn(self) -> Ref:
        return replace(self, team=OTHER[self.team], guessing=False, limit=None, guesses=0)

    def step(self, e: Event) -> tuple[Ref | None, RejectReason | None]:
        """(the model after `e`, None) if accepted; (None, reason) if refused. Not Undo."""
        if self.winner:
            return None, RejectReason.GAME_OVER
        if isinstance(e, Clue):
            if self.guessing:
                return None, RejectReason.TURN_IN_PROGRESS
            if e.team.value != self.team:
                return None, RejectReason.CLUE_OUT_OF_TURN
            n = e.number
            limit = n + 1 if isinstance(n, int) and n > 0 else None  # 0: "beliebig viele"
            return replace(self, guessing=True, limit=limit, guesses=0), None
        if isinstance(e, Pass):
            if not self.guessing:
                return None, RejectReason.PASS_NO_TURN
            if e.team.value != self.team:
                return None, RejectReason.PASS_OUT_OF_TURN
            if self.guesses == 0:
                return None, RejectReason.PASS_BEFORE_GUESS  # "auf jeden Fall 1 Rateversuch"
            return self.next_turn(), None
        cell = e.row * 5 + e.col
        if isinstance(e, Penalty):
            if not self.guessing:
                return None, RejectReason.PENALTY_NO_CLUE
            if self.guesses:
                return None, RejectReason.PENALTY_AFTER_GUESS
            if cell in self.covered:
                return None, RejectReason.COVERED
            if self.keys[cell] != LETTER[OTHER[self.team]]:
                return None, RejectReason.PENALTY_NOT_THEIR_WORD
            after = replace(self, covered=self.covered | {cell})
            if after.left(OTHER[self.team]) == 0:
                return replace(after, winner=OTHER[self.team], reason="all_found"), None
            return after.next_turn(), None
        assert isinstance(e, Touch)
        if not self.guessing:
            return None, RejectReason.NO_CLUE
        if cell in self.covered:
            return None, RejectReason.COVERED
        key = self.keys[cell]
        after = replace(self, covered=self.covered | {cell}, guesses=self.guesses + 1)
        if key == "X":
            return replace(after, winner=OTHER[self.team], reason="assassin"), None
        for team in ("red", "blue"):
            if key == LETTER[team] and after.left(team) == 0:
                return replace(after, winner=team, reason="all_found"), None
        if key != LETTER[self.team]:
            return after.next_turn(), None  # a bystander or the other team's word
        if after.limit is not None and after.guesses == after.limit:
            return after.next_turn(), None  # the plus-one rule used up
        return after, None


# ----- invariants -----------------------------------------------------------------------


def check_invariants(state: Classic) -> None:
    card = state.card
    starting = card.starting
    totals = {starting: 9, starting.other: 8}
    for team in Team:
        # agents left add up: each team's agents are either covered or left
        assert state.agents_left(team) + len(card.agents(team) & state.covered) == totals[team]
        assert 0 <= state.agents_left(team) <= totals[team]
    assert state.covered <= frozenset(range(25))
    # the game ends exactly when a rule says so: a team's last agent is covered,
    # or the assassin was touched
    finished = [t for t in Team if state.agents_left(t) == 0]
    assassin = card.assassin in state.covered
    assert len(finished) + assassin <= 1
    over = bool(finished) or assassin
    assert (state.status is Status.OVER) == over == (state.phase is Phase.OVER)
    assert (state.winner is not None) == over == (state.reason is not None)
    if finished:
        assert state.winner is finished[0] and state.reason.value == "all_found"
    if assassin:
        # the team on turn touched it, and lost
        assert state.winner is state.team.other and state.reason.value == "assassin"
    # the turn and the guesses
    if over:
        assert state.turn is None and state.guesses_left is None
    else:
        assert state.turn is state.team
    if state.phase is Phase.AWAITING_CLUE:
        assert state.clue is None and state.guesses == 0 and state.guesses_left is None
    if state.phase is Phase.GUESSING:
        assert state.clue is not None and state.clue.team is state.team
        left = state.guesses_left
        assert left is None or 1 <= left <= 10
    assert summary(state)["agents_left"] == {t.value: state.agents_left(t) for t in Team}


def check_step(before: Classic, e: Event, after: Classic, outcome: Outcome) -> None:
    """An accepted event other than Undo only moves the game forward, and its outcome
    tells the public facts of that step."""
    assert before.status is Status.PLAYING
    assert after.card == before.card
    assert after.covered >= before.covered
    new = after.covered - before.covered
    if isinstance(e, Touch | Penalty):
        assert new == {e.cell} and outcome.cell == e.cell
        assert outcome.key is after.card.key(e.cell)
    else:
        assert not new and outcome.cell is None
    assert outcome.turn_over == (after.team is not before.team or after.phase is Phase.OVER)
    assert outcome.winner is after.winner
    if after.phase is Phase.OVER:
        assert isinstance(e, Touch | Penalty)  # only a covered word ends a game
    if isinstance(e, Touch):
        kind = {
            "R": Result.OWN_AGENT if before.team is Team.RED else Result.OTHER_AGENT,
            "U": Result.OWN_AGENT if before.team is Team.BLUE else Result.OTHER_AGENT,
            ".": Result.BYSTANDER,
            "X": Result.ASSASSIN,
        }[after.card.key(e.cell).value]
        assert outcome.result is kind


# ----- the harness: the referee and the model side by side ----------------------------------


class Game:
    def __init__(self, card: ClassicCard) -> None:
        self.state = Classic.start(card)
        self.ref = Ref.start("".join(k.value for k in card.keys))
        self.undo_stack: list[tuple[Classic, Ref]] = []
        self.accepted: list[Event] = []
        self.endings: set[tuple[str, str, str]] = set()  # (winner, reason, event kind)
        check_invariants(self.state)
        assert summary(self.state) == self.ref.view()

    def step(self, e: Event) -> Outcome | Rejection:
        before = self.state
        after, result = before.apply(e)  # nothing raises
        assert after.log == (*before.log, e)
        assert after.last == result and result.event == e
        if isinstance(e, Undo):
            if self.undo_stack:
                want, self.ref = self.undo_stack.pop()
                assert after == want and summary(after) == summary(want)
                assert isinstance(result, Outcome) and result.result is Result.UNDO
            else:
                assert isinstance(result, Rejection)
                assert result.reason is RejectReason.NOTHING_TO_UNDO
        else:
            ref, reason = self.ref.step(e)
            if ref is None:
                assert isinstance(result, Rejection), f"{e} accepted, the rulebook refuses it"
                assert result.reason is reason
                assert after == before and after.previous is before.previous
            else:
                assert isinstance(result, Outcome), f"{e} refused ({result}), the rules allow it"
                check_step(before, e, after, result)
                self.check_undo_then_redo(before, e, after, result)
                self.undo_stack.append((before, self.ref))
                self.ref = ref
        if isinstance(result, Outcome):
            self.accepted.append(e)
        assert summary(after) == self.ref.view()
        check_invariants(after)
        if after.phase is Phase.OVER and before.phase is not Phase.OVER:
            self.check_finished(before, after)
            assert after.winner and after.reason
            self.endings.add((after.winner.value, after.reason.value, type(e).__name__))
        self.state = after
        return result

    @staticmethod
    def check_undo_then_redo(before: Classic, e: Event, after: Classic, outcome: Outcome) -> None:
        undone, result = after.apply(Undo())
        assert isinstance(result, Outcome) and result.undone == e
        assert undone == before and summary(undone) == summary(before)
        redone, again = undone.apply(e)
        assert again == outcome
        assert redone == after and summary(redone) == summary(after)

    @staticmethod
    def check_finished(before: Classic, over: Classic) -> None:
        """A finished game refuses everything but Undo, which reopens it."""
        for e in ALL_EVENTS:
            after, result = over.apply(e)
            if isinstance(e, Undo):
                assert isinstance(result, Outcome) and after == before
            else:
                assert isinstance(result, Rejection) and result.reason is RejectReason.GAME_OVER
                assert after == over

    def check_replay(self) -> None:
        state = self.state
        for events in (state.log, self.accepted):  # refused events change nothing
            again = Classic.replay(state.card, events)
            assert again == state and summary(again) == summary(state)
            assert again.log == tuple(events)
        # and the replayed game goes on the same way, undo included
        again = Classic.replay(state.card, state.log)
        for e in ALL_EVENTS:
            assert again.apply(e)[0] == state.apply(e)[0]


# ----- intents: events chosen from the state -----------------------------------------------

KINDS = (
    ("own", 50),  # touch a word of the team on turn
    ("clue", 25),  # a clue by the team on turn, any number
    ("pass", 10),  # the team on turn ends its turn
    ("other", 12),  # touch the other team's word
    ("bystander", 10),
    ("penalty", 5),  # the other team's spymaster covers one of its words
    ("assassin", 2),
    ("random", 10),  # any event at all
    ("undo", 6),
)
_KIND_TABLE = [k for k, w in KINDS for _ in range(w)]


def intent(state: Classic, kind: str, pick: int) -> Event:
    team = state.team
    free = [i for i in range(25) if i not in state.covered]
    letter = {
        "own": team.key.value,
        "other": team.other.key.value,
        "penalty": team.other.key.value,
        "bystander": ".",
        "assassin": "X",
    }
    if kind in letter:
        cells = [i for i in free if state.card.key(i).value == letter[kind]] or free or [0]
        cell = cells[pick % len(cells)]
        return (Penalty if kind == "penalty" else Touch)(cell // 5, cell % 5)
    if kind == "clue":
        return Clue(team, NUMBERS[pick % len(NUMBERS)])
    if kind == "pass":
        return Pass(team)
    if kind == "undo":
        return Undo()
    return ALL_EVENTS[pick % len(ALL_EVENTS)]


cards = st.integers(0, CLASSIC_CARD_COUNT - 1).map(unrank)
intents = st.lists(
    st.tuples(st.sampled_from(_KIND_TABLE), st.integers(0, 10_000)), min_size=1, max_size=120
)


def run(card: ClassicCard, stream: list[tuple[str, int]]) -> Game:
    game = Game(card)
    for kind, pick in stream:
        game.step(intent(game.state, kind, pick))
    game.check_replay()
    return game


@settings(max_examples=300, deadline=None)
@given(card=cards, stream=intents)
def test_random_games_follow_the_rules(card: ClassicCard, stream: list[tuple[str, int]]) -> None:
    run(card, stream)


@settings(max_examples=100, deadline=None)
@given(card=cards, picks=st.lists(st.integers(0, len(ALL_EVENTS) - 1), max_size=80))
def test_fully_random_events_follow_the_rules(card: ClassicCard, picks: list[int]) -> None:
    game = Game(card)
    for p in picks:
        game.step(ALL_EVENTS[p])
    game.check_replay()


def test_generated_games_reach_every_ending() -> None:
    """The streams above are worth something only if they finish games every way."""
    rng = random.Random(15)
    endings: set[tuple[str, str, str]] = set()
    for _ in range(400):
        card = unrank(rng.randrange(CLASSIC_CARD_COUNT))
        game = run(card, [(rng.choice(_KIND_TABLE), rng.randrange(10_000)) for _ in range(80)])
        endings |= game.endings
    for team in ("red", "blue"):
        assert (team, "assassin", "Touch") in endings
        assert (team, "all_found", "Touch") in endings
        assert (team, "all_found", "Penalty") in endings


@given(r=st.integers(0, CLASSIC_CARD_COUNT - 1))
def test_rank_and_unrank_are_inverse(r: int) -> None:
    card = unrank(r)
    assert rank(card) == r
    assert ClassicCard.from_code(card.code) == card
    assert ClassicCard.parse(card.text) == card


@given(text=st.text(max_size=40))
def test_any_text_is_an_event_or_an_event_error(text: str) -> None:
    """Nothing raises from the event text but EventError (a ValueError naming what)."""
    try:
        event = parse_event(text)
    except EventError as e:
        assert str(e)
        return
    assert parse_event(str(event)) == event


@given(
    text=st.lists(
        st.sampled_from(["clue", "touch", "pass", "penalty", "undo", "red", "blue", "unlimited"])
        | st.integers(-3, 12).map(str),
        max_size=4,
    ).map(" ".join)
)
def test_near_miss_text_is_an_event_or_an_event_error(text: str) -> None:
    try:
        event = parse_event(text)
    except EventError as e:
        assert str(e)
        return
    assert parse_event(str(event)) == event
    # a parsed event is accepted or refused by any game, never raises
    state = Classic.start(unrank(0))
    state.apply(event)
