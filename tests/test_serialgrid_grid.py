"""The serial grid on a game's own grid (issue 21, item 3): the hello announces
4x4 and the driver, told the game's 4x4 grid, takes its cells in table coordinates;
a hello for any other shape is a grid this stand cannot use, said so."""

from __future__ import annotations

import queue
from pathlib import Path

from test_serialgrid import WAIT, Recorder, Rig, needs_pyserial

from keystand.drivers.inputs import Health, Touch
from keystand.drivers.inputs.serialgrid import GridParser, Hello, SerialGrid, State
from keystand.drivers.inputs.serialgrid_emu import EmulatedBoard, load_firmware
from keystand.drivers.inputs.touchfilter import Orientation


class Rig4(Rig):
    """The test rig with a board whose hello says `board` and a driver for `stand`."""

    def __init__(
        self, tmp_path: Path, board: tuple[int, int], stand: tuple[int, int], **kwargs
    ) -> None:
        self.link = tmp_path / "grid"
        rows, cols = board
        self.board = EmulatedBoard(self.link, period_ms=100, rest_ms=150, rows=rows, cols=cols)
        self.events = queue.Queue()
        self.reports = queue.Queue()
        self.filter = Recorder(dwell=0.05, bounce=0.3, rows=stand[0], cols=stand[1])
        self.driver = SerialGrid(
            str(self.link),
            ask_every=0.2,
            reopen_every=0.1,
            silent_after=0.5,
            touch_filter=self.filter,
            rows=stand[0],
            cols=stand[1],
            **kwargs,
        )


def test_the_parser_takes_a_4x4_state_from_the_hello() -> None:
    proto = load_firmware("gridproto")
    logic = proto.GridLogic(rows=4, cols=4, firmware="four")
    parser = GridParser()
    hello, first = parser.feed(b"".join(logic.hello(0)))
    assert hello == Hello(0, 1, 4, 4, "four")
    assert isinstance(first, State) and first.cells == frozenset()
    bits = 1 << (3 * 4 + 3) | 1 << 4  # (3, 3) and (1, 0), numbered row * 4 + col
    (state,) = parser.feed(b"".join(logic.sense(10, bits)))
    assert isinstance(state, State) and state.cells == {(3, 3), (1, 0)}


@needs_pyserial
def test_a_4x4_grid_touches_in_table_coordinates(tmp_path: Path) -> None:
    r = Rig4(tmp_path, (4, 4), (4, 4), orientation=Orientation(2, rows=4, cols=4))
    try:
        r.start()
        health, detail = r.report()
        assert health is Health.CONNECTED, detail
        assert r.touch((0, 0)) == Touch(3, 3)  # laid a half turn round
        assert r.touch((3, 1)) == Touch(0, 2)
        assert r.driver.filter.every_cell == {(row, col) for row in range(4) for col in range(4)}
    finally:
        r.close()


@needs_pyserial
def test_a_grid_of_another_shape_than_the_games_is_lost_with_both_named(tmp_path: Path) -> None:
    r = Rig4(tmp_path, (5, 5), (4, 4))
    try:
        r.start()
        health, detail = r.report()
        assert health is Health.LOST
        assert "for 5x5; this stand needs version 1 for 4x4" in detail
        since = r.filter.mark()
        r.board.press([(4, 4)])  # a cell the 4x4 game has not got: never fed, never a touch
        r.filter.wait(lambda s: len(s) >= 5 and all(dark for *_, dark in s), since, "unknowns")
        assert r.events.empty()
        assert r.driver.hello is None
    finally:
        r.close()


def test_the_driver_defaults_to_the_5x5_grid() -> None:
    d = SerialGrid("/dev/null")
    assert (d.rows, d.cols) == (5, 5) and len(d.filter.every_cell) == 25
    assert WAIT > 0  # the shared bound the rig waits with
