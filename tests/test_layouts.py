"""The screens (keystand.layouts): geometry, the half turn, strings and fonts, goldens.

The half turn is derived from docs/design.md ("Table coordinates": seat B sees
table (r, c) at (4-r, 4-c)), not from the code under test. String fit is
measured with the font's own text box on every panel and mounting. Goldens
are PNGs of the main screens of scripted games (tests/golden/scripts), looked
at by a person before they were committed; KEYSTAND_UPDATE_GOLDEN=1 rewrites
them and the contact sheet docs/screens.png.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFont

from keystand.games import Context
from keystand.games.duet import views
from keystand.layouts import (
    EDGES,
    MODELS,
    CampaignLine,
    Counter,
    End,
    Ending,
    HistoryLine,
    Last,
    LastKind,
    Mark,
    MenuItem,
    MenuLine,
    MenuView,
    MissionLabel,
    Neutral,
    NeutralView,
    Repaired,
    SeatId,
    SeatView,
    Stage,
    Who,
    cell_boxes,
    languages,
    panel,
    render,
    render_with_boxes,
    text_slots,
)
from keystand.layouts import end as end_screen
from keystand.layouts import menu as menu_screen
from keystand.layouts import play as play_screen
from keystand.layouts.cells import CellLook, Metrics, draw_cell
from keystand.layouts.fonts import FONT_DIR, FONT_FILE, codepoints, font
from keystand.layouts.i18n import STRINGS_DIR, mission_forms, slot, strings
from keystand.layouts.legibility import stroke_px
from keystand.layouts.text import TextBox, draw_text, fits, wrap
from keystand.layouts.text import width as text_width
from keystand.layouts.view import HINTS
from keystand.rules import Card, Mission, Seat
from keystand.rules.duet import Duet
from keystand.rules.mission import MAX_TURNS, NAMED
from keystand.script import parse_script

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
SCRIPTS = GOLDEN / "scripts"
SHEET = ROOT / "docs" / "screens.png"
UPDATE = os.environ.get("KEYSTAND_UPDATE_GOLDEN") == "1"

ROTATIONS = (0, 90, 180, 270)
ALL_MOUNTS = [(m, r) for m in MODELS for r in ROTATIONS]
# Vendor frames (EPD_WIDTH x EPD_HEIGHT of each Waveshare module) and the issue's
# landscape sizes.
LANDSCAPE = {
    "epd2in13_V4": (250, 122),
    "epd2in7_V2": (264, 176),
    "epd2in9_V2": (296, 128),
    "epd4in2_V2": (400, 300),
    "epd4in26": (800, 480),
}

G, X, B = Mark.AGENT, Mark.ASSASSIN, Mark.BYSTANDER
SIDE = tuple({"G": G, "X": X, ".": B}[c] for c in "...GX...X.G.X.GG.GG..GGG.")


def view(**kw: object) -> SeatView:
    base: dict[str, object] = dict(
        seat=SeatId.A,
        side=SIDE,
        stage=Stage.GUESSING,
        clue_giver=Who.PARTNER,
        guesser=Who.ME,
        counters=(Counter("turns", 7), Counter("mistakes", 5)),
    )
    base.update(kw)
    return SeatView(**base)  # type: ignore[arg-type]


def black_bbox(image: Image.Image) -> tuple[int, int, int, int] | None:
    """The box around every black pixel (None: all white)."""
    return ImageChops.invert(image.convert("L")).getbbox()


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


def half_turn(box: tuple[int, ...], around: tuple[int, int, int, int]) -> tuple[int, ...]:
    """`box` turned half a turn inside `around` (both x1, y1 exclusive)."""
    x0, y0, x1, y1 = box
    ax0, ay0, ax1, ay1 = around
    return (ax0 + ax1 - x1, ay0 + ay1 - y1, ax0 + ax1 - x0, ay0 + ay1 - y0)


def union(boxes: dict[int, tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    return (
        min(b[0] for b in boxes.values()),
        min(b[1] for b in boxes.values()),
        max(b[2] for b in boxes.values()),
        max(b[3] for b in boxes.values()),
    )


# ----- the package's boundary ---------------------------------------------------------


def test_layouts_import_nothing_of_keystand():
    """docs/design.md "Layout": layouts define the seat view they draw and import nothing
    of keystand (no rules, no views): only the standard library, Pillow, themselves,
    and the leaves that import nothing of keystand: the grid type (keystand.grid),
    the error root (keystand.errors) and the panel records (keystand.panel_models)."""
    import ast
    import sys

    allowed = set(sys.stdlib_module_names) | {"PIL", "keystand.panel_models"}
    for path in (ROOT / "layouts").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level == 2 and node.module in ("grid", "errors"):
                    continue  # a leaf of keystand's that imports nothing
                if node.level:  # relative: must stay inside layouts/
                    assert node.level == 1, f"{path.name}: from {'.' * node.level}..."
                    continue
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                assert name in allowed or name.split(".")[0] in allowed, f"{path.name}: {name}"


# ----- panels ------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_panels_are_the_waveshare_models_in_landscape(model):
    assert set(MODELS) == set(LANDSCAPE)
    spec = panel(model)
    assert spec.size == LANDSCAPE[model]
    image = render(view(), spec)
    assert image.mode == "1" and image.size == LANDSCAPE[model]


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_mounting_decides_the_upright_size(model, rotation):
    spec = panel(model, rotation)
    w, h = spec.width, spec.height
    assert spec.size == ((w, h) if rotation in (0, 180) else (h, w))
    for v in (view(), view(stage=Stage.OVER, end=End(Ending.WON, 3, "X", SIDE)), NeutralView()):
        assert render(v, spec).size == spec.size


def test_a_bad_model_rotation_or_language_is_refused():
    with pytest.raises(ValueError, match="epd2in13_V4"):
        panel("epd7in5")
    with pytest.raises(ValueError, match="rotation"):
        panel("epd2in7_V2", 45)
    with pytest.raises(ValueError, match="language"):
        render(view(), panel("epd2in7_V2"), "fr")


# ----- the half turn -----------------------------------------------------------------


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_seat_a_reads_the_table_like_a_page(model, rotation):
    """Row 0 (farthest from seat A) at the top, column 0 at seat A's left."""
    boxes = cell_boxes(view(), panel(model, rotation))
    for i, (x0, y0, x1, y1) in boxes.items():
        r, c = divmod(i, 5)
        if c < 4:
            assert boxes[i + 1][0] >= x1  # the next column is to the right
            assert boxes[i + 1][1] == y0
        if r < 4:
            assert boxes[i + 5][1] >= y1  # the next row is below
            assert boxes[i + 5][0] == x0
        assert x1 - x0 == y1 - y0 > 0  # square cells


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
@pytest.mark.parametrize("stage", [Stage.GUESSING, Stage.OVER])
def test_seat_b_box_is_seat_a_box_after_a_half_turn_by_geometry(model, rotation, stage):
    end = End(Ending.WON, 4, "YAKM-S9ED-D1RD", SIDE) if stage is Stage.OVER else None
    spec = panel(model, rotation)
    a = cell_boxes(view(stage=stage, end=end), spec)
    b = cell_boxes(view(stage=stage, end=end, seat=SeatId.B), spec)
    grid = union(a)
    assert union(b) == grid
    for i in range(25):
        assert b[i] == half_turn(a[i], grid)
        # Table (r, c) is where seat A has (4 - r, 4 - c).
        r, c = divmod(i, 5)
        assert b[i] == a[5 * (4 - r) + (4 - c)]


@pytest.mark.parametrize("model", MODELS)
def test_seat_b_box_is_seat_a_box_after_a_half_turn_by_pixels(model):
    """A lone assassin at cell i lands inside cell i's box, for each seat; and a
    busy grid shows each cell's picture, upright, at the turned place."""
    spec = panel(model)
    blank = tuple([B] * 25)
    for seat in SeatId:
        plain = render(view(side=blank, seat=seat), spec)
        boxes = cell_boxes(view(seat=seat), spec)
        for i in range(25):
            probe = render(view(side=(*blank[:i], X, *blank[i + 1 :]), seat=seat), spec)
            changed = ImageChops.difference(plain.convert("L"), probe.convert("L")).getbbox()
            x0, y0, x1, y1 = boxes[i]
            assert changed is not None
            assert x0 <= changed[0] and y0 <= changed[1]
            assert changed[2] <= x1 and changed[3] <= y1
    busy = view(
        agents=frozenset({3, 10, 15}),
        my_misses=frozenset({1, 8, 21}),
        partner_misses=frozenset({1, 6}),
        last=Last(LastKind.AGENT, Who.ME, 10),
    )
    a_img, a = render_with_boxes(busy, spec)
    b_img, b = render_with_boxes(replace(busy, seat=SeatId.B), spec)
    for i in range(25):
        assert b[i] == half_turn(a[i], union(a))
        # The frame of the last touch lies on its grid line, a pixel over its
        # neighbours' edges and a pixel of white around that (cells.py): a cell's
        # own picture is inside those two pixels.
        assert same(a_img.crop(inset(a[i], 2)), b_img.crop(inset(b[i], 2))), f"cell {i}"
    framed = busy.last.cell
    assert same(a_img.crop(inset(a[framed], -3)), b_img.crop(inset(b[framed], -3)))


def inset(box: tuple[int, int, int, int], by: int = 1) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (x0 + by, y0 + by, x1 - by, y1 - by)


# ----- cells: told apart by shape and pattern ------------------------------------------


def cell_picture(look: CellLook, size: int, stroke: int = 2) -> Image.Image:
    image = Image.new("1", (size, size), 1)
    draw_cell(ImageDraw.Draw(image), (0, 0, size, size), look, stroke)
    return image


# Every cell size any screen uses (the inside of a cell, lines excluded), with the
# panel's thinnest stroke (0.4 mm: legibility.stroke_px).
CELL_SIZES = sorted(
    {(play_screen.layout(panel(m, r)).cell - 1, stroke_px(panel(m))) for m, r in ALL_MOUNTS}
    | {(end_screen.layout(panel(m, r)).cell - 1, stroke_px(panel(m))) for m, r in ALL_MOUNTS}
)


@pytest.mark.parametrize(("size", "stroke"), CELL_SIZES)
def test_every_cell_look_is_a_different_picture(size, stroke):
    """At every cell size any screen uses, every look a cell can have in a game is
    its own picture. A game allows: a word the partner missed is a bystander on
    the seat's side (that side judged it); a word both missed is covered. A cell
    too small to hold a miss apart from the mark (only the end screens of small
    panels: tests/test_marks.py) shows the key, covered or not, and the frame."""
    looks = [
        CellLook(mark, covered, frozenset(missed), framed)
        for mark in Mark
        for covered in (False, True)
        for missed in ((), (Who.ME,), (Who.PARTNER,), (Who.ME, Who.PARTNER))
        for framed in (False, True)
        if (Who.PARTNER not in missed or mark is B) and (len(missed) < 2 or covered)
    ]
    assert len(looks) == 30  # 8 for an agent, 8 for an assassin, 14 for a bystander
    pictures = {cell_picture(look, size, stroke).tobytes() for look in looks}
    holds = Metrics(size, stroke).holds_misses
    assert len(pictures) == (30 if holds else 12)  # 12: mark x covered x framed


@pytest.mark.parametrize(("size", "stroke"), [(s, k) for s, k in CELL_SIZES if s >= 17])
def test_a_miss_wedge_points_to_the_seat_that_guessed(size, stroke):
    """The viewer sits at the bottom edge of its own screen: its misses sit at the
    cell's bottom and point down, its partner's at the top and point up (the
    token's arrow points from the clue giver to the guesser)."""

    def rows(who: Who) -> list[int]:
        image = cell_picture(CellLook(B, missed_by=frozenset({who})), size, stroke)
        px = image.load()
        widths = [sum(1 for x in range(size) if px[x, y] == 0) for y in range(size)]
        return [y for y in range(size) if widths[y]], widths

    (mine, w_mine), (theirs, w_theirs) = rows(Who.ME), rows(Who.PARTNER)
    assert min(mine) > size // 2 > max(theirs)  # at the guesser's edge of the cell
    assert w_mine[mine[-1]] < w_mine[mine[0]]  # narrowing downward: pointing down
    assert w_theirs[theirs[0]] < w_theirs[theirs[-1]]  # narrowing upward: pointing up


def test_the_three_marks_differ_in_shape_not_only_in_ink():
    """Agent: a round mark; assassin: a square one with a cross; bystander: none.
    Compare the corners of the mark's box: a disc leaves them white."""
    size = 30
    agent, assassin = cell_picture(CellLook(G), size), cell_picture(CellLook(X), size)
    assert black_bbox(cell_picture(CellLook(B), size)) is None
    for image, corner_ink in ((agent, False), (assassin, True)):
        x0, y0, x1, y1 = black_bbox(image)
        px = image.load()
        assert (px[x0, y0] == 0) is corner_ink
        assert (px[x1 - 1, y1 - 1] == 0) is corner_ink
    # The assassin's cross: white pixels on the diagonals inside the black square.
    x0, y0, x1, y1 = black_bbox(assassin)
    c = ((x0 + x1) // 2, (y0 + y1) // 2)
    assert assassin.load()[c] == 1


# ----- strings and fonts ---------------------------------------------------------------

# The meanings a key has only when held (Stand.labels: tests/test_key_labels.py
# checks no other comes up), drawn "Menu (hold)".
HELD_WORDS = ("menu",)
WORST_NUMBERS = ("88", "-8", "25")  # counters are 0..25; a score can be -1
WORST_CODE = "MMMM-WWWW-MMMM"  # the widest letters of the code alphabet
# A classic clue's number as drawn ({n}: the digits are all one width; unlimited is
# "∞") and the guesses its plus one leaves ({left}: 0..10).
WORST_CLUE_NUMBERS = ("8", "\u221e")
WORST_LEFT = "10"


def missions(lang: str) -> list[str]:
    """Every mission as the screens name it in `lang`: each named one with its own
    numbers (a name comes only with them: `Mission.name`), and the widest T-M of
    one's own."""
    names = strings(lang)["mission_name"]
    return [*(f"{names[key]} {NAMED[key]}" for key in names), f"{MAX_TURNS}-{MAX_TURNS}"]


def texts(lang: str) -> list[tuple[str, str, str]]:
    """(slot, key, text) of every string as the screens draw it."""
    out = []
    for table, entries in strings(lang).items():
        for key, text in entries.items():
            if "{mission}" in text:
                out += [
                    (slot(table, key), f"{table}.{key}", text.format(mission=m))
                    for m in missions(lang)
                ]
                continue
            if "{label}" in text:  # a key's label, held: each meaning only a hold has
                out += [
                    (slot(table, key), f"{table}.{key}", text.format(label=entries[name]))
                    for name in HELD_WORDS
                ]
                continue
            if "{n}" in text:  # a classic clue's number, and the guesses it leaves
                out += [
                    (slot(table, key), f"{table}.{key}", text.format(n=n, left=WORST_LEFT))
                    for n in WORST_CLUE_NUMBERS
                ]
                continue
            if table == "mission_name":
                text = f"{text} {NAMED[key]}"
            if "{won}" in text:  # a campaign's row: the widest counts it may show
                text = text.format(won="99+", best=88)
            out.append((slot(table, key), f"{table}.{key}", text))
    out += [("number", "number", n) for n in WORST_NUMBERS]
    # The mission in play under the grid and on the end screen: its shortest
    # name (a box too narrow for "Джакарта 7-7" says "Джакарта"; `mission_forms`).
    names = strings(lang)["mission_name"]
    for key in names:
        short = mission_forms(lang, key, str(NAMED[key]))[-1]
        out.append(("mission", f"mission.{key}", short))
    out.append(("mission", "mission.own", f"{MAX_TURNS}-{MAX_TURNS}"))
    return out


def keyed_mounts() -> list[tuple[str, int, str | None]]:
    """Every mounting, without keys and with them along each edge it has room for."""
    out: list[tuple[str, int, str | None]] = [(m, r, None) for m, r in ALL_MOUNTS]
    for m, r in ALL_MOUNTS:
        for edge in EDGES:
            try:
                panel(m, r, edge)
            except ValueError:
                continue
            out.append((m, r, edge))
    return out


@pytest.mark.parametrize(("model", "rotation", "keys"), keyed_mounts())
def test_every_string_of_every_language_fits_its_box(model, rotation, keys):
    slots = text_slots(panel(model, rotation, keys))
    misfits = []
    for lang in languages():
        for name, key, text in texts(lang):
            if name == "key" and keys is None:
                continue  # no labelled keys beside this panel
            assert name in slots, f"{lang} {key}: no box on the screen for [{name}]"
            for box in slots[name]:
                if not fits(text, box):
                    lines = wrap(text, box.size, box.w)
                    misfits.append(f"{lang} {key} {text!r}: {lines} in {box.w}px x {box.lines}")
    assert not misfits, "\n".join(misfits)


@pytest.mark.parametrize(
    ("model", "keys"),
    [(m, None) for m in MODELS]
    + [("epd2in7_V2", "left"), ("epd4in2_V2", "bottom"), ("epd4in26", "bottom")],
)
def test_drawn_text_stays_inside_its_box(model, keys):
    """The drawing agrees with the measuring: the ink of every string, drawn by the
    renderer's own routine, lies inside the box it was measured against."""
    spec = panel(model, None, keys)
    slots = text_slots(spec)
    for lang in languages():
        for name, key, text in texts(lang):
            for box in slots.get(name, []) if keys is None else slots[name]:
                image = Image.new("1", spec.size, 1)
                draw = ImageDraw.Draw(image)
                draw.fontmode = "1"
                draw_text(draw, text, box, center=True)
                ink = black_bbox(image)
                x0, y0, x1, y1 = box.box
                assert ink is not None, f"{lang} {key}"
                assert x0 <= ink[0] and y0 <= ink[1] and ink[2] <= x1 and ink[3] <= y1, (
                    f"{lang} {key} {text!r}: ink {ink} outside {box.box}"
                )


def test_every_glyph_exists_in_the_font():
    have = codepoints()
    needed = {ch for lang in languages() for _, _, text in texts(lang) for ch in text}
    needed |= set("keystand0123456789ABCDEFGHJKMNPQRSTVWXYZ-")
    missing = sorted(ch for ch in needed if not ch.isspace() and ord(ch) not in have)
    assert not missing, f"not in {FONT_FILE.name}: {missing}"


def test_the_glyph_table_reader_agrees_with_the_font():
    """A character the reader says is missing draws as the 'missing glyph' box, one
    it says is there draws as itself."""
    have = codepoints()

    def glyph(ch: str) -> bytes:
        image = Image.new("1", (40, 40), 1)
        ImageDraw.Draw(image).text((5, 5), ch, font=font(20), fill=0)
        return image.tobytes()

    absent = [ch for ch in "中文字" if ord(ch) not in have]
    assert len(absent) == 3  # DejaVu has no CJK
    notdef = glyph(absent[0])
    assert all(glyph(ch) == notdef for ch in absent[1:])
    for ch in "AäßЖЁщ✓\u2212":
        assert ord(ch) in have
        assert glyph(ch) != notdef


def test_the_font_and_its_licence_ship_with_the_package():
    assert FONT_FILE.parent == FONT_DIR and FONT_FILE.is_file()
    licence = (FONT_DIR / "LICENSE").read_text()
    assert "Bitstream Vera" in licence and "Arev" in licence
    # Not Pillow's bitmap default: a TrueType font with outlines.
    assert isinstance(font(12), ImageFont.FreeTypeFont)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data = pyproject["tool"]["setuptools"]["package-data"]
    assert {"*.ttf", "LICENSE"} <= set(data["keystand.layouts.fonts"])
    assert "*.toml" in data["keystand.layouts.strings"]
    assert any(d.lower().startswith("pillow") for d in pyproject["project"]["dependencies"])


def test_languages_are_the_files_and_each_has_every_string():
    files = sorted(p.stem for p in STRINGS_DIR.glob("*.toml"))
    assert list(languages()) == files
    assert {"en", "de", "ru"} <= set(files)
    reference = strings("en")
    for lang in languages():
        table = strings(lang)
        assert table.keys() == reference.keys(), lang
        for name in reference:
            assert table[name].keys() == reference[name].keys(), f"{lang} [{name}]"
            for key, text in table[name].items():
                assert text.strip(), f"{lang} {name}.{key} is empty"


def test_the_screens_ask_for_exactly_the_strings_there_are():
    """Over every stage, role, last input and announcement, the keys the play screen
    asks for are all in the files, and every string of those tables is asked for."""
    asked: dict[str, set[str]] = {"headline": set(), "sub": set(), "last": set(), "note": set()}
    whos = (None, Who.ME, Who.PARTNER)
    for stage in (Stage.AWAITING_CLUE, Stage.GUESSING, Stage.SUDDEN_DEATH):
        for giver in whos:
            for guesser in whos:
                for me, partner in ((False, False), (True, False), (False, True)):
                    v = view(
                        stage=stage,
                        clue_giver=giver,
                        guesser=guesser,
                        nothing_left_for_me=me,
                        nothing_left_for_partner=partner,
                    )
                    head, sub, _ = play_screen.role(v)
                    asked["headline"].add(head)
                    asked["sub"].add(sub)
                    note = play_screen.note_key(v)
                    if note:
                        asked["note"].add(note)
    for who in (Who.ME, Who.PARTNER):
        asked["note"].add(play_screen.note_key(view(undo_asked=who)))
    asked["note"].add(play_screen.note_key(view(cannot_save=True)))
    asked["note"].add(play_screen.note_key(view(input_lost=True)))
    asked["note"].add(play_screen.note_key(view(partner_panel_failed=True, held=True)))
    failed = play_screen.role(view(partner_panel_failed=True))
    asked["headline"].add(failed[0])
    asked["sub"].add(failed[1])
    asked["note"].add(play_screen.note_key(view(next_mission=MissionLabel("cairo", "9-5"))))
    asked["note"].add("next_mission_short")  # its form under a last input (a shared box)
    for hint in HINTS:
        asked["note"].add(play_screen.note_key(view(hint=hint)))
    for repaired in Repaired:
        asked["note"].add(play_screen.note_key(view(repaired=repaired)))
    for undone in ("clue", "touch", "pass", "penalty"):
        key = play_screen.last_key(view(last=Last(LastKind.UNDO, undone=undone)))
        assert key is not None
        asked["last"].add(key[1])
    for kind in LastKind:
        if kind is LastKind.REJECTED:
            continue
        for by in whos:
            for tokens in (0, 1, 2):
                key = play_screen.last_key(view(last=Last(kind, by, None, tokens)))
                assert key is not None and key[0] == "last"
                asked["last"].add(key[1])
    for lang in languages():
        table = strings(lang)
        for name, keys in asked.items():
            assert keys == set(table[name]), f"{lang} [{name}]"


def test_wrap_breaks_at_spaces_and_after_hyphens():
    from keystand.layouts.text import width

    assert wrap("one two three", 12, 10_000) == ["one two three"]
    assert wrap("one two three", 12, 1) == ["one", "two", "three"]
    text = "card YAKM-S9ED-D1RD"
    for w in range(20, 140, 7):
        lines = wrap(text, 10, w)
        # Nothing lost: the lines joined at their breaks give the text back.
        joined = lines[0]
        for line in lines[1:]:
            joined += line if joined.endswith("-") else " " + line
        assert joined == text
        for k, line in enumerate(lines):
            pieces = line.replace("-", "- ").split()
            assert width(line, 10) <= w or len(pieces) == 1  # only a lone piece overflows
            if k + 1 < len(lines):  # greedy: the next piece did not fit on this line
                nxt = lines[k + 1].replace("-", "- ").split()[0].rstrip()
                sep = "" if line.endswith("-") else " "
                assert width(line + sep + nxt, 10) > w
    box = TextBox(0, 0, 40, 12, 1)
    assert not fits("Zurückgenommen", box)  # one word wider than the box never fits
    assert fits("ab", box)


# ----- layouts: everything on the screen, nothing on top of anything -------------------


def inside(inner: tuple[int, ...], outer: tuple[int, ...]) -> bool:
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def disjoint(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_play_screen_has_room_for_everything(model, rotation):
    spec = panel(model, rotation)
    canvas = (0, 0, *spec.size)
    lay = play_screen.layout(spec)
    grid = union(cell_boxes(view(), spec))
    frame = (grid[0] - 2, grid[1] - 2, grid[2] + 2, grid[3] + 2)  # the grid's lines
    assert inside(frame, canvas)
    blocks = lay.blocks()
    for k, block in enumerate(blocks):
        assert inside(block, lay.status) and inside(block, canvas), block
        assert disjoint(block, frame)
        for other in blocks[k + 1 :]:
            assert disjoint(block, other), (block, other)
    # The grid is as big as the panel allows next to a column of words: at least
    # 70% of the short side.
    assert grid[2] - grid[0] >= 0.7 * min(spec.size)


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_end_screen_has_room_for_everything(model, rotation):
    spec = panel(model, rotation)
    canvas = (0, 0, *spec.size)
    lay = end_screen.layout(spec)
    side = 5 * lay.cell + 1
    grids = [(x - 1, y - 1, x + side + 1, y + side + 1) for x, y in lay.grids]
    texts_ = [lay.title.box, lay.reason.box, lay.score.box, *(c.box for c in lay.captions)]
    texts_.append(lay.code.box)
    assert lay.mission is not None
    texts_.append(lay.mission.box)
    blocks = [*grids, *texts_]
    for k, block in enumerate(blocks):
        assert inside(block, canvas), block
        for other in blocks[k + 1 :]:
            assert disjoint(block, other), (block, other)
    assert lay.cell >= 10


# ----- what the screens say --------------------------------------------------------------


def test_the_headline_is_inverted_exactly_when_it_is_the_seats_move():
    spec = panel("epd2in9_V2")
    lay = play_screen.layout(spec)
    x0, y0, x1, y1 = lay.bar

    def inverted(v: SeatView) -> bool:
        image = render(v, spec)
        return image.getpixel((x0, y0)) == 0 and image.getpixel((x1 - 1, y1 - 1)) == 0

    assert inverted(view(stage=Stage.GUESSING, clue_giver=Who.PARTNER, guesser=Who.ME))
    assert not inverted(view(stage=Stage.GUESSING, clue_giver=Who.ME, guesser=Who.PARTNER))
    assert inverted(view(stage=Stage.AWAITING_CLUE, clue_giver=Who.ME, guesser=Who.PARTNER))
    assert not inverted(view(stage=Stage.AWAITING_CLUE, clue_giver=Who.PARTNER, guesser=Who.ME))
    assert inverted(view(stage=Stage.AWAITING_CLUE, clue_giver=None, guesser=None))
    assert inverted(view(stage=Stage.SUDDEN_DEATH, clue_giver=None, guesser=None))
    assert not inverted(view(stage=Stage.SUDDEN_DEATH, clue_giver=None, guesser=Who.PARTNER))
    # The partner's screen fails: the headline says so, inverted (this seat acts).
    assert inverted(view(stage=Stage.GUESSING, clue_giver=Who.ME, partner_panel_failed=True))


def test_the_role_lines_name_who_clues_and_who_guesses():
    role = play_screen.role
    en = strings("en")
    assert role(view(stage=Stage.GUESSING, clue_giver=Who.PARTNER, guesser=Who.ME))[:2] == (
        "you_guess",
        "gave_clue_partner",
    )
    assert en["headline"]["you_guess"] == "You guess"
    assert role(view(stage=Stage.AWAITING_CLUE, clue_giver=Who.ME, guesser=Who.PARTNER))[:2] == (
        "your_clue",
        "partner_guesses",
    )
    assert role(view(stage=Stage.SUDDEN_DEATH, clue_giver=None, guesser=Who.ME))[:2] == (
        "sudden_death",
        "you_guess",
    )


def test_a_refusal_the_announcement_and_the_last_input_each_show():
    spec = panel("epd4in2_V2")  # separate boxes for the last input and the announcement
    plain = render(view(), spec)
    agent = render(view(last=Last(LastKind.AGENT, Who.ME, 3)), spec)
    refused = render(view(last=Last(LastKind.REJECTED, cell=3, reject="covered")), spec)
    told = render(view(nothing_left_for_me=True), spec)
    assert len({plain.tobytes(), agent.tobytes(), refused.tobytes(), told.tobytes()}) == 4
    lay = play_screen.layout(spec)
    assert black_bbox(plain.crop(lay.note.box)) is None
    assert black_bbox(told.crop(lay.note.box)) is not None
    # Small panels share one box: a refusal wins over the announcement.
    small = panel("epd2in13_V4")
    both = view(nothing_left_for_me=True, last=Last(LastKind.REJECTED, reject="covered"))
    only_refusal = view(last=Last(LastKind.REJECTED, reject="covered"))
    assert same(render(both, small), render(only_refusal, small))
    # The announcement while it is news, then the inputs after it (a later
    # bystander must not hide under an announcement made turns ago).
    box = play_screen.layout(small).note.box  # the one shared box
    news = view(nothing_left_for_me=True, last=Last(LastKind.AGENT, Who.ME, 3, announced=True))
    only_note = view(nothing_left_for_me=True, last=None)
    assert same(render(news, small).crop(box), render(only_note, small).crop(box))
    later = Last(LastKind.BYSTANDER, Who.ME, 4, tokens=1)
    assert same(
        render(view(nothing_left_for_me=True, last=later), small),
        render(view(nothing_left_for_partner=False, last=later), small),
    )


def test_neutral_pictures_show_no_key_and_no_grid_cells():
    for kind in Neutral:
        image, boxes = render_with_boxes(NeutralView(kind), panel("epd2in7_V2"))
        assert boxes == {}
        assert black_bbox(image) is not None
    assert not same(
        render(NeutralView(Neutral.IDLE), panel("epd2in7_V2")),
        render(NeutralView(Neutral.OFF), panel("epd2in7_V2")),
    )


def test_a_seat_view_refuses_what_it_must_not_carry():
    with pytest.raises(ValueError):
        view(side=SIDE[:24])
    with pytest.raises(ValueError):
        view(stage=Stage.OVER)  # the end screen needs the end
    with pytest.raises(ValueError):
        view(end=End(Ending.WON, 1, "X", SIDE))  # and only the end screen has it
    with pytest.raises(ValueError):
        Last(LastKind.AGENT, reject="covered")
    with pytest.raises(ValueError):
        view(held=True)  # the game waits only for a partner's screen that fails


# ----- the partner's panel fails: every screen of this seat says so -----------------------


def text_alone(spec, text: str, box: TextBox, **how: bool) -> Image.Image:
    """`text` drawn in `box` by the renderer's own routine, on an otherwise white screen."""
    image = Image.new("1", spec.size, 1)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    draw_text(d, text, box, **how)
    return image


def says(shown: Image.Image, spec, text: str, box: TextBox, **how: bool) -> bool:
    """`shown` has `text` in `box`, drawn as the renderer draws it, and nothing else there."""
    return same(shown.crop(box.box), text_alone(spec, text, box, **how).crop(box.box))


def changed_only_inside(a: Image.Image, b: Image.Image, area: tuple[int, ...]) -> bool:
    """`a` and `b` differ, and only inside `area`: nothing else on the screen moved."""
    diff = ImageChops.difference(a.convert("L"), b.convert("L")).getbbox()
    return diff is not None and inside(diff, area)


def inverted_text(spec, text: str, box: TextBox, bar: tuple[int, int, int, int]) -> Image.Image:
    """`text` drawn white on the headline's black bar, alone on a white screen."""
    image = Image.new("1", spec.size, 1)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    x0, y0, x1, y1 = bar
    d.rectangle((x0, y0, x1 - 1, y1 - 1), fill=0)
    draw_text(d, text, box, fill=1, middle=True)
    return image


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_play_screen_says_the_partners_panel_fails(model, rotation):
    """Issue 31, item 7: while the partner's panel fails, this screen names it in
    the headline (inverted: mending it is this seat's move) and says what to check
    under it; the last input keeps its box, on the small panels too, where the
    notice once took the last input's place."""
    spec = panel(model, rotation)
    lay = play_screen.layout(spec)
    found = Last(LastKind.AGENT, Who.ME, 7)
    for lang in languages():
        s = strings(lang)
        healthy = render(view(last=found), spec, lang)
        failed = render(view(partner_panel_failed=True, last=found), spec, lang)
        head = s["headline"]["partner_panel_failed"]
        shown = inverted_text(spec, head, lay.headline, lay.bar).crop(lay.bar)
        assert same(failed.crop(lay.bar), shown), lang
        assert says(failed, spec, s["sub"]["check_cable"], lay.sub), lang
        assert says(failed, spec, s["last"]["agent"], lay.last, middle=True), lang
        assert same(healthy.crop(lay.last_frame), failed.crop(lay.last_frame)), lang
        assert changed_only_inside(healthy, failed, (*lay.bar[:2], *lay.sub.box[2:])), lang


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_play_screen_says_the_game_waits_for_the_partners_panel(model, rotation):
    """Held (the partner's clue is next and its panel fails): "Game waits" under
    the last input where the two share a box (when both fit: the headline already
    says why), in the note's own box elsewhere; the last input stays."""
    spec = panel(model, rotation)
    lay = play_screen.layout(spec)
    ended = Last(LastKind.PASS, Who.ME, tokens=1)
    waiting = dict(stage=Stage.AWAITING_CLUE, clue_giver=Who.PARTNER, guesser=Who.ME)
    for lang in languages():
        s = strings(lang)
        failed = view(**waiting, partner_panel_failed=True, last=ended)
        held = render(replace(failed, held=True), spec, lang)
        last, waits = s["last"]["pass"], s["note"]["game_waits"]
        if lay.shared:
            assert says(held, spec, f"{last}\n{waits}", lay.last, middle=True), lang
        else:
            assert says(held, spec, last, lay.last, middle=True), lang
            assert says(held, spec, waits, lay.note), lang
        where = lay.last_frame if lay.shared else lay.note.box
        assert changed_only_inside(render(failed, spec, lang), held, where), lang


REVEALED = End(Ending.WON, 22, "YAKM-S9ED-D1RD", SIDE)
HELD_END = End(Ending.ASSASSIN, None, None, None)


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_end_screen_says_the_partners_panel_fails_under_the_code(model, rotation):
    """Once the key is shown, the line under the card code says it instead of what
    starts the next game; while the end is held back, under the undo line."""
    spec = panel(model, rotation)
    lay = end_screen.layout(spec)
    head, foot = end_screen.code_boxes(lay.code, lay.code_lines, spec.style.code)
    for lang in languages():
        s = strings(lang)
        notice = s["end_note"]["partner_panel_failed"]
        over = dict(stage=Stage.OVER, clue_giver=None, guesser=None)
        shown = view(**over, end=REVEALED)
        healthy, failed = (
            render(replace(shown, partner_panel_failed=f), spec, lang) for f in (False, True)
        )
        assert says(failed, spec, notice, foot, center=True), lang
        assert says(failed, spec, REVEALED.card_code, head, center=True)
        assert changed_only_inside(healthy, failed, foot.box), lang
        held = view(**over, end=HELD_END)
        healthy, failed = (
            render(replace(held, partner_panel_failed=f), spec, lang) for f in (False, True)
        )
        assert says(failed, spec, notice, foot, center=True), lang
        assert says(failed, spec, s["end_hold"]["undo"], lay.held(lay.code_size)[1], center=True)
        assert changed_only_inside(healthy, failed, lay.place), lang


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_menu_says_the_other_panel_fails_at_its_foot(model, rotation):
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    for lang in languages():
        notice = strings(lang)["menu_note"]["other_panel_failed"]
        for menu in MENUS.values():
            healthy = render(replace(menu, other_panel_failed=False), spec, lang)
            failed = render(replace(menu, other_panel_failed=True), spec, lang)
            assert says(failed, spec, notice, lay.hint, center=True), lang
            assert changed_only_inside(healthy, failed, lay.hint.box), lang


def test_the_failure_notices_are_strings_the_screens_ask_for():
    """Each notice table holds exactly the one notice its screen draws."""
    for lang in languages():
        s = strings(lang)
        assert set(s["end_note"]) == {"partner_panel_failed"}
        assert set(s["menu_note"]) == {"other_panel_failed"}


# ----- goldens ---------------------------------------------------------------------------

CODE = "YAKM-S9ED-D1RD"
# name: (script, mission, seat)
SCENARIOS: dict[str, tuple[str | None, str, Seat]] = {
    "start-A": (None, "cairo", Seat.A),  # a named mission under the grid
    "guessing-A": ("midgame", "9-9", Seat.A),
    "guessing-B": ("midgame", "9-9", Seat.B),
    "announced-A": ("announced", "9-9", Seat.A),
    "sudden-A": ("sudden", "2-1", Seat.A),
    "sudden-B": ("sudden", "2-1", Seat.B),
    "won-A": ("won", "9-9", Seat.A),
    "lost-B": ("lost", "9-9", Seat.B),
    # The word that ended the game is framed and missed: both visible, on every panel.
    "missed-B": ("missed", "1-0", Seat.B),
    "missed-A": ("missed", "1-0", Seat.A),
    # The turn that ended by itself: nothing left for A to find (issue 31, item 3).
    "ended-A": ("ended", "9-9", Seat.A),
    "waiting-B": ("waiting", "9-9", Seat.B),  # A gives the next clue
}
NEUTRALS = {"idle": Neutral.IDLE, "off": Neutral.OFF}
MENU_LINES = (  # Duet's entries, in its order (games/duet: menu_items)
    MenuLine(MenuItem.CLOSE),
    MenuLine(MenuItem.NEW_GAME),
    MenuLine(MenuItem.PENALTY),
    MenuLine(MenuItem.MISSION, value_text="9-5"),
    MenuLine(MenuItem.ORDER, "strict"),
    MenuLine(MenuItem.FIRST_CLUE, "first_either"),
    MenuLine(MenuItem.CAMPAIGN),
    MenuLine(MenuItem.NEW_CAMPAIGN),
    MenuLine(MenuItem.LANGUAGE, "lang_en"),
    MenuLine(MenuItem.HISTORY),
    MenuLine(MenuItem.GAME, "game_duet"),
)
MENUS = {
    "menu": MenuView(MENU_LINES, 3),
    "menu-history": MenuView(
        MENU_LINES,
        MENU_LINES.index(MenuLine(MenuItem.HISTORY)),
        history=(
            HistoryLine("11-21", "9-9", "won", 22),
            HistoryLine("11-20", "9-5", "lost", None),
            HistoryLine("11-20", "9-9", "abandoned", None),
        ),
    ),
}
MENUS["menu-panel-failed"] = replace(MENUS["menu"], other_panel_failed=True)
MENUS["menu-campaign"] = MenuView(
    MENU_LINES,
    0,
    campaign=(
        CampaignLine((None, "9-9"), 3, 22),
        CampaignLine(("moscow", "8-8"), 1, 14),
        CampaignLine(("cairo", "9-5"), 2, 9),
        CampaignLine((None, "12-3"), 1, 0),
    ),
)
# A scenario's screen while the other seat asks to undo: (scenario, seat asking).
UNDO_ASKED = {"undo-asked-B": ("guessing-B", Seat.A)}
# A game's end while the key is still held back (both seats may undo).
HELD = {"lost-held-B": "lost-B"}
# A screen while the partner's panel fails (it cannot say so; this one does).
# While guessing the game goes on; with the failed seat's clue next it holds (issue 31, item 7).
PANEL_FAILED = {
    "won-A-panel-failed": "won-A",
    "lost-held-B-panel-failed": "lost-held-B",
    "guessing-A-panel-failed": "guessing-A",
    "held-B-panel-failed": "waiting-B",
}
# (screen, language, portrait): the main screens in English, two in German and
# Russian, one with the panel mounted on end.
GOLDENS = [
    *(
        (name, "en", False)
        for name in [*SCENARIOS, *NEUTRALS, *MENUS, *UNDO_ASKED, *HELD, *PANEL_FAILED]
    ),
    ("menu", "ru", False),
    *((name, lang, False) for name in ("guessing-A", "won-A") for lang in ("de", "ru")),
    ("guessing-A", "en", True),
    *(("held-B-panel-failed", lang, False) for lang in ("de", "ru")),
    ("held-B-panel-failed", "en", True),
]


def scenario_state(name: str) -> tuple[Duet, Seat]:
    script, mission, seat = SCENARIOS[name]
    state = Duet.start(Card.from_code(CODE), Mission.parse(mission))
    if script:
        for step in parse_script((SCRIPTS / f"{script}.txt").read_text()):
            state, _ = state.apply(step.event)
    return state, seat


def golden_views(seat: Seat) -> list[SeatView]:
    return [views.for_seat(scenario_state(name)[0], seat) for name in SCENARIOS]


def golden_image(model: str, name: str, lang: str, portrait: bool) -> Image.Image:
    spec = panel(model)
    if portrait:
        spec = panel(model, 0 if spec.rotation else 90)
    if name in NEUTRALS:
        return render(NeutralView(NEUTRALS[name]), spec, lang)
    if name in MENUS:
        return render(MENUS[name], spec, lang)
    failed = name in PANEL_FAILED
    name = PANEL_FAILED.get(name, name)
    asking = None
    reveal = name not in HELD
    if name in UNDO_ASKED:
        name, asking = UNDO_ASKED[name]
    name = HELD.get(name, name)
    state, seat = scenario_state(name)
    view = views.for_seat(
        state, seat, Context(undo_asked=asking, reveal=reveal, partner_panel_failed=failed)
    )
    return render(view, spec, lang)


def golden_path(model: str, name: str, lang: str, portrait: bool) -> Path:
    suffix = ("" if lang == "en" else f"-{lang}") + ("-portrait" if portrait else "")
    return GOLDEN / model / f"{name}{suffix}.png"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize(("name", "lang", "portrait"), GOLDENS)
def test_golden(model, name, lang, portrait, tmp_path):
    image = golden_image(model, name, lang, portrait)
    path = golden_path(model, name, lang, portrait)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path, optimize=True)
    assert path.is_file(), f"no golden {path}: run with KEYSTAND_UPDATE_GOLDEN=1 and look at it"
    with Image.open(path) as stored:
        stored.load()
    if not same(image, stored):
        got = tmp_path / path.name
        image.save(got)
        raise AssertionError(f"{path.relative_to(ROOT)} differs; this run drew {got}")


def contact_sheet() -> Image.Image:
    """Every golden, grouped by panel, at its real pixel size, with a caption each."""
    label = font(12)
    title = font(16)
    gap, pad = 10, 16
    sections = []
    for model in MODELS:
        tiles = []
        for name, lang, portrait in GOLDENS:
            with Image.open(golden_path(model, name, lang, portrait)) as im:
                im.load()
            caption = (
                name + ("" if lang == "en" else f" ({lang})") + (" portrait" if portrait else "")
            )
            tiles.append((caption, im.convert("L")))
        sections.append((model, tiles))
    per_row = 6
    width = 0
    height = 0
    plans = []
    for model, tiles in sections:
        rows = [tiles[k : k + per_row] for k in range(0, len(tiles), per_row)]
        row_h = [max(im.height for _, im in row) + 18 for row in rows]
        row_w = [sum(im.width + gap for _, im in row) for row in rows]
        plans.append((model, rows, row_h))
        width = max(width, *row_w)
        height += 26 + sum(row_h) + gap * len(rows) + pad
    sheet = Image.new("L", (width + 2 * pad, height + pad), 200)
    draw = ImageDraw.Draw(sheet)
    draw.fontmode = "1"
    y = pad
    for model, rows, row_h in plans:
        spec = panel(model)
        draw.text(
            (pad, y),
            f"{model}  {spec.diagonal}  {spec.size[0]}x{spec.size[1]}",
            font=title,
            fill=0,
        )
        y += 26
        for row, h in zip(rows, row_h, strict=True):
            x = pad
            for caption, im in row:
                draw.text((x, y), caption, font=label, fill=0)
                sheet.paste(im, (x, y + 16))
                x += im.width + gap
            y += h + gap
        y += pad
    return sheet.convert("P", palette=Image.Palette.ADAPTIVE, colors=4)


def test_contact_sheet_is_current():
    """docs/screens.png shows exactly the goldens (redrawn with them)."""
    sheet = contact_sheet()
    if UPDATE:
        SHEET.parent.mkdir(parents=True, exist_ok=True)
        sheet.save(SHEET, optimize=True)
    with Image.open(SHEET) as stored:
        stored.load()
    assert same(sheet.convert("L"), stored.convert("L")), "docs/screens.png is out of date"


@pytest.mark.parametrize("model", ["epd2in13_V4", "epd2in7_V2"])
@pytest.mark.parametrize("fault", ["cannot_save", "input_lost"])
def test_a_refusal_never_hides_a_fault_that_stops_input(model: str, fault: str):
    """On panels with one shared box, "Finish the turn first" must not replace
    "Cannot save" (or "input lost"): a later touch would then not be taken and
    nothing on the screen would say so."""
    spec = panel(model)
    lay = play_screen.layout(spec)
    assert lay.shared
    box = lay.last_frame
    refused = Last(LastKind.REJECTED, cell=3, reject="covered")
    with_refusal = render(view(last=refused, **{fault: True}), spec)
    fault_only = render(view(**{fault: True}), spec)
    assert same(with_refusal.crop(box), fault_only.crop(box))
    assert black_bbox(fault_only.crop(lay.last.box)) is not None


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_end_screen_has_the_code_and_the_next_step_each_in_its_lines(model, rotation):
    """Once the key is shown, the code slot holds the card code and, on its own
    line, what starts the next game (or what a key pressed would do)."""
    spec = panel(model, rotation)
    lay = end_screen.layout(spec)
    code_box, after = end_screen.code_boxes(lay.code, lay.code_lines, spec.style.code)
    assert fits(WORST_CODE, code_box), f"{WORST_CODE!r} in {code_box}"
    for lang in languages():
        s = strings(lang)
        for key, text in s["end_hint"].items():
            assert fits(text, after), f"{lang} end_hint.{key} {text!r} in {after.w}px"


@pytest.mark.parametrize("model", MODELS)
def test_the_next_games_mission_never_hides_the_last_input(model):
    """Chosen mid-game, the next mission is news for later: where the last input
    and the notes share one box, the last input keeps it and the mission goes
    under it (issue 22: it once vanished there); elsewhere each has its own box."""
    p = panel(model, 90)
    found = Last(LastKind.AGENT, Who.ME, 7)
    plain = render(view(last=found), p, "en").tobytes()
    noted = render(view(last=found, next_mission=MissionLabel("cairo", "9-5")), p, "en").tobytes()
    alone = render(view(next_mission=MissionLabel("cairo", "9-5")), p, "en").tobytes()
    assert alone != render(view(), p, "en").tobytes()  # with nothing else to say, it shows
    assert noted != plain and noted != alone  # both show


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_a_mission_set_by_hand_shows_its_numbers_whole(model, rotation):
    """Editing T-M starts from the mission chosen, perhaps a named one: the value
    reads "turns 6-6", not "turns Singapore" cut off."""
    p = panel(model, rotation)
    index = list(MenuItem).index(MenuItem.MISSION)

    def menu(mission: tuple[str | None, str]) -> bytes:
        lines = tuple(
            MenuLine(item, named=mission if item is MenuItem.MISSION else None) for item in MenuItem
        )
        return render(MenuView(lines, index, "turns"), p, "ru").tobytes()

    assert menu(("singapore", "6-6")) == menu((None, "6-6"))


@pytest.mark.parametrize("model", MODELS)
def test_a_counter_is_named_by_a_word_or_by_its_own_sign(model):
    """Where a word would be too small to read (`Style.counter_signs`), each counter
    has a sign instead: the turns' hourglass and the mistakes' cross, two different
    pictures, the same on every screen and in every language."""
    spec = panel(model)
    lay = play_screen.layout(spec)
    signs = spec.style.counter_signs
    assert signs == (model in ("epd2in7_V2", "epd2in13_V4"))
    crops = {}
    for lang in languages():
        image = render(view(counters=(Counter("turns", 7), Counter("mistakes", 3))), spec, lang)
        for c in lay.counters:
            assert (c.sign is not None) is signs and (c.label is None) is signs
            if c.sign is not None:
                crops.setdefault(c.sign, []).append(image.crop(c.sign).tobytes())
    if signs:
        turns, mistakes = (crops[c.sign] for c in lay.counters if c.sign is not None)
        assert len(set(turns)) == 1 and len(set(mistakes)) == 1  # not a word: one picture
        assert turns[0] != mistakes[0]
        ink = [black_bbox(render(view(), spec).crop(c.sign)) for c in lay.counters]
        assert all(box is not None for box in ink)


def test_right_aligned_text_ends_at_its_boxs_right_edge():
    """A menu's value on a panel mounted on end stands under its label, to the right."""
    box = TextBox(10, 5, 120, 14)
    image = Image.new("1", (150, 30), 1)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    draw_text(draw, "Cairo 9-5", box, right=True)
    ink = black_bbox(image)
    assert ink is not None and box.x + box.w - 1 <= ink[2] <= box.x + box.w and ink[0] > box.x + 30


def says_on_black(shown: Image.Image, spec, text: str, box: TextBox, **how: bool) -> bool:
    """`shown` has `text` in `box` in white on black (the title bar), and nothing else."""
    white_on_black = ImageChops.invert(shown.convert("L")).convert("1")
    return says(white_on_black, spec, text, box, **how)


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_an_entry_chosen_for_the_next_game_is_labelled_so(model, rotation):
    """Mission, clue order and first clue chosen during a game apply to the next:
    each says "Next game" where its name goes, its value as ever; nothing else moves."""
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    for item in (MenuItem.MISSION, MenuItem.ORDER, MenuItem.FIRST_CLUE):
        at = next(k for k, line in enumerate(MENU_LINES) if line.item is item)
        marked = tuple(replace(line, next_game=k == at) for k, line in enumerate(MENU_LINES))
        # The entry shown, not chosen: the window put where it is one of the rows.
        selected = at - 1
        first = menu_screen._window(selected, len(MENU_LINES), len(lay.rows))
        row = lay.rows[at - first]
        for lang in languages():
            s = strings(lang)
            plain = render(MenuView(MENU_LINES, selected), spec, lang)
            later = render(MenuView(marked, selected), spec, lang)
            assert says(plain, spec, s["menu"][item.value], row), (item, lang)
            assert says(later, spec, s["menu"]["mission_next"], row), (item, lang)
            assert changed_only_inside(plain, later, row.box), (item, lang)


HISTORY = tuple(HistoryLine(f"11-{28 - k // 3:02d}", f"{k + 1}-0", "won", k) for k in range(17))


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_history_draws_a_page_of_games_and_which_page(model, rotation):
    """A page of the history: as many games as the panel has rows, the page's number
    and the pages there are at the title bar's right end (beside the title, never on
    it), the keys' hint at the foot; a page past either end wraps round."""
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    per = len(lay.rows)
    pages = -(-len(HISTORY) // per)
    assert pages > 1
    at = MENU_LINES.index(MenuLine(MenuItem.HISTORY))
    for lang in languages():
        s = strings(lang)
        title = s["menu"]["history"]
        assert lay.title.x + text_width(title, lay.title.size) + 4 < lay.page.x, lang
        assert fits(menu_screen.WIDEST_PAGES, lay.page)
        for page in range(pages):
            view = MenuView(MENU_LINES, at, history=HISTORY, history_page=page)
            shown = render(view, spec, lang)
            games = HISTORY[page * per : (page + 1) * per]
            assert len(games) == min(per, len(HISTORY) - page * per)
            for row, game in zip(lay.rows, games, strict=False):
                assert says(shown, spec, f"{game.date} {game.label}", row), (lang, page)
            assert says_on_black(shown, spec, f"{page + 1}/{pages}", lay.page, right=True)
            assert says(shown, spec, s["menu_hint"]["back"], lay.hint, center=True)
            wrapped = replace(view, history_page=page + pages)
            assert render(wrapped, spec, lang).tobytes() == shown.tobytes()
        last = render(MenuView(MENU_LINES, at, history=HISTORY, history_page=-1), spec, lang)
        again = MenuView(MENU_LINES, at, history=HISTORY, history_page=pages - 1)
        assert last.tobytes() == render(again, spec, lang).tobytes()


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_a_classic_game_in_the_history_is_named_in_the_seats_language(model, rotation):
    """Classic has no mission: its history row names the game, as the menu's Game
    entry does, in each language, within the row (without the date where a narrow
    row has no room for both)."""
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    at = MENU_LINES.index(MenuLine(MenuItem.HISTORY))
    view = MenuView(MENU_LINES, at, history=(HistoryLine("11-28", "classic", "won", None),))
    for lang in languages():
        name = strings(lang)["menu_value"]["game_classic"]
        label = f"11-28 {name}" if fits(f"11-28 {name}", lay.rows[0]) else name  # narrow
        assert fits(label, lay.rows[0]), (lang, name)
        assert says(render(view, spec, lang), spec, label, lay.rows[0]), lang


def test_a_counter_the_screens_have_no_word_for_is_refused_in_one_line():
    """A game's counter names a word of the strings' [counter] table; another
    would end a render in a KeyError deep in the layout (the extension trial)."""
    from keystand.layouts.view import Counter

    assert Counter("agents", 3).key == "agents"
    with pytest.raises(ValueError, match=r"counter 'lives': the screens have words for turns"):
        Counter("lives", 3)
