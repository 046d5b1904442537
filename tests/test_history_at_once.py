"""A finished game is in the history (the menu's History, `keystand history`)
as soon as its end is final, not only once the next game is dealt; and it is
there once, after the next deal and after a restart too (issue 22 item 2)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from clue_keys import give_clue

from keystand import games
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.menu import Item
from keystand.rules import Seat
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store

HOLD = Settings().reveal_delay


def lose(stand: Stand, now: float) -> str:
    """Touch the assassin after a clue, in either game; returns the game's id."""
    give_clue(stand, "A", now)
    state = stand.state
    if stand.game.name == "classic":
        cell = next(i for i in range(stand.game.grid.cells) if state.card.key(i).value == "X")
    else:
        cell = next(i for i, k in enumerate(state.card.side(Seat.A)) if k.value == "X")
    stand.handle(Touch(*stand.game.grid.row_col(cell)), now + 1)
    assert not stand.game.playing(stand.state)
    assert stand.store.game_id is not None
    return stand.store.game_id


def listed(root: Path) -> list[str]:
    return [g["id"] for g in Store.reader(root).history()]


@pytest.mark.parametrize("name", games.SHIPPED)
def test_the_end_is_listed_once_final_and_once_only(name: str, tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), settings=Settings(game=name))
    stand.boot()
    game = lose(stand, 10.0)
    stand.tick(11.0 + HOLD / 2)
    assert listed(tmp_path) == []  # held back: both seats may still undo the stray touch
    stand.tick(11.0 + HOLD)
    assert listed(tmp_path) == [game]  # final: at once, before any deal
    stand.handle(Press("A", KeyName.MENU, long=True), 30.0)  # the menu's History has it
    while stand.menus[Seat.A].item is not Item.HISTORY:
        stand.handle(Press("A", KeyName.PASS), 30.0)
    stand.handle(Press("A", KeyName.MENU), 30.0)
    history = stand.menus[Seat.A].history
    assert history is not None and [g["id"] for g in history] == [game]
    stand.handle(Press("A", KeyName.UNDO), 31.0)  # out of the history view
    stand.handle(Press("A", KeyName.UNDO), 31.0)  # and of the menu
    stand.handle(Press("A", KeyName.CLUE), 32.0)  # the next game
    assert stand.store.game_id != game
    assert listed(tmp_path) == [game]  # not twice
    again = Stand(Store(tmp_path), settings=Settings(game=name))
    again.boot()
    assert listed(tmp_path) == [game]


def test_a_restart_during_the_hold_lists_the_game_when_the_hold_is_over(tmp_path: Path) -> None:
    """The stand stopped before the end was final: back up, the end is held again
    (both seats may still undo), and listed once the hold is over."""
    stand = Stand(Store(tmp_path))
    stand.boot()
    game = lose(stand, 10.0)
    stand.store.close()
    assert listed(tmp_path) == []
    again = Stand(Store(tmp_path))
    again.boot()
    assert not again.revealed and listed(tmp_path) == []
    again.tick(100.0)
    again.tick(100.0 + HOLD)
    assert again.revealed and listed(tmp_path) == [game]


def test_a_disk_that_refuses_the_line_leaves_it_to_the_next_deal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stand = Stand(Store(tmp_path))
    stand.boot()
    game = lose(stand, 10.0)
    real = Store._list

    def refuse(self: Store, state: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "_list", refuse)
    with caplog.at_level(logging.WARNING, logger="keystand.stand"):
        stand.tick(11.0 + HOLD)
    assert "cannot list the finished game" in caplog.text and listed(tmp_path) == []
    monkeypatch.setattr(Store, "_list", real)
    stand.handle(Press("B", KeyName.CLUE), 40.0)  # the next deal lists it
    assert listed(tmp_path) == [game]


@pytest.mark.parametrize("name", games.SHIPPED)
def test_a_restart_in_the_end_hold_holds_again_and_undo_still_takes_the_touch_back(
    name: str, tmp_path: Path
) -> None:
    """The stand stopped (a kill, a power cut) before both sides were shown: the
    start shows the same held end, not the key, and both seats may still undo."""
    stand = Stand(Store(tmp_path), settings=Settings(game=name))
    stand.boot()
    game = lose(stand, 10.0)
    stand.tick(12.0)  # within the hold: then the power goes
    stand.store.close()
    again = Stand(Store(tmp_path), settings=Settings(game=name))
    again.boot()
    assert not again.playing and not again.revealed  # the first frame: still held
    assert listed(tmp_path) == []
    again.tick(500.0)  # the service's first tick: the hold starts again
    assert not again.revealed
    again.handle(Press("A", KeyName.UNDO), 501.0)
    again.handle(Press("B", KeyName.UNDO), 501.5)
    assert again.playing and again.store.game_id == game
    assert listed(tmp_path) == []


def test_a_restart_after_the_end_was_final_shows_it_at_once(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path))
    stand.boot()
    game = lose(stand, 10.0)
    stand.tick(11.0 + HOLD)  # both sides shown: listed
    stand.store.close()
    again = Stand(Store(tmp_path))
    again.boot()
    assert not again.playing and again.revealed and listed(tmp_path) == [game]
