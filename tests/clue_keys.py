"""The clue key as its label says, in every game: a game whose clue takes a number
(classic) chooses it first ("Clue…", the number shown from 1), and then the menu
key's "Clue 1" gives it; any other game's clue key gives the clue at once."""

from __future__ import annotations

from keystand.drivers.inputs import KeyName, Press
from keystand.rules import Seat
from keystand.stand import Stand


def give_clue(stand: Stand, seat: str, now: float) -> None:
    """`seat` presses its clue key, then, if that chose a number, the key that gives
    the clue with it (the first number shown: a clue for 1)."""
    stand.handle(Press(seat, KeyName.CLUE), now)
    if Seat(seat) in stand.choosing.numbering:
        stand.handle(Press(seat, KeyName.MENU), now)
