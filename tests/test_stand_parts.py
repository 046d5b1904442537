"""The stand's parts: the redraw version moved by one mechanism (shown.py), a
seat's menu as a pure step (menu.py), the settings' saved form (settings.py) and
the turn timer (turn_timer.py)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

import pytest

from keystand import games
from keystand.drivers.inputs import KeyName, Press
from keystand.games.classic.settings import NUMBERS, TIMER
from keystand.games.duet.settings import FIRST, MISSION
from keystand.menu import Do, Item, Menu
from keystand.rules import Mission, Seat, generate
from keystand.settings import Settings
from keystand.shown import entry, fields_shown
from keystand.stand import Item as StandItem
from keystand.stand import Stand
from keystand.store import Store
from keystand.turn_timer import TurnTimer


@dataclass
class Pad:
    """A mutable part of a watched object: `marks` drawn, `clock` not (as a timer's)."""

    marks: list[int] = field(default_factory=list)
    clock: float = field(default=0.0, compare=False)


@dataclass
class Board:
    """A watched object as small as can be: `notes` and `pad` shown, `scratch` not."""

    notes: dict[str, list[int]] = field(default_factory=dict)
    scratch: list[int] = field(default_factory=list)
    pad: Pad = field(default_factory=Pad)
    version: int = 0

    def shown(self) -> list[object]:
        return fields_shown(self, frozenset({"scratch", "version"}))

    @entry
    def note(self, key: str, value: int) -> None:
        self.notes.setdefault(key, []).append(value)  # in place, two levels down

    @entry
    def jot(self, value: int) -> None:
        self.scratch.append(value)

    @entry
    def mark(self, value: int) -> None:
        self.pad.marks.append(value)  # in place, inside a mutable dataclass

    @entry
    def wind(self, seconds: float) -> None:
        self.pad.clock += seconds  # a field the pad's == leaves out

    @entry
    def note_then_fail(self, key: str) -> None:
        self.notes[key] = [0]
        raise RuntimeError("halfway")


def test_an_entry_moves_the_version_for_a_change_in_place_and_only_then() -> None:
    board = Board()
    board.note("a", 1)
    board.note("a", 2)  # the same key: only the list inside changed
    assert board.version == 2
    board.jot(3)  # a field no screen shows
    assert board.version == 2


def test_a_mutable_part_is_watched_as_its_equality_compares_it() -> None:
    board = Board()
    board.mark(1)
    board.mark(1)  # the same value again: the list inside grew
    assert board.version == 2
    board.wind(0.5)  # compare=False: no screen draws it
    assert board.version == 2 and board.pad.clock == 0.5


def test_an_entry_that_fails_halfway_still_moves_the_version() -> None:
    board = Board()
    with pytest.raises(RuntimeError):
        board.note_then_fail("a")
    assert board.notes == {"a": [0]} and board.version == 1


def test_the_stand_watches_every_field_but_the_ones_it_names() -> None:
    names = {f.name for f in fields(Stand)}
    assert names >= Stand.UNSHOWN, f"not fields: {sorted(Stand.UNSHOWN - names)}"
    assert {"state", "menus", "hints", "timer", "saving", "settings"} <= names - Stand.UNSHOWN


@pytest.fixture
def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "state"), new_card=lambda: generate(7))
    s.boot()
    return s


def test_a_key_that_moves_the_menu_in_place_is_a_change_to_draw(stand: Stand) -> None:
    assert stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    assert stand.handle(Press("A", KeyName.PASS), 0.1)  # menu.index, changed in place
    assert stand.menus[Seat.A].index == 1


def test_a_tick_that_saves_refused_settings_is_a_change_to_draw(
    stand: Stand, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seat's "settings not saved" goes when a retry saves them: the loop is
    told to redraw (tick said False before, and the hint stayed until some other
    change was drawn)."""
    saved = stand.store.save_settings

    def full(data: dict) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stand.store, "save_settings", full)
    stand.handle(Press("B", KeyName.MENU, long=True), 0.0)
    for _ in range(stand.menus[Seat.B].items.index(StandItem.LANGUAGE)):
        stand.handle(Press("B", KeyName.PASS), 0.1)
    stand.handle(Press("B", KeyName.MENU), 0.2)
    assert stand.unsaved == {Seat.B}
    assert not stand.tick(1.0)  # not yet time to try again
    monkeypatch.setattr(stand.store, "save_settings", saved)
    assert stand.tick(10.0)
    assert stand.unsaved == set()


def test_a_menu_key_is_a_choice_the_stand_carries_out() -> None:
    s = Settings()
    menu = Menu(Seat.A, items=(Item.CLOSE, Item.GAME, Item.PENALTY, FIRST))
    menu.index = 1
    assert menu.press(KeyName.MENU, s, playing=True).do is Do.STAY  # once more to leave
    other = menu.press(KeyName.MENU, s, playing=True)
    assert other.do is Do.DEAL and other.game == games.names()[1] != s.game
    menu.press(KeyName.PASS, s, playing=True)  # a move: the confirmation is gone
    assert menu.item is Item.PENALTY and not menu.confirming
    assert menu.press(KeyName.MENU, s, playing=True).do is Do.STAY
    assert menu.press(KeyName.MENU, s, playing=True).do is Do.PENALTY
    menu.press(KeyName.PASS, s, playing=True)
    assert menu.press(KeyName.MENU, s, playing=True).settings.of(FIRST) is Seat.A
    assert menu.press(KeyName.UNDO, s, playing=True).do is Do.CLOSE


def test_settings_load_what_they_save_and_keep_a_bad_value_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    chosen = Settings(lang=("de", "ru")).choosing(TIMER, 90).choosing(NUMBERS, False)
    chosen = chosen.choosing(MISSION, Mission(7, 3)).choosing(FIRST, Seat.B)
    assert Settings().loaded(chosen.saved()) == chosen
    bad = {**chosen.saved(), "timer": 61, "lang": ["en", "xx"], "numbers": "no"}
    kept = Settings().choosing(MISSION, Mission(7, 3)).choosing(FIRST, Seat.B)
    assert Settings().loaded(bad) == kept
    assert "settings.json: timer 61" in caplog.text
    assert "settings.json: numbers 'no'" in caplog.text
    old = {k: v for k, v in chosen.saved().items() if k != "numbers"}  # before numbers
    assert Settings().loaded(old).of(NUMBERS) is True


def test_the_turn_timer_counts_a_turn_down_and_starts_again_for_the_next() -> None:
    game = games.get("classic")
    timer = TurnTimer()
    timer.arm(120, game)
    assert (timer.left, timer.step) == (120, game.timer_step(120))
    assert not timer.run(10.0, 120, "red")
    assert timer.run(130.0, 120, "red") and timer.left == 0
    assert not timer.run(131.0, 120, "blue") and timer.left == 120
    before = TurnTimer(step=timer.step)
    timer.run(131.5, 120, "blue")
    assert timer == before  # seconds within a step: the same on a screen
    timer.stop()
    assert (timer.left, timer.step) == (None, None)
