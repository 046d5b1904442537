"""The grid's calibration (menu > Calibrate grid, one touch on seat A's top-left
word, kept in the state dir), the buttons-only cursor (the guesser's alone),
and the screens saying when the grid is lost and when it is back."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

pytest.importorskip("gpiozero")

from gpiozero.pins.mock import MockFactory
from real_inputs import profile

from keystand import layouts, rules, screens
from keystand import profile as profiles
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import (
    Health,
    HealthReport,
    InputDriver,
    KeyName,
    Press,
    Touch,
    parse_script,
)
from keystand.drivers.inputs.emulated import EmulatedScript
from keystand.drivers.inputs.touchfilter import Orientation
from keystand.inputs_setup import GRID_FILE, build, load_orientation, save_orientation
from keystand.rules import Card, Seat
from keystand.rules.duet import Duet, Phase
from keystand.service import Service
from keystand.stand import Item, Menu, Stand
from keystand.store import Store

CODE = "5VHK-ZHXC-WE7S"
WAIT = 60.0  # a generous bound on a scripted run, never a speed limit


def panels() -> dict[Seat, SimPanel]:
    return {s: SimPanel("epd2in7_V2", rotation=90, speed=0) for s in Seat}


class Run:
    """One start of the stand on a state dir: a Pi profile's keys and grid over
    emulated hardware, the mat lying `mat` on the table."""

    def __init__(self, tmp_path: Path, build_name: str, mat: Orientation | None) -> None:
        self.state_dir = tmp_path / "state"
        self.stand = Stand(Store(self.state_dir), new_card=lambda: Card.from_code(CODE))
        self.stand.boot()
        self.service = Service(
            self.stand, panels(), render=screens.render, blank=screens.blank, idle_sleep=3600
        )
        prof = profiles.load(str(profile(tmp_path, build_name)))
        (tmp_path / "out").mkdir(exist_ok=True)
        self.pins = MockFactory()
        self.inputs = build(
            prof, self.stand, self.state_dir, pins=self.pins, emulate=tmp_path / "out"
        )
        for driver in self.inputs.drivers:
            self.service.add_input(driver)
        self.mat = mat

    def play(self, lines: list[str]) -> EmulatedScript:
        done = threading.Event()
        script = EmulatedScript(
            parse_script("\n".join(lines) + "\n"),
            sync=self.sync,
            twins=self.inputs.twins,  # the keys' and the grid's, as `run --emulate` plays them
            mat=self.mat,
            on_done=done.set,
        )
        self.service.add_input(script)
        self.service.start()
        assert done.wait(WAIT)
        assert self.sync().wait(WAIT)
        return script

    def sync(self) -> threading.Event:
        handled = threading.Event()
        self.service.submit_then(handled.set)
        return handled

    def stop(self) -> None:
        assert self.service.shutdown(WAIT)
        self.inputs.hardware.close()


def cells(*indices: int) -> list[str]:
    return [f"touch {i // 5} {i % 5}" for i in indices]


def test_calibration_turns_the_grid_and_survives_a_restart(tmp_path: Path) -> None:
    card = Card.from_code(CODE)
    mat = Orientation(1)  # the mat laid a quarter turn from how it was wired
    agents = sorted(card.agents(Seat.A))
    first = Run(tmp_path, "mpr121-strips", mat)
    assert first.stand.calibration.grid == Orientation(0)  # nothing saved yet: taken as unturned
    # Menu > Calibrate grid (clue moves up: from Close to the last entry), then
    # seat A's top-left word as the mat has it, then a clue and two guesses.
    calibrate = ["press A menu long", "press A clue", "press A menu", *cells(0)]
    script = first.play([*calibrate, "press A clue", *cells(agents[0], agents[1])])
    assert not script.missed
    assert first.stand.calibration.grid == mat and first.stand.calibration.asking is None
    assert json.loads((first.state_dir / GRID_FILE).read_text())["turns"] == 1
    first.stop()
    expected = [rules.Clue(Seat.A), *(rules.Touch.at(i) for i in agents[:2])]
    assert first.stand.state == Duet.replay(card, rules.STANDARD, expected)

    again = Run(tmp_path, "mpr121-strips", mat)
    assert again.stand.calibration.grid == mat  # from grid.json, and so is the driver's
    assert again.inputs.grid.inner.orientation == mat
    again.play(cells(agents[2]))
    again.stop()
    expected.append(rules.Touch.at(agents[2]))
    assert again.stand.state == Duet.replay(card, rules.STANDARD, expected)


def test_the_menu_shows_the_grids_orientation_only_on_a_stand_with_a_grid(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path / "s"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    assert Item.CALIBRATE not in stand.menus[Seat.A].items
    stand.menus.open.clear()
    stand.calibration.grid = Orientation(3, mirror=True)
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    view = screens.menu_view(stand, Seat.A)
    (line,) = [x for x in view.lines if x.item is layouts.MenuItem.CALIBRATE]
    assert line.value_text == "270 mirrored°"


def test_a_calibration_touch_off_the_corners_is_asked_again(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path / "s"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    told: list[Orientation] = []
    stand.calibration.grid, stand.calibration.on_calibrated = Orientation(), told.append
    items = stand.menu_items()
    stand.menus.open[Seat.B] = Menu(Seat.B, index=items.index(Item.CALIBRATE), items=items)
    stand.handle(Press("B", KeyName.MENU), 0.0)
    assert stand.calibration.asking is Seat.A and not stand.menus
    before = stand.state
    stand.handle(Touch(2, 2), 1.0)  # not a corner: nothing played, asked again
    assert stand.calibration.asking is Seat.A and stand.state == before and not told
    assert stand.hints.said[Seat.A][0] == "not_corner"
    stand.handle(Touch(4, 0), 2.0)  # a corner: the grid turns; still nothing played
    assert told == [Orientation(1)] and stand.calibration.grid == Orientation(1)
    assert stand.calibration.asking is None and stand.state == before


def views_of(stand: Stand, monkeypatch: pytest.MonkeyPatch) -> dict[Seat, object]:
    """What each seat's screen is drawn from, as screens.render builds it."""
    drawn: list[object] = []
    with monkeypatch.context() as m:
        m.setattr(screens.layouts, "render", lambda view, *a, **k: drawn.append(view))
        for seat, panel in panels().items():
            screens.render(stand, seat, panel)
    return dict(zip(panels(), drawn, strict=True))


def test_the_cursor_is_on_the_guessers_screen_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand = Stand(Store(tmp_path / "s"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    stand.cursor_keys = True
    stand.handle(Press("A", KeyName.CLUE), 0.0)  # A's clue: B guesses
    assert stand.state.phase is Phase.GUESSING and stand.state.guesser is Seat.B
    assert stand.cursor_of(Seat.B) is None  # no cursor until B picks a word
    images = {s: screens.render(stand, s, p) for s, p in panels().items()}
    stand.handle(Press("B", KeyName.CLUE), 0.5)  # pick word
    # B's screen is the table turned: its top-left word is the table's last cell.
    assert stand.cursor_of(Seat.B) == 24 and stand.cursor_of(Seat.A) is None
    stand.handle(Press("B", KeyName.CLUE), 1.0)  # next: the next word along B's row
    stand.handle(Press("B", KeyName.PASS), 2.0)  # down: a row down on B's screen
    assert stand.cursor_of(Seat.B) == 24 - 1 - 5
    after = {s: screens.render(stand, s, p) for s, p in panels().items()}
    assert after[Seat.A].tobytes() == images[Seat.A].tobytes()  # nothing of it on A's
    seen = views_of(stand, monkeypatch)
    assert seen[Seat.A].cursor is None and seen[Seat.B].cursor == 18
    boxes = layouts.cell_boxes(seen[Seat.B], screens.spec(panels()[Seat.B]))

    def black(image, box) -> int:
        return image.crop(box).convert("L").histogram()[0]

    # The cursor brackets its word's four corners over the grid lines (a viewfinder,
    # not the whole frame of a last touch); the word's own picture stays as it was,
    # and so does every neighbour's, but for the pixel along each edge (as the
    # frame of a last touch takes it: the marks keep clear of it).
    x0, y0, x1, y1 = boxes[18]
    corners = [(x0 - 2, y0 - 2), (x1 - 1, y0 - 2), (x0 - 2, y1 - 1), (x1 - 1, y1 - 1)]
    for cx, cy in corners:
        corner = (cx, cy, cx + 3, cy + 3)
        assert black(after[Seat.B], corner) == 9 > black(images[Seat.B], corner)
    for n in (18, 17, 19, 13, 23):
        nx0, ny0, nx1, ny1 = boxes[n]
        inner = (nx0 + 1, ny0 + 1, nx1 - 1, ny1 - 1)
        assert after[Seat.B].crop(inner).tobytes() == images[Seat.B].crop(inner).tobytes()
    # Guessing is the normal touch, journaled; picking and moving were not.
    journal = stand.store.current_path.read_bytes().splitlines()
    assert len(journal) == 2  # the start and the clue
    stand.handle(Press("B", KeyName.MENU), 3.0)  # guess
    assert stand.state.last.event == rules.Touch.at(18)
    assert b"touch" in stand.store.current_path.read_bytes().splitlines()[-1]


def test_the_turns_keys_come_back_after_a_guess(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path / "s"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    stand.cursor_keys = True
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    agent = min(card.agents(Seat.A))
    stand.handle(Press("B", KeyName.CLUE), 0.5)  # pick word
    stand.choosing.cursors[Seat.B] = agent
    stand.handle(Press("B", KeyName.MENU, long=True), 1.0)  # guess: held, still a guess
    assert stand.state.agents_found == 1 and Seat.B not in stand.menus
    assert stand.cursor_of(Seat.B) is None  # guessed: the turn's keys again
    stand.handle(Press("B", KeyName.UNDO), 2.0)  # ask to undo
    stand.handle(Press("A", KeyName.UNDO), 2.5)
    assert stand.state.agents_found == 0
    stand.handle(Press("B", KeyName.CLUE), 3.0)  # pick word: the cursor where it was
    assert stand.cursor_of(Seat.B) == agent
    stand.handle(Press("B", KeyName.UNDO), 3.5)  # back: no word guessed
    assert stand.cursor_of(Seat.B) is None and stand.state.agents_found == 0
    stand.handle(Press("B", KeyName.CLUE), 4.0)
    stand.handle(Press("B", KeyName.MENU), 4.5)
    stand.handle(Press("B", KeyName.PASS), 5.0)  # end turn
    assert stand.state.phase is Phase.AWAITING_CLUE
    stand.handle(Press("B", KeyName.MENU, long=True), 6.0)  # the menu as ever
    assert Seat.B in stand.menus


class Device(InputDriver):
    """A grid that only reports its health, as the test says."""

    name = "grid"

    def start(self, emit, report) -> None:
        self.report = report

    def stop(self) -> None:
        pass


def test_both_screens_say_the_grid_is_lost_and_then_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand = Stand(Store(tmp_path / "s"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    service = Service(stand, panels(), render=screens.render, blank=screens.blank)
    device = Device()
    service.add_input(device)
    service.start()

    def settle() -> None:
        handled = threading.Event()
        service.submit_then(handled.set)
        assert handled.wait(WAIT)

    device.report(HealthReport("grid", Health.CONNECTED, "3 chips"))
    settle()
    notes = {s: layouts.play.note_key(v) for s, v in views_of(stand, monkeypatch).items()}
    assert notes == {Seat.A: None, Seat.B: None}
    device.report(HealthReport("grid", Health.LOST, "MPR121 0x5A does not answer"))
    settle()
    notes = {s: layouts.play.note_key(v) for s, v in views_of(stand, monkeypatch).items()}
    assert notes == {Seat.A: "input_lost", Seat.B: "input_lost"}
    assert service.snapshot.health[0].health is Health.LOST
    device.report(HealthReport("grid", Health.BACK, "every MPR121 answers"))
    settle()
    notes = {s: layouts.play.note_key(v) for s, v in views_of(stand, monkeypatch).items()}
    assert notes == {Seat.A: "hint_input_back", Seat.B: "hint_input_back"}
    assert service.shutdown(WAIT)


@pytest.mark.parametrize(
    "text",
    ['{"turns": 5}', '{"turns": true}', "[1]", "not json", '{"shown": "90"}', "\xff"],
)
def test_a_grid_file_keystand_did_not_write_is_taken_as_unturned(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / GRID_FILE).write_text(text, encoding="latin-1")
    assert load_orientation(tmp_path, mirror=True) == Orientation(0, mirror=True)
    assert GRID_FILE in caplog.text and "unturned until calibrated" in caplog.text


def test_the_grid_file_keeps_the_turns_and_the_profile_keeps_the_mirror(tmp_path: Path) -> None:
    save_orientation(tmp_path, Orientation(2, mirror=True))
    assert load_orientation(tmp_path, mirror=False) == Orientation(2)
    assert load_orientation(tmp_path, mirror=True) == Orientation(2, mirror=True)
