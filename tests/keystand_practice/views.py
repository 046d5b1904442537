"""The practice game's screens: both seats see the one key, on Duet's layouts
drawn at the practice grid's shape."""

from __future__ import annotations

from keystand.games import Context
from keystand.layouts import (
    Counter,
    End,
    Ending,
    Last,
    LastKind,
    Mark,
    SeatId,
    SeatView,
    Stage,
)
from keystand.rules import Seat

from .rules import GRID, Key, Outcome, Phase, Practice, Rejection, Result, Touch

_MARK = {Key.AGENT: Mark.AGENT, Key.ASSASSIN: Mark.ASSASSIN, Key.BYSTANDER: Mark.BYSTANDER}
_STAGE = {
    Phase.AWAITING_CLUE: Stage.AWAITING_CLUE,
    Phase.GUESSING: Stage.GUESSING,
    Phase.OVER: Stage.OVER,
}
_LAST = {
    Result.CLUE: LastKind.CLUE,
    Result.AGENT: LastKind.AGENT,
    Result.BYSTANDER: LastKind.BYSTANDER,
    Result.ASSASSIN: LastKind.ASSASSIN,
    Result.PASS: LastKind.PASS,
    Result.UNDO: LastKind.UNDO,
}


def for_seat(state: Practice, seat: Seat, context: Context) -> SeatView:
    side = tuple(_MARK[k] for k in state.card.keys)
    found = frozenset(i for i in state.covered if state.card.keys[i] is Key.AGENT)
    missed = state.covered - found
    end = None
    if state.phase is Phase.OVER:
        end = End(
            ending=Ending.WON if state.won else Ending.ASSASSIN,
            score=None,
            card_code=state.card.code if context.reveal else None,
            partner_side=side if context.reveal else None,
        )
    return SeatView(
        seat=SeatId(seat.value),
        side=side,
        stage=_STAGE[state.phase],
        agents=found,
        my_misses=missed,
        partner_misses=missed,
        **context.notes(),  # the faults and the hint, as every game's screen has them
        counters=(Counter("agents", state.agents_left),),  # its own: the agents left
        cursor=context.cursor if state.phase is Phase.GUESSING else None,
        last=_last(state.last if context.show_refusal else state.outcome),
        end=end,
        grid=GRID,
    )


def _last(last: Outcome | Rejection | None) -> Last | None:
    if last is None:
        return None
    if isinstance(last, Rejection):
        cell = last.event.cell if isinstance(last.event, Touch) else None
        return Last(LastKind.REJECTED, cell=cell, reject=last.reason.value)
    undone = "touch" if isinstance(last.undone, Touch) else None
    return Last(_LAST[last.result], cell=last.cell, undone=undone)
