"""The grid as data (issue 21, item 3): one `Grid` type, each game names its own."""

from __future__ import annotations

import importlib

import pytest

from keystand.games import SHIPPED, Context, get
from keystand.layouts import OperativesView, SeatView, SpymastersView
from keystand.layouts.view import SQUARE
from keystand.rules import Grid


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (5, 4), (4, 5), (4, 4), (1, 3)])
def test_cells_and_indices_round_trip(rows: int, cols: int) -> None:
    grid = Grid(rows, cols)
    assert grid.cells == rows * cols
    seen = [grid.cell(r, c) for r in range(rows) for c in range(cols)]
    assert seen == list(range(grid.cells))  # row by row from seat A's far left
    assert all(grid.row_col(i) == divmod(i, cols) for i in seen)


def test_contains_and_bounds_name_the_shape() -> None:
    grid = Grid(5, 4)
    assert grid.contains(4, 3) and not grid.contains(0, 4) and not grid.contains(5, 0)
    with pytest.raises(ValueError, match=r"off the 5x4 grid \(rows 0..4, columns 0..3\)"):
        grid.cell(0, 4)
    with pytest.raises(ValueError, match=r"cell 20 is off the grid \(0..19\)"):
        grid.row_col(20)


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (5, 4), (4, 4)])
def test_half_turn_for_seat_b(rows: int, cols: int) -> None:
    grid = Grid(rows, cols)
    assert grid.half_turn(0, 0) == (rows - 1, cols - 1)
    assert grid.half_turn(rows - 1, 0) == (0, cols - 1)
    for i in range(grid.cells):
        r, c = grid.row_col(i)
        assert grid.half_turn(*grid.half_turn(r, c)) == (r, c)  # its own inverse
        assert grid.turned(i) == grid.cell(*grid.half_turn(r, c))
        assert grid.turned(grid.turned(i)) == i


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "5"])
def test_a_grid_has_whole_positive_sides(bad: object) -> None:
    with pytest.raises(ValueError, match="grid rows"):
        Grid(bad, 5)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_game_names_its_5x5_grid(name: str) -> None:
    assert get(name).grid == Grid(5, 5)


@pytest.mark.parametrize("name", SHIPPED)
def test_each_shipped_games_views_draw_at_its_own_grid(name: str) -> None:
    game = get(name)
    views = importlib.import_module(f"keystand.games.{name}.views")
    state = game.start(game.generate(seed=21))
    for _, seat in game.seat_names:
        view = game.view(state, seat, Context())
        assert isinstance(view, SeatView | SpymastersView | OperativesView)
        shape = view.grid if isinstance(view, SeatView) else view.public.grid
        assert (shape.rows, shape.cols) == (game.grid.rows, game.grid.cols)
        # Both games are 5x5, as is the layouts' default: only the views' own
        # shape tells that the game's grid was passed, not left to the default.
        assert shape is views.SHAPE and shape is not SQUARE
