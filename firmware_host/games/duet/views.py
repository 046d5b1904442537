"""The secrecy boundary (docs/design.md "Secrecy"): a game state -> what one seat may see.

`for_seat(state, seat)` is the only code that looks at a game state on behalf
of a screen. What it passes on, and nothing else:

- the seat's own side of the key card (`card.side(seat)`);
- the public record: the agent cards on the table, each seat's misses (the
  timer tokens on words), the tokens left in the bank, the phase, who gives the
  clue and who guesses, the armed seat in sudden death, what the last input did
  or why it was refused: everything the people at the table watched happen;
- the one announcement the rules allow about the partner's side: "nothing left
  for you to guess" (never how many words are left);
- once the game is over, and only then: the partner's side, the card code and
  the score, for the end screen.

Seats in the view are relative to the viewer (`Who.ME`, `Who.PARTNER`), so the
screens of seat A and seat B of mirrored games are the same picture, turned.
"""

from __future__ import annotations

from ...layouts import (
    Counter,
    End,
    Ending,
    Last,
    LastKind,
    Mark,
    MissionLabel,
    Repaired,
    SeatId,
    SeatView,
    Stage,
    Who,
)
from ...rules import Clue, Key, Mission, Pass, Penalty, Seat, Touch
from ...rules.card import GRID
from ...rules.duet import Duet, Outcome, Phase, Reason, Rejection, RejectReason, Result
from .. import Context
from .settings import MISSION

NO_CONTEXT = Context()  # a bare view: no fault, no note, the end shown
SHAPE = GRID  # Duet's grid: the layouts take it as it is
_MARK = {Key.AGENT: Mark.AGENT, Key.ASSASSIN: Mark.ASSASSIN, Key.BYSTANDER: Mark.BYSTANDER}
_STAGE = {
    Phase.AWAITING_CLUE: Stage.AWAITING_CLUE,
    Phase.GUESSING: Stage.GUESSING,
    Phase.SUDDEN_DEATH: Stage.SUDDEN_DEATH,
    Phase.OVER: Stage.OVER,
}
_LAST = {
    Result.CLUE: LastKind.CLUE,
    Result.ARMED: LastKind.ARMED,
    Result.AGENT: LastKind.AGENT,
    Result.BYSTANDER: LastKind.BYSTANDER,
    Result.ASSASSIN: LastKind.ASSASSIN,
    Result.PASS: LastKind.PASS,
    Result.PENALTY: LastKind.PENALTY,
    Result.UNDO: LastKind.UNDO,
}
_UNDONE = {Clue: "clue", Touch: "touch", Pass: "pass", Penalty: "penalty"}
_ENDING = {
    Reason.ASSASSIN: Ending.ASSASSIN,
    Reason.SUDDEN_DEATH: Ending.SUDDEN_DEATH,
    Reason.OUT_OF_TIME: Ending.OUT_OF_TIME,
}


def ending(state: Duet) -> Ending:
    """How a finished game ended, told apart from the public record alone: the
    tokens left in the bank, whether sudden death came, what the last input was."""
    if state.reason is None:
        return Ending.WON_SUDDEN_DEATH if state.sudden_death else Ending.WON
    if state.reason is Reason.OUT_OF_TIME and state.turns_left == 0:
        # A turn in play with an empty bank: only the invalid clue's penalty takes
        # a token while guessing, so it took the last one (rules/duet.py `_penalty`).
        return Ending.OUT_OF_TIME_PENALTY
    return _ENDING[state.reason]


def marks(side: tuple[Key, ...]) -> tuple[Mark, ...]:
    return tuple(_MARK[k] for k in side)


def _who(s: Seat | None, viewer: Seat) -> Who | None:
    if s is None:
        return None
    return Who.ME if s is viewer else Who.PARTNER


def for_seat(state: Duet, seat: Seat, context: Context = NO_CONTEXT) -> SeatView:
    """What `seat`'s screen shows of `state`, with the stand's own state beside it
    (`context`): an undo one seat asked for (public: both saw the key pressed), a
    hint, a fault, the next game's mission. With `reveal` False a finished
    game's key stays hidden (undo is still possible). The cursor is the seat's
    own (buttons only, its turn to guess): the caller passes it for that seat alone."""
    end = None
    if state.phase is Phase.OVER:
        # The game is over: now, and only now, both sides may be shown.
        shown = context.reveal
        closing = state.outcome  # the input that ended it: who touched, public
        end = End(
            ending=ending(state),
            score=state.score,
            card_code=state.card.code if shown else None,
            partner_side=marks(state.card.side(seat.partner)) if shown else None,
            by=_who(closing.guesser, seat) if closing is not None else None,
        )
    last = state.last
    if not context.show_refusal and isinstance(last, Rejection):
        last = state.outcome  # its few seconds are over: the result before it is back
    next_mission = context.chosen.get(MISSION) if context.chosen is not None else None
    return SeatView(
        seat=SeatId(seat.value),
        side=marks(state.card.side(seat)),
        stage=_STAGE[state.phase],
        agents=state.agents,
        my_misses=state.misses(seat),
        partner_misses=state.misses(seat.partner),
        clue_giver=_who(state.clue_giver, seat),
        guesser=_who(state.guesser, seat),
        armed=_who(state.armed, seat) if state.phase is Phase.SUDDEN_DEATH else None,
        counters=(Counter("turns", state.turns_left), Counter("mistakes", state.mistakes_left)),
        nothing_left_for_me=state.nothing_left_to_guess(seat),
        nothing_left_for_partner=state.nothing_left_to_guess(seat.partner),
        undo_asked=_who(context.undo_asked, seat),
        **context.notes(),  # the faults and the hint
        # The partner's clue is next and needs its side: the stand takes none until
        # its panel shows frames again (stand.held), and this screen says so.
        held=context.partner_panel_failed
        and state.phase is Phase.AWAITING_CLUE
        and state.clue_giver is seat.partner,
        repaired=Repaired(context.repaired) if context.repaired else None,
        # Until the next game applies it: the end screen too says it (where it
        # says how to start that game).
        next_mission=mission_label(next_mission)
        if next_mission is not None and next_mission != state.mission
        else None,
        mission=mission_label(state.mission),
        cursor=context.cursor if state.phase is not Phase.OVER else None,
        last=_last(last, seat),
        end=end,
        grid=SHAPE,
    )


def mission_label(mission: Mission) -> MissionLabel:
    """How the screens name a mission: the rulebook's name (a strings key), its numbers."""
    return MissionLabel(mission.name, str(mission))


_FIRST_CLUE = {RejectReason.FIRST_CLUE_A: Seat.A, RejectReason.FIRST_CLUE_B: Seat.B}


def _last(last: Outcome | Rejection | None, seat: Seat) -> Last | None:
    """The last input, public as it is: what was touched, what it turned out to be."""
    if last is None:
        return None
    if isinstance(last, Rejection):
        cell = last.event.cell if isinstance(last.event, Touch) else None
        # Whose the first clue is, as this seat's screen names seats: me or partner
        # (the stand labels no seat A or B).
        opener = _who(_FIRST_CLUE.get(last.reason), seat)
        return Last(LastKind.REJECTED, by=opener, cell=cell, reject=last.reason.value)
    by = last.guesser
    if last.result is Result.CLUE:
        by = last.guesser.partner if last.guesser else None  # the giver
    return Last(
        _LAST[last.result],
        by=_who(by, seat),
        cell=last.cell,
        tokens=last.tokens,
        undone=_UNDONE.get(type(last.undone)) if last.undone is not None else None,
        announced=bool(last.announced),
    )
