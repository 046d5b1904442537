"""The rules of Codenames Duet as pure, deterministic Python (standard library only).

>>> from keystand.rules import Card, Duet, Clue, Touch, Seat, generate
>>> game = Duet.start(generate(seed=1))
>>> game, outcome = game.apply(Clue(Seat.A))
"""

from .card import AGENTS_TO_FIND, CELLS, DISTRIBUTION, SIZE, Card, Key, Seat, cell, row_col
from .cardcode import CARD_COUNT, generate
from .duet import (
    Duet,
    Outcome,
    Phase,
    Reason,
    Rejection,
    RejectReason,
    Result,
    Status,
    apply,
)
from .errors import CardCodeError, CardError, EventError, KeystandError, MissionError
from .events import Clue, Event, Pass, Penalty, Touch, Undo, parse_event
from .grid import Grid
from .mission import NAMED, STANDARD, Mission

__all__ = [
    "AGENTS_TO_FIND",
    "CARD_COUNT",
    "CELLS",
    "DISTRIBUTION",
    "NAMED",
    "SIZE",
    "STANDARD",
    "Card",
    "CardCodeError",
    "CardError",
    "Clue",
    "Duet",
    "Event",
    "EventError",
    "Grid",
    "Key",
    "KeystandError",
    "Mission",
    "MissionError",
    "Outcome",
    "Pass",
    "Penalty",
    "Phase",
    "Reason",
    "RejectReason",
    "Rejection",
    "Result",
    "Seat",
    "Status",
    "Touch",
    "Undo",
    "apply",
    "cell",
    "generate",
    "parse_event",
    "row_col",
]
