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
from ...rules import (
    Clue,
    Duet,
    Key,
    Mission,
    Outcome,
    Pass,
    Penalty,
    Phase,
    Reason,
    Rejection,
    Result,
    Seat,
    Touch,
)

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


def marks(side: tuple[Key, ...]) -> tuple[Mark, ...]:
    return tuple(_MARK[k] for k in side)


def _who(s: Seat | None, viewer: Seat) -> Who | None:
    if s is None:
        return None
    return Who.ME if s is viewer else Who.PARTNER


def for_seat(
    state: Duet,
    seat: Seat,
    *,
    undo_asked: Seat | None = None,
    reveal: bool = True,
    cannot_save: bool = False,
    input_lost: bool = False,
    partner_panel_failed: bool = False,
    hint: str | None = None,
    repaired: Repaired | None = None,
    show_refusal: bool = True,
    next_mission: Mission | None = None,
    cursor: int | None = None,
) -> SeatView:
    """What `seat`'s screen shows of `state`; `undo_asked` is the seat that pressed
    undo and waits for the other (public: both saw the key pressed). With
    `reveal` False a finished game's key stays hidden (undo is still possible).
    `cursor` is the seat's own cursor (buttons only, its turn to guess): the
    caller passes it for that seat alone."""
    end = None
    if state.phase is Phase.OVER:
        # The game is over: now, and only now, both sides may be shown.
        end = End(
            ending=_ENDING[state.reason] if state.reason else Ending.WON,
            score=state.score,
            card_code=state.card.code if reveal else None,
            partner_side=marks(state.card.side(seat.partner)) if reveal else None,
        )
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
        turns_left=state.turns_left,
        mistakes_left=state.mistakes_left,
        nothing_left_for_me=state.nothing_left_to_guess(seat),
        nothing_left_for_partner=state.nothing_left_to_guess(seat.partner),
        undo_asked=_who(undo_asked, seat),
        cannot_save=cannot_save,
        input_lost=input_lost,
        partner_panel_failed=partner_panel_failed,
        hint=hint,
        repaired=repaired,
        # Until the next game applies it; not once this one is over (the end
        # screen says how to start it).
        next_mission=mission_label(next_mission)
        if next_mission is not None and next_mission != state.mission and end is None
        else None,
        cursor=cursor if state.phase is not Phase.OVER else None,
        last=_last(
            state.last if show_refusal or not isinstance(state.last, Rejection) else state.outcome,
            seat,
        ),
        end=end,
    )


def mission_label(mission: Mission) -> MissionLabel:
    """How the screens name a mission: the rulebook's name (a strings key), its numbers."""
    return MissionLabel(mission.name, str(mission))


def _last(last: Outcome | Rejection | None, seat: Seat) -> Last | None:
    """The last input, public as it is: what was touched, what it turned out to be."""
    if last is None:
        return None
    if isinstance(last, Rejection):
        cell = last.event.cell if isinstance(last.event, Touch) else None
        return Last(LastKind.REJECTED, cell=cell, reject=last.reason.value)
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
