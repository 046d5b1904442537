"""The layouts on a game's own grid (issue 21, item 3): 4x4 and 5x4 as well as 5x5.

The geometry turns any rows x cols grid a half turn for seat B; the play, end and
classic screens draw the grid the view names on every panel and mounting, each
table cell where the geometry says, nothing of the grid under the status column.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import Image, ImageChops

from keystand.layouts import (
    MODELS,
    ClassicPublic,
    ClassicStage,
    Colour,
    End,
    Ending,
    Last,
    LastKind,
    Mark,
    OperativesView,
    SeatId,
    SeatView,
    Shape,
    SpymastersView,
    Stage,
    Team,
    Who,
    panel,
    render,
    render_with_boxes,
)
from keystand.layouts import classic as classic_screen
from keystand.layouts import end as end_screen
from keystand.layouts import play as play_screen
from keystand.layouts.geometry import grid_boxes, grid_size, screen_cell

MOUNTS = [(m, r) for m in MODELS for r in (0, 90, 180, 270)]
SHAPES = [Shape(4, 4), Shape(5, 4), Shape(4, 5)]
G, X, B = Mark.AGENT, Mark.ASSASSIN, Mark.BYSTANDER
Box = tuple[int, int, int, int]


def side(grid: Shape) -> tuple[Mark, ...]:
    marks = (G, B, B, X, G, B, G)
    return tuple(marks[i % len(marks)] for i in range(grid.cells))


def seat_view(grid: Shape, **kw: object) -> SeatView:
    base: dict[str, object] = dict(
        seat=SeatId.A,
        side=side(grid),
        stage=Stage.GUESSING,
        clue_giver=Who.PARTNER,
        guesser=Who.ME,
        agents=frozenset({0}),
        my_misses=frozenset({1}),
        last=Last(LastKind.AGENT, Who.ME, grid.cells - 1),
        grid=grid,
    )
    base.update(kw)
    return SeatView(**base)  # type: ignore[arg-type]


def union(boxes: dict[int, Box]) -> Box:
    return (
        min(b[0] for b in boxes.values()),
        min(b[1] for b in boxes.values()),
        max(b[2] for b in boxes.values()),
        max(b[3] for b in boxes.values()),
    )


def half_turn(box: Box, around: Box) -> Box:
    x0, y0, x1, y1 = box
    ax0, ay0, ax1, ay1 = around
    return (ax0 + ax1 - x1, ay0 + ay1 - y1, ax0 + ax1 - x0, ay0 + ay1 - y0)


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# ----- the geometry ----------------------------------------------------------------------


@pytest.mark.parametrize("grid", [Shape(5, 4), Shape(4, 4)])
def test_screen_cell_turns_any_grid_a_half_turn_for_seat_b(grid: Shape) -> None:
    last = grid.cells - 1
    assert screen_cell(SeatId.A, 0, grid) == (0, 0)
    assert screen_cell(SeatId.B, 0, grid) == (grid.rows - 1, grid.cols - 1)
    assert screen_cell(SeatId.A, grid.cols, grid) == (1, 0)  # the next row starts cols on
    assert screen_cell(SeatId.B, last, grid) == (0, 0)
    for i in range(grid.cells):
        r, c = screen_cell(SeatId.A, i, grid)
        assert 0 <= r < grid.rows and 0 <= c < grid.cols
        assert screen_cell(SeatId.B, i, grid) == (grid.rows - 1 - r, grid.cols - 1 - c)
    with pytest.raises(ValueError, match=rf"cell {grid.cells} is off the grid \(0..{last}\)"):
        screen_cell(SeatId.A, grid.cells, grid)


def test_grid_boxes_cover_a_5x4_grid_row_by_row() -> None:
    grid = Shape(5, 4)
    boxes = grid_boxes(SeatId.A, 10, 20, 9, grid)
    assert len(boxes) == 20
    assert boxes[0] == (11, 21, 19, 29) and boxes[3] == (38, 21, 46, 29)  # the first row
    assert boxes[4] == (11, 30, 19, 38)  # the second row
    assert union(boxes) == (11, 21, 46, 65)
    assert grid_size(9, grid) == (37, 46)  # 4 columns wide, 5 rows high, lines included
    turned = grid_boxes(SeatId.B, 10, 20, 9, grid)
    assert all(turned[i] == half_turn(boxes[i], union(boxes)) for i in range(20))


# ----- the screens -----------------------------------------------------------------------


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
@pytest.mark.parametrize("grid", SHAPES, ids=str)
def test_the_play_screen_draws_the_views_grid_where_the_geometry_says(
    model: str, rotation: int, grid: Shape
) -> None:
    spec = panel(model, rotation)
    lay = play_screen.layout(spec, grid)
    gw, gh = grid_size(lay.cell, grid)
    assert lay.grid_x >= 1 and lay.grid_y >= 1
    assert lay.grid_x + gw < spec.size[0] and lay.grid_y + gh < spec.size[1]
    a_img, a = render_with_boxes(seat_view(grid), spec)
    b_img, b = render_with_boxes(seat_view(grid, seat=SeatId.B), spec)
    assert sorted(a) == sorted(b) == list(range(grid.cells))
    for i, box in a.items():
        r, c = screen_cell(SeatId.A, i, grid)
        x0, y0 = lay.grid_x + c * lay.cell + 1, lay.grid_y + r * lay.cell + 1
        assert box == (x0, y0, x0 + lay.cell - 1, y0 + lay.cell - 1)
        assert b[i] == half_turn(box, union(a))
        if i != 0:  # a covered cell's dot screen lies on the panel's own pixel grid
            # Inside its edge: the last touch's frame and the white around it lie
            # two pixels over its neighbours' edges (cells.py), on whichever side
            # the turn puts them.
            inner, b_inner = inset(box, 2), inset(b[i], 2)
            assert ImageChops.difference(a_img.crop(inner), b_img.crop(b_inner)).getbbox() is None
        assert not any(overlaps(box, block) for block in lay.blocks())
    assert a_img.size == spec.size


def inset(box: tuple[int, int, int, int], by: int = 1) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (x0 + by, y0 + by, x1 - by, y1 - by)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seat", list(SeatId))
def test_a_lone_assassin_on_a_4x4_grid_lands_in_its_cells_box(model: str, seat: SeatId) -> None:
    grid, spec = Shape(4, 4), panel(model)
    blank = (B,) * grid.cells
    plain = render(seat_view(grid, side=blank, seat=seat, last=None), spec)
    boxes = render_with_boxes(seat_view(grid, seat=seat), spec)[1]
    for i in range(grid.cells):
        marks = (*blank[:i], X, *blank[i + 1 :])
        probe = render(seat_view(grid, side=marks, seat=seat, last=None), spec)
        changed = ImageChops.difference(plain.convert("L"), probe.convert("L")).getbbox()
        x0, y0, x1, y1 = boxes[i]
        assert changed is not None
        assert x0 <= changed[0] and y0 <= changed[1] and changed[2] <= x1 and changed[3] <= y1


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
@pytest.mark.parametrize("grid", SHAPES, ids=str)
def test_the_end_screen_draws_both_sides_on_the_views_grid(
    model: str, rotation: int, grid: Shape
) -> None:
    spec = panel(model, rotation)
    end = End(Ending.WON, 3, "CODE", side(grid)[::-1])
    v = seat_view(grid, stage=Stage.OVER, end=end)
    image, boxes = render_with_boxes(v, spec)
    lay = end_screen.layout(spec, grid)
    (fx, fy), (sx, sy) = lay.grids
    gw, gh = grid_size(lay.cell, grid)
    assert sorted(boxes) == list(range(grid.cells))
    assert union(boxes) == (fx + 1, fy + 1, fx + gw - 1, fy + gh - 1)
    for x, y in lay.grids:  # both grids on the panel, apart
        assert 0 < x < x + gw < spec.size[0] and 0 < y < y + gh < spec.size[1]
    assert not overlaps((fx, fy, fx + gw, fy + gh), (sx, sy, sx + gw, sy + gh))
    turned = render_with_boxes(replace(v, seat=SeatId.B), spec)[1]
    assert all(turned[i] == half_turn(boxes[i], union(boxes)) for i in range(grid.cells))
    assert image.size == spec.size


def classic_views(grid: Shape) -> tuple[SpymastersView, OperativesView]:
    colours = (Colour.RED, Colour.BLUE, Colour.BYSTANDER)
    key = tuple(
        Colour.ASSASSIN if i == grid.cells - 1 else colours[i % 3] for i in range(grid.cells)
    )
    revealed = tuple(key[i] if i in (0, 1) else None for i in range(grid.cells))
    p = ClassicPublic(
        starting=Team.RED,
        stage=ClassicStage.GUESSING,
        team=Team.RED,
        revealed=revealed,
        timer=60,
        grid=grid,
    )
    return SpymastersView(key, p), OperativesView(p)


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
@pytest.mark.parametrize("grid", SHAPES, ids=str)
def test_the_classic_screens_draw_the_views_grid(model: str, rotation: int, grid: Shape) -> None:
    spec = panel(model, rotation)
    spymasters, operatives = classic_views(grid)
    lay = classic_screen.layout(spec, timed=True, grid=grid)
    image, a = render_with_boxes(spymasters, spec)
    b = render_with_boxes(operatives, spec)[1]  # the operatives sit opposite: seat B
    for i, box in a.items():
        r, c = screen_cell(SeatId.A, i, grid)
        x0, y0 = lay.grid_x + c * lay.cell + 1, lay.grid_y + r * lay.cell + 1
        assert box == (x0, y0, x0 + lay.cell - 1, y0 + lay.cell - 1)
        assert b[i] == half_turn(box, union(a))
        assert not any(overlaps(box, block) for block in lay.blocks())
    assert len(a) == grid.cells and isinstance(image, Image.Image)


def test_a_view_must_match_its_grid() -> None:
    with pytest.raises(ValueError, match="side has 25 cells, expected 16"):
        SeatView(SeatId.A, (B,) * 25, Stage.GUESSING, grid=Shape(4, 4))
    with pytest.raises(ValueError, match=r"cursor 16 is off the grid \(0..15\)"):
        seat_view(Shape(4, 4), cursor=16)
    with pytest.raises(ValueError, match=r"cell 20 is off the grid \(0..19\)"):
        seat_view(Shape(5, 4), last=Last(LastKind.AGENT, Who.ME, 20))
    with pytest.raises(ValueError, match="revealed has 25 cells, expected 20"):
        ClassicPublic(Team.RED, ClassicStage.GUESSING, Team.RED, grid=Shape(5, 4))
    with pytest.raises(ValueError, match="grid rows 0"):
        Shape(0, 4)
