"""An input line names a cell of the game's grid (issue 21, item 3): 5x5 by default,
any rows x cols when the input is told the game's shape."""

from __future__ import annotations

import pytest

from keystand.drivers.inputs import Touch, parse_line


def test_a_touch_line_on_a_5x4_grid() -> None:
    assert parse_line("touch 4 3", 5, 4) == Touch(4, 3)
    with pytest.raises(ValueError, match=r"rows are 0..4, columns 0..3"):
        parse_line("touch 0 4", 5, 4)
    with pytest.raises(ValueError, match=r"ROW and COL are numbers 0..4 and 0..3"):
        parse_line("touch a 1", 5, 4)


def test_the_default_grid_is_5x5() -> None:
    assert parse_line("touch 4 4") == Touch(4, 4)
    with pytest.raises(ValueError, match=r"rows and columns are 0..4"):
        parse_line("touch 5 0")


def test_a_touch_counts_from_0() -> None:
    with pytest.raises(ValueError, match="count from 0"):
        Touch(-1, 0)
