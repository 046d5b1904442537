"""The host hands the game's grid to the touch drivers (issue 21, item 3): the
filter, the orientation, the serial grid and the MPR121 map all get its rows and
columns, and a saved calibration that does not suit the grid is not taken."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from real_inputs import profile

from keystand import profile as profiles
from keystand.drivers.inputs.touchfilter import Orientation
from keystand.inputs_setup import GRID_FILE, build, load_orientation
from keystand.rules import Card, Grid
from keystand.stand import Stand
from keystand.store import Store

CODE = "5VHK-ZHXC-WE7S"


@pytest.fixture
def stand_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A Duet stand whose game names another grid (the third game comes later)."""

    def make(grid: Grid) -> Stand:
        stand = Stand(Store(tmp_path / "state"), new_card=lambda: Card.from_code(CODE))
        stand.boot()
        reshaped = type("Reshaped", (type(stand.game),), {"grid": grid})()
        monkeypatch.setattr(Stand, "game", property(lambda self: reshaped))
        return stand

    return make


def test_a_saved_quarter_turn_does_not_suit_a_5x4_grid(tmp_path: Path, caplog) -> None:
    (tmp_path / GRID_FILE).write_text(json.dumps({"turns": 1}))
    with caplog.at_level(logging.WARNING):
        got = load_orientation(tmp_path, mirror=True, grid=Grid(5, 4))
    assert got == Orientation(0, True, 5, 4)
    assert "a 5x4 grid turns only by half turns" in caplog.text
    (tmp_path / GRID_FILE).write_text(json.dumps({"turns": 2}))
    assert load_orientation(tmp_path, mirror=False, grid=Grid(5, 4)) == Orientation(2, False, 5, 4)
    assert load_orientation(tmp_path, mirror=False) == Orientation(2)  # 5x5 by default


def test_the_serial_grid_is_built_for_the_games_4x4_grid(tmp_path: Path, stand_on) -> None:
    stand = stand_on(Grid(4, 4))
    prof = profiles.load(str(profile(tmp_path, "serial-grid")))
    (tmp_path / "out").mkdir()
    inputs = build(prof, stand, tmp_path / "state", pins=MockFactory(), emulate=tmp_path / "out")
    try:
        grid = inputs.grid
        assert grid is not None
        driver = grid.inner  # the tapped driver
        assert (driver.rows, driver.cols) == (4, 4)
        assert len(driver.filter.every_cell) == 16
        assert stand.calibration.grid == Orientation(0, False, 4, 4) == driver.orientation
        assert (inputs.hardware.board.rows, inputs.hardware.board.cols) == (4, 4)  # its hello
    finally:
        inputs.hardware.close()


def test_an_mpr121_map_of_another_shape_than_the_games_is_refused(tmp_path: Path, stand_on) -> None:
    stand = stand_on(Grid(4, 4))
    prof = profiles.load(str(profile(tmp_path, "mpr121-strips")))
    with pytest.raises(ValueError, match=r"strip map rows .*: four electrodes"):
        build(prof, stand, tmp_path / "state", pins=MockFactory(), emulate=None)
