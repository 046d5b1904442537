"""The Duet referee: one immutable game state and the pure step `apply(state, event)`.

Every rule here is docs/rules.md "A turn", "The time bank", "Sudden death" and
"Winning and the score", which condense the rulebook (duet-rules-en.txt);
comments quote the rulebook where a choice is made. A game is its card, its
mission and its event list: `Duet.replay` rebuilds any state from those, and
undo is an event that returns to the state before the last accepted one.

Seats: the seat that gives the clue is the giver; its partner guesses, and a
touched word is judged by the giver's side only.

Rules version 2 (new games) reads the table as the cardboard does (docs/rules.md
"What the table says without a key"): once the next giver is known, the
guesser's first touch is that giver's clue and its first guess; a word the last
turn ended on waits for the giver's timer token and starts no turn; a turn whose
guesser has nothing left to find ends as a pass. A game journaled under version
1 replays by version 1 (`rules_version`), so a game in play survives an update.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace
from types import MappingProxyType

from .card import AGENTS_TO_FIND, Card, Key, Seat
from .core import BaseRejection, BaseRejectReason, Referee
from .events import Clue, Event, Pass, Penalty, Touch
from .mission import STANDARD, Mission

# The rules new games are played and journaled under; bump when a change would
# replay an old event list to a different state (the journal's start record names
# it, and an older game replays by its own: see `Duet.rules_version`).
RULES_VERSION = 2
# Version 2 reads the table: the guesser's first touch gives the known giver's clue,
# the word the last turn missed waits for its token, no words left ends the turn.
READS_TABLE = 2


class Status(enum.Enum):
    PLAYING = "playing"
    WON = "won"
    LOST = "lost"


class Reason(enum.Enum):
    """Why a game was lost."""

    ASSASSIN = "assassin"
    SUDDEN_DEATH = "sudden_death"  # a bystander touched in sudden death
    OUT_OF_TIME = "out_of_time"  # a mistake cost more tokens than the bank held


class Phase(enum.Enum):
    AWAITING_CLUE = "awaiting_clue"
    GUESSING = "guessing"
    SUDDEN_DEATH = "sudden_death"
    OVER = "over"


class RejectReason(BaseRejectReason):
    """Why the rules refused a well-formed input: `NAME = code, message`. The code is
    the stable value other tools see (`keystand play --json`); the message is for people."""

    GAME_OVER = "game_over", "the game is over"
    NO_CLUE = "no_clue", "no clue has been given for this turn yet"
    COVERED = "covered", "that word is already covered"
    ALREADY_MISSED = "already_missed", "this guesser already missed that word"
    NOT_ARMED = "not_armed", "sudden death: a seat must press its clue key before guessing"
    PASS_BEFORE_GUESS = "pass_before_guess", "a turn can end only after at least one correct guess"
    PASS_BY_GIVER = "pass_by_giver", "only the guesser can end the turn"
    PASS_NO_TURN = "pass_no_turn", "no turn to end: no clue has been given"
    PASS_IN_SUDDEN_DEATH = "pass_in_sudden_death", "no passing in sudden death"
    TURN_IN_PROGRESS = "turn_in_progress", "a turn is in progress: the guesser must finish it first"
    CLUE_OUT_OF_TURN = (
        "clue_out_of_turn",
        "clues alternate: it is the other seat's turn to give one",
    )
    FIRST_CLUE_A = "first_clue_a", "the group chose seat A to give the first clue"
    FIRST_CLUE_B = "first_clue_b", "the group chose seat B to give the first clue"
    THIRD_CLUE_IN_ROW = "third_clue_in_row", "no seat may give three clues in a row"
    PARTNER_HAS_NOTHING_LEFT = (
        "partner_has_nothing_left",
        "your partner has nothing left to guess: your partner gives the clues now",
    )
    NOTHING_LEFT_TO_GUESS = "nothing_left_to_guess", "that seat has nothing left to guess"
    NOTHING_TO_UNDO = "nothing_to_undo", "nothing to undo"
    PENALTY_NO_CLUE = "penalty_no_clue", "no clue to penalise: a penalty follows a clue"
    PENALTY_TWICE = "penalty_twice", "this clue has already been penalised"


@dataclass(frozen=True)
class Rejection(BaseRejection):
    """An input the rules refused, and why. The state does not change."""

    event: Event
    reason: RejectReason


class Result(enum.Enum):
    """What an accepted event did."""

    CLUE = "clue"
    ARMED = "armed"  # sudden death: a seat said it is guessing
    AGENT = "agent"
    BYSTANDER = "bystander"
    ASSASSIN = "assassin"
    PASS = "pass"
    PENALTY = "penalty"
    UNDO = "undo"


@dataclass(frozen=True)
class Outcome:
    """What an accepted event did: public facts only (covers and tokens are on the table).

    `announced` lists the seats whose own agents became all covered with this
    event: each must tell its partner "nothing left for you to guess", the one
    fact about a side the rules let reach the other seat. An agent found that
    leaves its guesser nothing to find ends the turn as a pass would (`turn_over`,
    one token taken) under rules version 2.
    """

    event: Event
    result: Result
    cell: int | None = None
    guesser: Seat | None = None
    tokens: int = 0
    turn_over: bool = False
    announced: tuple[Seat, ...] = ()
    undone: Event | None = None


@dataclass(frozen=True)
class Duet(Referee[Event, Outcome, Rejection]):
    """One moment of a Duet game. Build with `Duet.start` or `Duet.replay`.

    Fields compared for equality are the game; `last`, `log` and `previous`
    are how it got here (undo then the same event again compares equal).
    """

    card: Card
    mission: Mission
    loose_order: bool
    first: Seat | None  # the seat the group chose to give the first clue (None: either)
    status: Status
    reason: Reason | None
    phase: Phase
    giver: Seat | None  # the current turn's clue giver, while guessing
    givers: tuple[Seat, ...]  # who gave each clue so far, oldest first
    bank_check: int  # tokens check side up in the time bank
    bank_bystander: int  # tokens bystander side up in the time bank (mistakes left)
    agents: frozenset[int]  # cells covered by agent cards
    misses_a: frozenset[int]  # cells seat A guessed and B's side judged a bystander
    misses_b: frozenset[int]
    passes: int  # tokens guessers took to end a turn after a correct guess
    mistake_tokens: int  # tokens spent marking bystanders (two for a mistake past M)
    discarded: int  # tokens discarded for invalid clues
    correct_this_turn: int
    penalised: bool  # the current clue was called invalid
    armed: Seat | None  # sudden death: the seat that said it is guessing
    sudden_death: bool  # the game reached sudden death
    # The word whose miss ended the last turn, until the next clue: its timer token
    # is placed after the turn, and the hand placing it is no guess (None: the last
    # turn ended otherwise, or a clue came since).
    token_due: int | None = None
    # The rules this game is played by (a game journaled under version 1 replays by it).
    rules_version: int = RULES_VERSION

    # ----- construction -------------------------------------------------------------

    @classmethod
    def start(
        cls,
        card: Card,
        mission: Mission = STANDARD,
        *,
        loose_order: bool = False,
        first: Seat | None = None,
        rules_version: int = RULES_VERSION,
    ) -> Duet:
        if not 1 <= rules_version <= RULES_VERSION:
            raise ValueError(f"Duet rules version {rules_version!r}: expected 1..{RULES_VERSION}")
        return cls(
            card=card,
            mission=mission,
            loose_order=loose_order,
            first=first,
            status=Status.PLAYING,
            reason=None,
            phase=Phase.AWAITING_CLUE,
            giver=None,
            givers=(),
            bank_check=mission.turns - mission.mistakes,
            bank_bystander=mission.mistakes,
            agents=frozenset(),
            misses_a=frozenset(),
            misses_b=frozenset(),
            passes=0,
            mistake_tokens=0,
            discarded=0,
            correct_this_turn=0,
            penalised=False,
            armed=None,
            sudden_death=False,
            rules_version=rules_version,
        )

    @classmethod
    def replay(
        cls,
        card: Card,
        mission: Mission = STANDARD,
        events: Iterable[Event] = (),
        *,
        loose_order: bool = False,
        first: Seat | None = None,
        rules_version: int = RULES_VERSION,
    ) -> Duet:
        start = cls.start(
            card, mission, loose_order=loose_order, first=first, rules_version=rules_version
        )
        return start.apply_all(events)

    def __repr__(self) -> str:
        first = f", first={self.first!r}" if self.first else ""
        old = f", rules_version={self.rules_version}" if self.rules_version != RULES_VERSION else ""
        return (
            f"Duet.replay({self.card!r}, {self.mission!r}, {list(self.log)!r}, "
            f"loose_order={self.loose_order!r}{first}{old})"
        )

    # ----- what anyone at the table can see ------------------------------------------

    @property
    def turns_left(self) -> int:
        return self.bank_check + self.bank_bystander

    @property
    def mistakes_left(self) -> int:
        return self.bank_bystander

    @property
    def tokens_spent(self) -> int:
        return self.passes + self.mistake_tokens + self.discarded

    @property
    def turns_used(self) -> int:
        """Timer tokens the game used, as the rulebook counts them: a won game also
        used one on its last, victorious turn ("do not forget that you also used a
        token on the last, victorious turn"), unless it was won in sudden death."""
        winning_turn = self.status is Status.WON and not self.sudden_death
        return self.tokens_spent + (1 if winning_turn else 0)

    @property
    def agents_found(self) -> int:
        return len(self.agents)

    def misses(self, seat: Seat) -> frozenset[int]:
        """Cells `seat` guessed that its partner's side judged a bystander."""
        return self.misses_a if seat is Seat.A else self.misses_b

    @property
    def covered(self) -> frozenset[int]:
        """Cells nobody may guess again: an agent card on them, or missed by both seats."""
        return self.agents | (self.misses_a & self.misses_b)

    @property
    def turn_marks(self) -> frozenset[int]:
        """The words this turn's touches left for the clue giver's hand, since the
        turn's clue (and, once it has ended, until the next): an agent card on each
        word found, a timer token on the word missed. A touch on one of them then is
        that hand, not a guess: the stand shows no refusal of it."""
        marks: set[int] = set()
        state = self
        while state.previous is not None:
            before = state.previous
            marks |= state.agents - before.agents
            marks |= (state.misses_a - before.misses_a) | (state.misses_b - before.misses_b)
            if len(state.givers) > len(before.givers):
                break  # the turn's clue: given with its key, or by the first touch
            state = before
        return frozenset(marks)

    def nothing_left_to_guess(self, seat: Seat) -> bool:
        """True when every agent on the partner's side is covered (the partner says so)."""
        return self.card.agents(seat.partner) <= self.agents

    @property
    def clue_giver(self) -> Seat | None:
        """The seat giving the clue now, or the only seat that may give the next one."""
        if self.phase is Phase.GUESSING:
            return self.giver
        if self.phase is Phase.AWAITING_CLUE:
            allowed = self.may_give_clue()
            return allowed[0] if len(allowed) == 1 else None
        return None

    @property
    def guesser(self) -> Seat | None:
        """The seat whose touch counts now (or next, once the clue is given)."""
        if self.phase is Phase.SUDDEN_DEATH:
            return self._sudden_death_guesser()
        giver = self.clue_giver
        return giver.partner if giver else None

    def may_give_clue(self) -> tuple[Seat, ...]:
        """The seats that may give the next clue (empty unless awaiting a clue)."""
        if self.phase is not Phase.AWAITING_CLUE:
            return ()
        return tuple(s for s in Seat if self._clue_refusal(s) is None)

    def can_guess(self, seat: Seat) -> bool:
        """In sudden death: whether `seat` still has words to guess."""
        return not self.nothing_left_to_guess(seat)

    @property
    def score(self) -> int | None:
        """The rulebook's score of a won game ("Scoring a 9-token mission"), else None."""
        if self.status is not Status.WON:
            return None
        # "3 points for each timer token left in the time bank. (But do not forget
        # that you also used a token on the last, victorious turn)."
        bank = 0 if self.sudden_death else 3 * max(0, self.turns_left - 1)
        return bank + self.passes - (1 if self.sudden_death else 0)

    # ----- the step ------------------------------------------------------------------

    # The stand's own addition: players take back a stray touch (both seats agree,
    # in the service). Undo also reopens a game a stray touch ended.
    # (the core's undo: `OUTCOME` with `UNDONE`, and `NOTHING_TO_UNDO`)

    def _clue_refusal(self, seat: Seat) -> RejectReason | None:
        if self.nothing_left_to_guess(seat.partner):
            # "If all 9 words that you see as green have been covered ... Your
            # partner will be the one who gives clues on all remaining turns."
            return RejectReason.PARTNER_HAS_NOTHING_LEFT
        if self.nothing_left_to_guess(seat):
            return None  # the partner has no words left to give clues for
        if not self.givers and self.first is not None and seat is not self.first:
            # "Either player may give the first clue": unless the group chose.
            return RejectReason.FIRST_CLUE_A if self.first is Seat.A else RejectReason.FIRST_CLUE_B
        if not self.loose_order:
            if self.givers and self.givers[-1] is seat:
                return RejectReason.CLUE_OUT_OF_TURN
        elif self.givers[-2:] == (seat, seat):
            # "You can allow a player to give two clues in a row ... But then the
            # other player should give a clue."
            return RejectReason.THIRD_CLUE_IN_ROW
        return None

    def _clue(self, event: Clue) -> tuple[Duet, Outcome] | RejectReason:
        seat = event.seat
        if self.phase is Phase.SUDDEN_DEATH:
            # No clues in sudden death; the clue key means "I am guessing".
            if not self.can_guess(seat):
                return RejectReason.NOTHING_LEFT_TO_GUESS
            return replace(self, armed=seat), Outcome(event, Result.ARMED, guesser=seat)
        if self.phase is Phase.GUESSING:
            return RejectReason.TURN_IN_PROGRESS
        refusal = self._clue_refusal(seat)
        if refusal:
            return refusal
        state = replace(
            self,
            phase=Phase.GUESSING,
            giver=seat,
            givers=(*self.givers, seat),
            correct_this_turn=0,
            penalised=False,
            token_due=None,
        )
        return state, Outcome(event, Result.CLUE, guesser=seat.partner)

    def _sudden_death_guesser(self) -> Seat | None:
        able = [s for s in Seat if self.can_guess(s)]
        if len(able) == 1:
            return able[0]
        return self.armed if self.armed in able else None

    def _touch(self, event: Touch) -> tuple[Duet, Outcome] | RejectReason:
        if self.phase is Phase.AWAITING_CLUE:
            return self._first_touch(event)
        if self.phase is Phase.SUDDEN_DEATH:
            guesser = self._sudden_death_guesser()
            if guesser is None:
                return RejectReason.NOT_ARMED
        else:
            assert self.giver is not None
            guesser = self.giver.partner
        cell = event.cell
        if cell in self.covered:
            return RejectReason.COVERED
        if cell in self.misses(guesser):
            # The same side would judge it again: still a bystander.
            return RejectReason.ALREADY_MISSED
        key = self.card.side(guesser.partner)[cell]
        if key is Key.ASSASSIN:
            state = replace(self, status=Status.LOST, reason=Reason.ASSASSIN, phase=Phase.OVER)
            return state, Outcome(event, Result.ASSASSIN, cell, guesser, turn_over=True)
        if key is Key.AGENT:
            return self._cover(event, cell, guesser)
        return self._miss(event, cell, guesser)

    def _first_touch(self, event: Touch) -> tuple[Duet, Outcome] | RejectReason:
        """A touch while a clue is awaited. The clue is said aloud and the guesser
        touches only after it ("Each turn consists of exactly one clue and one or
        more guesses"; "On a turn when you give the clue, your partner will make
        guesses ... by touching one of the word cards"): once the rules know who
        gives it, the touch is that clue's first guess, and the clue is taken with
        it, in one event (undo takes both back)."""
        giver = self.clue_giver
        if self.rules_version < READS_TABLE or giver is None:
            # Either seat may give it (the first clue, or the looser order): which
            # side judges the touch is not known until a clue key says who gave it.
            return RejectReason.NO_CLUE
        if event.cell == self.token_due:
            # "If your partner touches a word you see as tan, mark it with a timer
            # token": the giver's hand placing it, after the turn, is not a guess.
            # Judged, it would be the next guesser's, by the other side.
            return RejectReason.NO_CLUE
        started = self._clue(Clue(giver))
        assert not isinstance(started, RejectReason), started  # clue_giver may give it
        state, _ = started
        return state._touch(event)

    def _cover(self, event: Touch, cell: int, guesser: Seat) -> tuple[Duet, Outcome]:
        agents = self.agents | {cell}
        announced = tuple(
            s
            for s in Seat
            if self.card.agents(s) <= agents and not self.card.agents(s) <= self.agents
        )
        state = replace(self, agents=agents, correct_this_turn=self.correct_this_turn + 1)
        if len(agents) == AGENTS_TO_FIND:
            # "So you win when the last agent card is placed."
            state = replace(state, status=Status.WON, phase=Phase.OVER, giver=None)
            return state, Outcome(event, Result.AGENT, cell, guesser, turn_over=True)
        if (
            self.rules_version >= READS_TABLE
            and self.phase is Phase.GUESSING
            and state.nothing_left_to_guess(guesser)
        ):
            # "If all 9 words that you see as green have been covered by agent
            # cards, tell your partner that he or she has no words left to guess."
            # Every word still open is then a bystander or an assassin on the
            # giver's side: a guess could only cost a mistake or the game, and the
            # guesser ends the turn the one way that costs neither, "by taking a
            # timer token from the time bank" (a pass: "1 point for each timer
            # token that a player took when ending a turn after a correct guess").
            # The stand takes that token at once instead of waiting for the key.
            ended = state._take_pass_token()
            if ended is None:  # an invalid-clue penalty took the last token: see _pass
                lost = replace(
                    state, status=Status.LOST, reason=Reason.OUT_OF_TIME, phase=Phase.OVER
                )
                return lost, Outcome(
                    event, Result.AGENT, cell, guesser, turn_over=True, announced=announced
                )
            return ended, Outcome(
                event, Result.AGENT, cell, guesser, 1, turn_over=True, announced=announced
            )
        return state, Outcome(event, Result.AGENT, cell, guesser, announced=announced)

    def _miss(self, event: Touch, cell: int, guesser: Seat) -> tuple[Duet, Outcome]:
        misses = self.misses(guesser) | {cell}
        state = (
            replace(self, misses_a=misses) if guesser is Seat.A else replace(self, misses_b=misses)
        )
        if self.phase is Phase.SUDDEN_DEATH:
            # "A wrong guess in sudden death ends the game - both players lose,
            # even if the guess was just an innocent bystander."
            state = replace(state, status=Status.LOST, reason=Reason.SUDDEN_DEATH, phase=Phase.OVER)
            return state, Outcome(event, Result.BYSTANDER, cell, guesser, turn_over=True)
        if self.bank_bystander:
            tokens = 1
            state = replace(state, bank_bystander=self.bank_bystander - 1)
        elif self.bank_check >= 2:
            # "once you are out of bystander-side-up tokens ... you mark a bystander
            # by removing two checkmark-side-up tokens ... The mistake costs you two turns"
            tokens = 2
            state = replace(state, bank_check=self.bank_check - 2)
        else:
            # "if a turn causes you to use up more tokens than you have, you lose
            # immediately" (one check token left, or none after an invalid-clue
            # penalty took the last one: see `_penalty`).
            state = replace(state, status=Status.LOST, reason=Reason.OUT_OF_TIME, phase=Phase.OVER)
            return state, Outcome(event, Result.BYSTANDER, cell, guesser, turn_over=True)
        state = replace(state, mistake_tokens=self.mistake_tokens + tokens)
        state = state._end_turn(token_due=cell)
        return state, Outcome(event, Result.BYSTANDER, cell, guesser, tokens, turn_over=True)

    def _pass(self, event: Pass) -> tuple[Duet, Outcome] | RejectReason:
        if self.phase is Phase.SUDDEN_DEATH:
            return RejectReason.PASS_IN_SUDDEN_DEATH
        if self.phase is Phase.AWAITING_CLUE:
            return RejectReason.PASS_NO_TURN
        if event.seat is self.giver:
            return RejectReason.PASS_BY_GIVER
        if not self.correct_this_turn:
            return RejectReason.PASS_BEFORE_GUESS
        state = self._take_pass_token()
        if state is None:
            # An invalid-clue penalty took the last token this turn, and ending the
            # turn needs one more: "if a turn causes you to use up more tokens than
            # you have, you lose immediately" (see `_penalty`).
            state = replace(self, status=Status.LOST, reason=Reason.OUT_OF_TIME, phase=Phase.OVER)
            return state, Outcome(event, Result.PASS, guesser=event.seat, turn_over=True)
        return state, Outcome(event, Result.PASS, guesser=event.seat, tokens=1, turn_over=True)

    def _take_pass_token(self) -> Duet | None:
        """The turn ended by its guesser taking a token, or None: the bank is empty."""
        # "the guesser ... takes a checkmark-side-up token from the time bank. If
        # only bystander-side-up tokens are left, the guesser takes one of these."
        if self.bank_check:
            state = replace(self, bank_check=self.bank_check - 1)
        elif self.bank_bystander:
            state = replace(self, bank_bystander=self.bank_bystander - 1)
        else:
            return None
        return replace(state, passes=self.passes + 1)._end_turn()

    def _penalty(self, event: Penalty) -> tuple[Duet, Outcome] | RejectReason:
        if self.phase is not Phase.GUESSING:
            return RejectReason.PENALTY_NO_CLUE
        if self.penalised:
            return RejectReason.PENALTY_TWICE
        # "take a one-turn penalty by discarding one of the timer tokens from the
        # time bank." Which side is not said; a check-side token goes first so the
        # group keeps its mistakes (docs/rules.md).
        #
        # "Then the guesser should guess as though the clue were valid. (So the turn
        # ends in the usual way, which in most cases will use up another timer
        # token)." The usual way includes the rulebook's one immediate loss: "if a
        # turn causes you to use up more tokens than you have, you lose
        # immediately" ("Falls ihr in einem Zug jedoch mehr Marker benutzen
        # müsstet, als ihr noch habt, verliert ihr sofort"). So when the penalty took
        # the last token, a bystander (one token to mark it) or a pass (one token to
        # take) needs a token the bank no longer has, and the game is lost: the
        # penalty never leaves the team better off than the same touches without
        # it. Only a turn that finds the last agent, or hits the assassin, ends
        # without a token.
        if self.bank_check:
            state = replace(self, bank_check=self.bank_check - 1)
        else:
            state = replace(self, bank_bystander=self.bank_bystander - 1)
        state = replace(state, discarded=self.discarded + 1, penalised=True)
        return state, Outcome(event, Result.PENALTY, tokens=1)

    def _end_turn(self, token_due: int | None = None) -> Duet:
        # "If you have used up your last timer token and there are still words to
        # be guessed, it is time for the sudden death turn."
        phase = Phase.SUDDEN_DEATH if self.turns_left == 0 else Phase.AWAITING_CLUE
        return replace(
            self,
            phase=phase,
            giver=None,
            correct_this_turn=0,
            penalised=False,
            sudden_death=self.sudden_death or phase is Phase.SUDDEN_DEATH,
            token_due=token_due,
        )

    # The core's dispatch and undo (rules.core), by these:
    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    STEPS = MappingProxyType({Touch: _touch, Clue: _clue, Pass: _pass, Penalty: _penalty})
    REFUSED = Rejection
    GAME_OVER = RejectReason.GAME_OVER
    NOTHING_TO_UNDO = RejectReason.NOTHING_TO_UNDO
    OUTCOME = Outcome
    UNDONE = Result.UNDO


def apply(state: Duet, event: Event) -> tuple[Duet, Outcome | Rejection]:
    """`state.apply(event)`: the state after `event` and what it did or why it was refused."""
    return state.apply(event)
