"""The games' rules as pure, deterministic Python (standard library only).

This package's names are what the host shares with every game: the seats, the
grid, the missions the menu offers, Duet's card and events (the script text and
card contracts), and the errors. Each game's referee is in its own module and is
imported from there (`keystand.rules.duet`, `keystand.rules.classic`), so the host
cannot name one by accident:

>>> from keystand.rules import Clue, Seat, generate
>>> from keystand.rules.duet import Duet
>>> game = Duet.start(generate(seed=1))
>>> game, outcome = game.apply(Clue(Seat.A))
"""

from ..grid import Grid
from .card import AGENTS_TO_FIND, CELLS, DISTRIBUTION, SIZE, Card, Key, Seat, cell, row_col
from .cardcode import CARD_COUNT, generate
from .errors import CardCodeError, CardError, EventError, KeystandError, MissionError
from .events import Clue, Event, Pass, Penalty, Touch, Undo, digits, parse_event
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
    "Event",
    "EventError",
    "Grid",
    "Key",
    "KeystandError",
    "Mission",
    "MissionError",
    "Pass",
    "Penalty",
    "Seat",
    "Touch",
    "Undo",
    "cell",
    "digits",
    "generate",
    "parse_event",
    "row_col",
]
