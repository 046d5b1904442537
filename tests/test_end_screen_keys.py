"""The keys on the Duet end screen, through the stand and the screens as the service
draws them: while the end is held back (undo can still take the last touch back)
a refused key leaves the held end as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_history_at_once import lose

from keystand import games, layouts, screens
from keystand.drivers.inputs import KeyName, Press
from keystand.rules import Seat
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store


def stand_of(root: Path, game: str = "duet") -> Stand:
    stand = Stand(Store(root), settings=Settings(game=game))
    stand.boot()
    return stand


def press(stand: Stand, seat: Seat, key: KeyName, now: float) -> bool:
    return stand.handle(Press(seat.value, key), now)


def seat_view(stand: Stand, seat: Seat) -> layouts.AnyView:
    return stand.game.view(stand.state, seat, screens.context(stand, seat))


@pytest.mark.parametrize("name", games.SHIPPED)
@pytest.mark.parametrize("key", [KeyName.CLUE, KeyName.PASS])
def test_a_key_the_held_end_refuses_leaves_it_as_it_was(
    name: str, key: KeyName, tmp_path: Path
) -> None:
    """Clue or pass within the hold: the rules would say "the game is over", and that
    refusal took the frame off the word that lost the game (and cost each panel
    two refreshes). The held end stays as it was: undo can still take it back."""
    stand = stand_of(tmp_path, name)
    lose(stand, 10.0)
    before = {seat: seat_view(stand, seat) for seat in Seat}
    if name == "duet":
        assert before[Seat.A].last.cell is not None  # the word that lost it, framed
    for seat in Seat:
        assert not press(stand, seat, key, 12.0)  # no screen changes
        assert {s: seat_view(stand, s) for s in Seat} == before
    stand.tick(12.0 + 5.0)  # nor when a refusal's few seconds would be over
    assert {s: seat_view(stand, s) for s in Seat} == before
    assert not stand.playing and not stand.revealed
    press(stand, Seat.A, KeyName.UNDO, 17.5)
    press(stand, Seat.B, KeyName.UNDO, 18.0)
    assert stand.playing  # undo still takes the end back
