"""The mat template (hardware/enclosure/mat.py): its geometry in millimetres,
the tiles a paper takes, and the 1:1 scale of every tile."""

from __future__ import annotations

import importlib.util
import itertools
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("enclosure_mat", ROOT / "hardware/enclosure/mat.py")
assert _spec is not None and _spec.loader is not None
mat = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = mat
_spec.loader.exec_module(mat)

SVG = "{http://www.w3.org/2000/svg}"


def of(kind, shapes):
    return [s for s in shapes if s.kind == kind]


def test_the_word_cards_lie_5_by_5_at_the_cards_size():
    shapes = mat.shapes("strips")
    cards = of("card", shapes)
    assert len(cards) == 25
    assert {(c.w, c.h) for c in cards} == {(70.0, 45.0)}
    assert sorted({c.x for c in cards}) == [4.0 + i * 73.0 for i in range(5)]
    assert sorted({c.y for c in cards}) == [4.0 + i * 48.0 for i in range(5)]
    (sheet,) = of("mat", shapes)
    assert (sheet.w, sheet.h) == (370.0, 245.0)  # grid-firmware/README.md "The mat"


def test_a_cards_size_of_ones_own_moves_the_grid():
    cards = of("card", mat.shapes("strips", card=(68.0, 43.0), gap=2.0))
    assert {(c.w, c.h) for c in cards} == {(68.0, 43.0)}
    assert max(c.x for c in cards) == 4.0 + 4 * 70.0


def test_strips_run_under_the_middle_of_each_row_and_column_on_the_firmwares_electrodes():
    shapes = mat.shapes("strips")
    cards = of("card", shapes)
    rows, cols = of("row", shapes), of("col", shapes)
    # main.py's Strips: rows on ELE0-ELE4 (row 0 first), columns on ELE5-ELE9.
    assert [r.label for r in rows] == [f"ELE{i}" for i in range(5)]
    assert [c.label for c in cols] == [f"ELE{i}" for i in range(5, 10)]
    for i, r in enumerate(rows):
        assert r.y + r.h / 2 == cards[i * 5].y + 22.5
        assert 10 <= r.h <= 12
    for i, c in enumerate(cols):
        assert c.x + c.w / 2 == cards[i].x + 35.0
    (ins,) = of("insulation", shapes)
    for strip in rows + cols:  # the layer covers every crossing
        assert ins.x <= strip.x and ins.y <= strip.y
        assert strip.x + strip.w <= ins.x + ins.w and strip.y + strip.h <= ins.y + ins.h
    (exit_,) = of("exit", shapes)
    assert exit_.x + exit_.w == 370.0  # at the +x edge, towards the stand


def test_pads_follow_the_pad_map_of_main_py():
    pads = of("pad", mat.shapes("pads"))
    assert len(pads) == 25
    # Pads({0x5A: 0..11, 0x5B: 12..23, 0x5C: [24]}), cells in reading order.
    assert pads[0].label == "0x5A ELE0"
    assert pads[11].label == "0x5A ELE11"
    assert pads[12].label == "0x5B ELE0"
    assert pads[24].label == "0x5C ELE0"
    assert {(p.w, p.h) for p in pads} == {(40.0, 25.0)}


@pytest.mark.parametrize(("paper", "grid"), [("a4", (2, 2)), ("letter", (2, 2))])
def test_tiles_cover_the_mat_at_one_to_one_with_a_100_mm_scale_bar(paper, grid):
    assert mat.tile_grid(paper) == grid
    svgs = mat.tiles(paper)
    assert len(svgs) == grid[0] * grid[1]
    width, height = mat.PAPERS[paper]
    for svg in svgs:
        root = ET.fromstring(svg)
        # 1 user unit = 1 mm: the page's size in mm equals its viewBox.
        assert root.get("width") == f"{width}mm" and root.get("height") == f"{height}mm"
        assert [float(v) for v in root.get("viewBox").split()] == [0, 0, width, height]
        (bar,) = [e for e in root.iter(f"{SVG}line") if e.get("class") == "scale"]
        assert float(bar.get("x2")) - float(bar.get("x1")) == 100.0
        assert root.find(f".//{SVG}clipPath") is not None
    # Together the printable areas cover the whole mat.
    aw, ah = width - 2 * mat.PAGE_MARGIN, height - 2 * mat.PAGE_MARGIN
    assert grid[0] * aw >= 370.0 and grid[1] * ah >= 245.0


def test_the_generator_writes_one_file_a_tile(tmp_path, capsys):
    assert mat.main(["--paper", "letter", "--map", "pads", str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("mat-pads-letter-*.svg"))) == 4


@pytest.mark.parametrize(
    ("card", "says"),
    [
        (["-5", "45"], "'-5': a word card's side is 30-120 mm"),
        (["nan", "45"], "'nan': a word card's side is 30-120 mm"),
        (["70", "inf"], "'inf': a word card's side is 30-120 mm"),
        (["7", "4.5"], "'7': a word card's side is 30-120 mm (millimetres, not cm or inches)"),
        (["700", "450"], "'700': a word card's side is 30-120 mm"),
        (["70", "x"], "'x': not a number of millimetres"),
    ],
)
def test_a_card_size_out_of_range_is_one_line_and_writes_nothing(tmp_path, capsys, card, says):
    with pytest.raises(SystemExit) as stop:
        mat.main(["--map", "pads", "--card", *card, str(tmp_path / "out")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument --card: {says}" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("card", "says"),
    [
        (["35", "30"], "--map pads: the 40 x 25 mm pads on 0x5A ELE0 and 0x5A ELE1 overlap on "),
        (["30", "45"], "--map pads: the pad on 0x5A ELE0 leaves the mat on 30 x 45 mm cards"),
    ],
)
def test_pads_that_would_overlap_or_leave_the_mat_are_refused(tmp_path, capsys, card, says):
    with pytest.raises(SystemExit) as stop:
        mat.main(["--map", "pads", "--card", *card, str(tmp_path / "out")])
    assert stop.value.code == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    # The strips fit the same cards; the default cards fit both maps.
    assert mat.misfit("strips", (float(card[0]), float(card[1]))) is None
    assert mat.misfit("pads", mat.CARD) is None


def test_strips_closer_than_their_width_are_refused():
    assert mat.misfit("strips", (70.0, 7.0)) == (
        "--map strips: the 11 mm wide rows on ELE0 and ELE1 overlap on 70 x 7 mm cards "
        "with 3 mm gaps"
    )


def drawn(folder: Path, pattern: str) -> dict[str, list[tuple[float, float, float, float]]]:
    """Every rectangle the SVG tiles in `folder` draw on the mat (the group
    each tile moves onto its page), by class, in millimetres on the paper (a
    user unit's mm from the page's width and viewBox); a rectangle drawn on
    several tiles counts once."""
    found: dict[str, set[tuple[float, float, float, float]]] = {}
    for path in sorted(folder.glob(pattern)):
        root = ET.parse(path).getroot()
        mm = float(root.get("width").removesuffix("mm")) / float(root.get("viewBox").split()[2])
        (moved,) = [
            g for g in root.iter(f"{SVG}g") if (g.get("transform") or "").startswith("translate(")
        ]
        for rect in moved.iter(f"{SVG}rect"):
            box = tuple(round(float(rect.get(k)) * mm, 2) for k in ("x", "y", "width", "height"))
            found.setdefault(rect.get("class"), set()).add(box)
    return {k: sorted(v) for k, v in found.items()}


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_drawn_tiles_show_a_measured_card_at_its_size(tmp_path, paper):
    """Read off the SVG files mat.py writes (not its constants): with a card
    measured at 68.5 x 44 mm, 25 card outlines of that size in mm on the page, 5
    by 5, each row's strip under its cards' middle, each tile's scale bar 100 mm."""
    card = (68.5, 44.0)
    assert mat.main(["--paper", paper, "--card", "68.5", "44", str(tmp_path)]) == 0
    shapes = drawn(tmp_path, f"mat-strips-{paper}-*.svg")
    cards = shapes["card"]
    assert len(cards) == 25
    assert {(w, h) for _, _, w, h in cards} == {card}
    xs = sorted({x for x, _, _, _ in cards})
    ys = sorted({y for _, y, _, _ in cards})
    assert len(xs) == len(ys) == 5
    # side by side, not overlapping, evenly spaced
    pitches = {round(b - a, 2) for a, b in itertools.pairwise(xs)}
    assert len(pitches) == 1 and pitches.pop() > card[0]
    rows = shapes["row"]
    assert len(rows) == 5
    for (_, ry, _, rh), y in zip(sorted(rows, key=lambda r: r[1]), ys, strict=True):
        assert ry + rh / 2 == pytest.approx(y + card[1] / 2, abs=0.01)
    for path in tmp_path.glob("*.svg"):
        root = ET.parse(path).getroot()
        mm = float(root.get("width").removesuffix("mm")) / float(root.get("viewBox").split()[2])
        (bar,) = [e for e in root.iter(f"{SVG}line") if e.get("class") == "scale"]
        assert (float(bar.get("x2")) - float(bar.get("x1"))) * mm == pytest.approx(100.0)


def test_the_drawn_tiles_follow_the_card_not_a_constant(tmp_path):
    """Two measured sizes draw two different grids: the drawing takes the card."""
    mat.main(["--card", "66", "42", str(tmp_path / "a")])
    mat.main(["--card", "72", "47", str(tmp_path / "b")])
    a = drawn(tmp_path / "a", "mat-strips-a4-*.svg")["card"]
    b = drawn(tmp_path / "b", "mat-strips-a4-*.svg")["card"]
    assert {(w, h) for *_, w, h in a} == {(66.0, 42.0)}
    assert {(w, h) for *_, w, h in b} == {(72.0, 47.0)}
