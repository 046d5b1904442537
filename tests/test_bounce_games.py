"""The same finger bouncing on the word it just found is not a refusal on the
screens, in every game: "Agent found" stays, not "Already covered"."""

from __future__ import annotations

from pathlib import Path

import pytest
from clue_keys import give_clue

from keystand import games
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store


def agent_of_the_team_on_turn(stand: Stand) -> int:
    """A word whose touch keeps the guessers on turn, in Duet (the clue giver's
    agent) or classic (the team on turn's)."""
    state = stand.state
    if stand.game.name == "classic":
        return min(state.card.agents(state.team))
    side = state.card.side(state.clue_giver)
    return next(i for i, k in enumerate(side) if k.value == "G")


@pytest.mark.parametrize("name", games.SHIPPED)
def test_a_bounce_on_the_word_just_found_is_not_shown_as_refused(name: str, tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), settings=Settings(game=name))
    stand.boot()
    give_clue(stand, "A", 1.0)
    row, col = stand.game.grid.row_col(agent_of_the_team_on_turn(stand))
    stand.handle(Touch(row, col), 2.0)
    found = stand.state.last
    assert not games.refused(found)
    stand.handle(Touch(row, col), 2.1)  # the same finger, a moment later
    assert games.refused(stand.state.last) and stand.state.last.code == "covered"
    assert not stand.refusal.shown and stand.refusal.at is None
    stand.handle(Press("A", KeyName.CLUE), 3.0)  # a clue while guessing: refused, shown
    assert games.refused(stand.state.last) and stand.refusal.shown and stand.refusal.at == 3.0
