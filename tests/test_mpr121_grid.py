"""The MPR121 mat on a game's own grid (issue 21, item 3): four row strips and
four column strips, or sixteen pads, for a 4x4 game; an electrode map of another
shape than the game's is refused with both named."""

from __future__ import annotations

import pytest
from test_mpr121 import Clock, Rig

from keystand.drivers.inputs import Touch
from keystand.drivers.inputs.mpr121 import MPR121Grid, PadMap, StripMap, electrode_map
from keystand.drivers.inputs.mpr121_emu import electrodes_of
from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

STRIPS_4X4 = StripMap(0x5A, (0, 1, 2, 3), (4, 5, 6, 7), (4, 4))
PADS_4X4 = PadMap.from_profile({"0x5A": list(range(12)), "0x5B": list(range(12, 16))}, 4, 4)
EVERY = {(r, c) for r in range(4) for c in range(4)}


def test_a_4x4_strip_map_crosses_four_rows_and_four_columns() -> None:
    assert electrode_map({"rows": [0, 1, 2, 3], "cols": [4, 5, 6, 7]}, 4, 4) == STRIPS_4X4
    assert STRIPS_4X4.cells_of(0x5A) == EVERY
    assert STRIPS_4X4.electrodes(0x5A) == 8  # ECR runs eight electrodes, not ten
    assert STRIPS_4X4.cells({0x5A: 1 << 3 | 1 << 4}) == {(3, 0)}
    assert len(STRIPS_4X4.cells({0x5A: 1 << 0 | 1 << 1 | 1 << 7})) == 2  # a palm
    assert electrodes_of(STRIPS_4X4, (2, 3)) == [(0x5A, 2), (0x5A, 7)]


def test_a_4x4_pad_map_numbers_cells_row_by_four() -> None:
    assert PADS_4X4.cells_of(0x5B) == {(3, 0), (3, 1), (3, 2), (3, 3)}
    assert PADS_4X4.cells({0x5A: 1 << 5, 0x5B: 1 << 3}) == {(1, 1), (3, 3)}
    assert electrodes_of(PADS_4X4, (3, 3)) == [(0x5B, 3)]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"rows": [0, 1, 2, 3, 4], "cols": [5, 6, 7, 8]},
            r"rows \(0, 1, 2, 3, 4\): four electrodes",
        ),
        ({"rows": [0, 1, 2, 3]}, "lists of 4 and 4 electrodes"),
        (
            {"pads": {"0x5A": list(range(12)), "0x5B": [12, 13, 14]}},
            r"no electrode for cells \[15\]",
        ),
        (
            {"pads": {"0x5A": [*range(11), 16], "0x5B": [11, 12, 13, 14, 15]}},
            "16 is not a cell 0..15",
        ),
    ],
)
def test_a_map_that_does_not_make_the_4x4_grid_is_refused(spec, message) -> None:
    with pytest.raises(ValueError, match=message):
        electrode_map(spec, 4, 4)


def test_the_driver_refuses_a_map_of_another_shape_than_the_games() -> None:
    with pytest.raises(ValueError, match="electrode map for a 5x5 grid; the game's grid is 4x4"):
        MPR121Grid(StripMap(), rows=4, cols=4)
    driver = MPR121Grid({"rows": [0, 1, 2, 3], "cols": [4, 5, 6, 7]}, rows=4, cols=4)
    assert driver.map == STRIPS_4X4 and driver.filter.every_cell == EVERY
    assert driver.orientation == Orientation(rows=4, cols=4)


@pytest.mark.parametrize("emap", [STRIPS_4X4, PADS_4X4], ids=["strips", "pads"])
def test_touches_on_a_4x4_mat_come_in_table_coordinates(emap) -> None:
    clock = Clock()
    rig = Rig(
        emap,
        rows=4,
        cols=4,
        orientation=Orientation(2, rows=4, cols=4),
        touch_filter=TouchFilter(dwell=0.08, palm=0.04, bounce=0.5, rows=4, cols=4, clock=clock),
    )
    rig.driver.filter.clock = rig.clock  # the rig's own fake clock
    rig.touch(0.1, [(0, 0)]).touch(0.8, [(3, 1)]).touch(1.5, [(1, 2), (2, 2)]).run()
    assert rig.events == [Touch(3, 3), Touch(0, 2)]  # the palm is no touch
