"""The stand's parts: each moves the redraw counter where it changes what a
screen shows, and only then (checked against the frames themselves over long
scripted sessions), a seat's menu as a pure step (menu.py), the settings' saved
form (settings.py) and the turn timer (stand/timer.py)."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, InputEvent, KeyName, Press, Touch
from keystand.drivers.inputs.touchfilter import Orientation
from keystand.games.classic.settings import NUMBERS, TIMER
from keystand.games.duet.settings import FIRST, MISSION
from keystand.journal import JournalError
from keystand.menu import Do, Item, Menu
from keystand.rules import Mission, Seat, generate
from keystand.settings import Settings
from keystand.stand import Item as StandItem
from keystand.stand import Stand
from keystand.stand.calibration import Calibration
from keystand.stand.choosing import Choosing
from keystand.stand.faults import Faults, Repair
from keystand.stand.hints import Hints, Refusal
from keystand.stand.open_menus import OpenMenus
from keystand.stand.redraw import Redraw
from keystand.stand.saving import SavedSettings
from keystand.stand.timer import TurnTimer
from keystand.stand.undo import UndoAgreement
from keystand.store import Store


def test_a_part_moves_the_redraw_when_what_it_shows_changes_and_only_then() -> None:
    redraw = Redraw()
    undo, hints, faults = UndoAgreement(redraw), Hints(redraw), Faults(redraw)
    steps: list[tuple[Callable[[], object], bool]] = [
        (lambda: undo.press(Seat.A, 1.0), True),
        (lambda: undo.lapse(3.0, window=5.0), False),  # within the window
        (lambda: undo.lapse(7.0, window=5.0), True),
        (lambda: undo.drop(), False),  # nothing to drop
        (lambda: hints.say((Seat.B,), "hold_menu", 1.0), True),
        (lambda: hints.say((Seat.B,), "hold_menu", 1.0), False),  # the same hint, the same time
        (lambda: hints.lapse(2.0), False),
        (lambda: hints.lapse(5.0), True),
        (lambda: faults.panel(Seat.A, "stuck busy"), True),
        (lambda: faults.panel(Seat.A, "stuck busy"), False),
        (lambda: faults.input("grid", lost=False), False),  # never lost
        (lambda: faults.input("grid", lost=True), True),
        (lambda: faults.cannot_save(None), False),
        (lambda: faults.repair(Repair.RESUMED), True),
        (lambda: faults.repair(Repair.RESUMED), False),
        (lambda: faults.repair(None), True),
    ]
    for i, (step, moves) in enumerate(steps):
        before = redraw.version
        step()
        assert (redraw.version != before) is moves, f"step {i}"


def test_the_redraw_wants_a_full_refresh_until_it_is_drawn() -> None:
    redraw = Redraw()
    assert redraw.full  # the first frames
    redraw.drawn()
    redraw.moved()
    assert not redraw.full
    redraw.moved(full=True)
    assert redraw.full and redraw.version == 2


PANEL = SimPanel("epd2in7_V2", rotation=90, speed=0)
PLACES = {seat: screens.KeyPlace("left", tuple(KeyName)) for seat in Seat}


def frames(stand: Stand) -> tuple[object, ...]:
    """All a screen shows of the stand: both seats' frames with their keys'
    labels, the page's public record, and whether the next frames are full."""
    seats = tuple(screens.render(stand, seat, PANEL, PLACES).tobytes() for seat in Seat)
    return (*seats, screens.public(stand), stand.redraw.full)


def session(game: str, steps: int) -> Iterator[tuple[float, Callable[[Stand], object]]]:
    """A long session at the table, the same every run: every key of both seats,
    pressed and held, touches all over the grid, the group's acts, panels and
    inputs failing and coming back, time passing in small and large steps."""
    rows, cols = (5, 5)
    now = 0.0
    for i in range(steps):
        now += (0.3, 1.0, 4.5, 0.1, 12.0)[i % 5]
        seat = "AB"[(i // 3) % 2]
        key = tuple(KeyName)[(i * 3) % 4]
        event: InputEvent
        if i % 53 == 52:  # the last entry, Calibrate grid, a cell, a corner
            calibrate = [Press(seat, KeyName.UNDO)] * 3 + [Press(seat, KeyName.MENU, long=True)]
            calibrate += [Press(seat, KeyName.CLUE), Press(seat, KeyName.MENU)]
            calibrate += [Touch(2, 2), Touch(4, 4)]
            for event in calibrate:
                yield now, lambda s, e=event, n=now: s.handle(e, n)
            continue
        if i % 37 == 36:  # a seat goes through its menu to an entry and chooses it
            # Undo first, out of any page or menu left open (and an undo asked).
            menu = [Press(seat, KeyName.UNDO)] * 3 + [Press(seat, KeyName.MENU, long=True)]
            menu += [Press(seat, KeyName.PASS)] * ((i // 37) % 17) + [Press(seat, KeyName.MENU)] * 2
            for event in menu:
                yield now, lambda s, e=event, n=now: s.handle(e, n)
            continue
        if i % 47 == 46:
            failed = "stuck busy" if (i // 47) % 2 == 0 else None
            yield now, lambda s, f=failed: s.panel_health(Seat.B, f)
            continue
        if i % 31 == 30:
            lost = (i // 31) % 2 == 0
            yield now, lambda s, n=now, lost=lost: s.input_health("grid", lost, n)
            continue
        if i % 11 == 10:
            yield now, lambda s, n=now: s.tick(n)
            continue
        if i % 5 in (0, 2):
            event = Touch((i * 7) % rows, (i * 3) % cols)
        elif i % 23 == 22:
            event = Act("penalty", None)
        else:
            event = Press(seat, key, long=(i % 13 == 4))
        yield now, lambda s, e=event, n=now: s.handle(e, n)


# What a screen draws of each part (the rest is its clock and bookkeeping).
DRAWN: dict[type, tuple[str, ...]] = {
    UndoAgreement: ("request",),
    Hints: ("said",),
    Refusal: ("shown", "at"),
    Faults: ("saving", "inputs_lost", "panels", "repaired"),
    Calibration: ("grid", "asking"),
    Choosing: ("picking", "cursors", "numbering"),
    OpenMenus: ("open",),
    TurnTimer: ("step",),
    SavedSettings: ("unsaved",),
}


def watch_parts(stand: Stand) -> list[str]:
    """Wrap every public method of the stand's parts: each call that changes what
    its part draws must move the redraw, and a call that changes nothing must
    not. Returns the list the calls that break this are written to."""
    broken: list[str] = []
    for part in vars(stand).values():
        names = DRAWN.get(type(part))
        if names is None:
            continue
        for name, method in inspect.getmembers(part, inspect.ismethod):
            if not name.startswith("_"):
                setattr(part, name, watched(stand, part, names, method, broken))
    assert len([p for p in vars(stand).values() if type(p) in DRAWN]) == len(DRAWN)
    return broken


def watched(
    stand: Stand,
    part: object,
    names: tuple[str, ...],
    method: Callable[..., object],
    broken: list[str],
) -> Callable[..., object]:
    def call(*args: object, **kwargs: object) -> object:
        before, version = copy.deepcopy([getattr(part, n) for n in names]), stand.version
        try:
            return method(*args, **kwargs)
        finally:
            changed = [getattr(part, n) for n in names] != before
            if changed != (stand.version != version):
                what = "changed, no redraw" if changed else "a redraw, nothing changed"
                broken.append(f"{type(part).__name__}.{method.__name__}: {what}")

    return call


def fail_the_disk(stand: Stand, monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    """A switch: while on, the disk refuses every journal record and settings save."""
    record, save = stand.store.record, stand.store.save_settings

    def full(*args: object, **kwargs: object) -> None:
        raise JournalError("no space left on device (test)")

    def switch(on: bool) -> None:
        monkeypatch.setattr(stand.store, "record", full if on else record)
        monkeypatch.setattr(stand.store, "save_settings", full if on else save)

    return switch


@pytest.mark.parametrize(
    ("game", "cursor_keys"), [("duet", False), ("duet", True), ("classic", False)]
)
def test_every_change_on_a_screen_moves_the_redraw(
    tmp_path: Path, game: str, cursor_keys: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames are the judge: whatever a step changes on either screen (or in
    the public record), the counter moved, so the service draws it; and each
    part moves it exactly when what it draws changes (so no change is hidden
    behind another's redraw in the same step). A stand that says it is still
    (the service loop then sleeps) is: a tick a day later changes nothing."""
    settings = Settings(game=game, reveal_delay=6.0).choosing(TIMER, 30)
    seed = iter(range(10_000))
    stand = Stand(
        Store(tmp_path / "state"),
        settings=settings,
        new_card=lambda: games.get(game).generate(next(seed)),
        cursor_keys=cursor_keys,
    )
    stand.calibration.attach(Orientation(), lambda new: None)
    disk = fail_the_disk(stand, monkeypatch)
    stand.boot()
    broken = watch_parts(stand)
    before, version = frames(stand), stand.version
    moved = 0
    for i, (now, step) in enumerate(session(game, 700)):
        disk(i % 150 >= 130)  # a full disk now and then, 20 steps long
        step(stand)
        if stand.still():  # the loop sleeps until an input: no tick may change anything
            assert not stand.tick(now + 86_400.0), f"step {i}: still, yet a tick redraws"
        after = frames(stand)
        if after != before:
            assert stand.version != version, f"step {i}: a change on a screen, no redraw"
        moved += stand.version != version
        if stand.version != version:
            stand.redraw.drawn()  # as the service does once it handed the frames
        before, version = frames(stand), stand.version
    assert not broken, sorted(set(broken))
    assert moved > 100  # the session changed the screens often


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
    assert stand.saved.seats == {Seat.B}
    assert not stand.tick(1.0)  # not yet time to try again
    monkeypatch.setattr(stand.store, "save_settings", saved)
    assert stand.tick(10.0)
    assert stand.saved.seats == set()


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
    timer = TurnTimer(Redraw())
    timer.arm(120, game)
    assert (timer.left, timer.step) == (120, game.timer_step(120))
    assert not timer.run(10.0, 120, "red")
    assert timer.run(130.0, 120, "red") and timer.left == 0
    assert not timer.run(131.0, 120, "blue") and timer.left == 120
    version = timer.redraw.version
    timer.run(131.5, 120, "blue")
    timer.show(game)
    assert timer.redraw.version == version  # seconds within a step: the same on a screen
    timer.stop()
    assert (timer.left, timer.step) == (None, None)
