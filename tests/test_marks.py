"""Marks for 70 cm, measured (issue 31, item 4): from the rendered frames, never
from the layouts' parameters.

Every screen with a grid (Duet's play screen, its end screen held and revealed,
classic's two screens) is drawn for every frame of the scripted games of
tests/golden/scripts and tests/golden/classic/scripts, from both seats, and for
views made to show every look a cell can have (framed and not), on every panel
and mounting. In each frame, each cell is read from its pixels (tests/marks.py):

- every stroke of ink, and every white stroke inside a mark, is at least 0.4 mm
  on the real panel (`MIN_MM` over the panel's pixel, from its active area:
  `panels.pixel_mm`; 3 pixels on the 2.13", 2 on the others);
- the marks in a cell are as many separate pieces of ink as the view says it
  shows (the key's mark, each miss): two marks that touch are one piece, and
  fail; no mark touches the grid line or the frame;
- the cell touched last has a whole frame at its edge, with white inside it
  (a frame, never an inversion: the count above finds its own marks whole);
- the counters' signs (Duet's, where a word would be too small; classic's team
  symbols and hourglass, inverted or not): strokes of 0.4 mm, and at least
  that much white between the sign and the number;
- the mistakes' sign does not look like the assassin's mark (a square, a cross).

Each rule is shown able to fail: the same measuring run on a drawing broken on
purpose (a 1-pixel stroke, marks without a gap, marks against the line, an
inverted last touch, a sign against its number, a cross for mistakes) finds it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import marks
import pytest
from PIL import Image, ImageDraw

from keystand import games
from keystand.games.duet.settings import MISSION
from keystand.layouts import (
    MODELS,
    Counter,
    End,
    Ending,
    Last,
    LastKind,
    Mark,
    SeatId,
    SeatView,
    Stage,
    Who,
    cells,
    classic,
    end,
    panel,
    play,
    render_with_boxes,
)
from keystand.layouts.geometry import grid_boxes
from keystand.layouts.panels import ROTATIONS, PanelSpec, pixel_mm
from keystand.rules import Mission, Seat

GOLDEN = Path(__file__).resolve().parent / "golden"
DUET_SCRIPTS = {  # script: mission (tests/test_layouts.py SCENARIOS)
    "midgame": "9-9",
    "announced": "9-9",
    "sudden": "2-1",
    "won": "9-9",
    "lost": "9-9",
    "missed": "1-0",
}
DUET_CODE = "YAKM-S9ED-D1RD"
CLASSIC_SCRIPTS = ("mid", "penalty", "end")
CLASSIC_CODE = "9CY-EPF-ZXQ"
MOUNTS = [(m, r) for m in MODELS for r in ROTATIONS]
# The shipped builds' screens beside their keys' labels (tests/test_key_screens.py):
# measured on the area beside the strip, which is what they draw there.
KEYED = [
    ("epd2in7_V2", 90, "left"),
    ("epd2in9_V2", 90, "bottom"),
    ("epd4in2_V2", 0, "bottom"),
    ("epd4in26", 0, "bottom"),
]

G, X, B = Mark.AGENT, Mark.ASSASSIN, Mark.BYSTANDER

# The end screens whose grids show no misses, (model, landscape): their cells are
# too small for a miss and the key's mark apart with 0.4 mm strokes (the 2.13"'s
# 9-10 pixels inside at 3-pixel strokes, the 2.9" upright's 12 at 2-pixel ones;
# docs/screens.md "The end screen"). The play screen showed the misses; the end
# screen shows the key.
# Beside their keys' labels the 2.7"'s and the 2.9"'s end grids have 11 and 10
# pixels inside: no misses (the partner's side, the covers and the last touch show).
END_WITHOUT_MISSES = {
    ("epd2in13_V4", True, False),
    ("epd2in13_V4", False, False),
    ("epd2in9_V2", False, False),
    ("epd2in7_V2", True, True),
    ("epd2in9_V2", True, True),
}


# Two silhouettes this alike (shared ink over joint ink, each scaled to a square)
# read as one sign: the old mistakes' cross against a cross measures 0.59-0.64,
# the miss wedge against the assassin's square or a cross 0.36.
ALIKE = 0.5


def k_of(model: str) -> int:
    """The panel's 0.4 mm, in whole pixels."""
    return marks.min_stroke(pixel_mm(model))


# ----- the frames ----------------------------------------------------------------------


@functools.cache
def duet_states() -> list[tuple[str, object]]:
    """(name, state) of every step of the scripted Duet games."""
    game = games.get("duet")
    out = []
    for script, mission in DUET_SCRIPTS.items():
        state = game.start(
            game.card_from_code(DUET_CODE), games.Options().with_(MISSION, Mission.parse(mission))
        )
        out.append((f"{script}/0", state))
        text = (GOLDEN / "scripts" / f"{script}.txt").read_text()
        for n, step in enumerate(game.script(text), 1):
            state, _ = state.apply(step.event)
            out.append((f"{script}/{n}", state))
    return out


def duet_views() -> Iterator[tuple[str, SeatView]]:
    game = games.get("duet")
    for name, state in duet_states():
        for seat in (Seat.A, Seat.B):
            view = game.view(state, seat, games.Context())
            yield f"{name} {seat.name}", view
            if view.stage is Stage.OVER:  # the end held back a few seconds, too
                yield (
                    f"{name} {seat.name} held",
                    game.view(state, seat, games.Context(reveal=False)),
                )


def look_views() -> Iterator[tuple[str, SeatView]]:
    """Views that show every look a cell can have in a game, each kind framed once."""
    side = tuple({"G": G, "X": X, ".": B}[c] for c in "GGGGGGGGXXXXXXX...........")[:25]
    # Cells 0-7 agents, 8-14 assassins, 15-24 bystanders: each combination of
    # covered and missed a game allows (a word the partner missed is a bystander
    # on the seat's side; one both missed is covered).
    agents = frozenset({1, 3, 9, 11, 16, 17})
    mine = frozenset({2, 3, 10, 11, 18, 20, 22})
    theirs = frozenset({19, 20, 21, 22})
    # The partner's side: a word this seat missed is a bystander there (that side
    # judged it); the partner's own misses may be anything on it.
    partner = tuple(B if i in mine else m for i, m in enumerate(reversed(side)))
    for framed in (None, 2, 3, 10, 11, 18, 20, 22, 24, 0):
        last = None if framed is None else Last(LastKind.BYSTANDER, Who.ME, framed)
        base = dict(
            seat=SeatId.A,
            side=side,
            agents=agents,
            my_misses=mine,
            partner_misses=theirs,
            counters=(Counter("turns", 11), Counter("mistakes", 8)),
            last=last,
        )
        for seat in (SeatId.A, SeatId.B):
            base["seat"] = seat
            yield (
                f"looks framed {framed} {seat.name}",
                SeatView(stage=Stage.GUESSING, guesser=Who.ME, **base),  # type: ignore[arg-type]
            )
            yield (
                f"looks end framed {framed} {seat.name}",
                SeatView(  # type: ignore[arg-type]
                    stage=Stage.OVER, end=End(Ending.ASSASSIN, None, DUET_CODE, partner), **base
                ),
            )


@functools.cache
def classic_states() -> list[tuple[str, object]]:
    game = games.get("classic")
    out = []
    for script in CLASSIC_SCRIPTS:
        state = game.start(game.card_from_code(CLASSIC_CODE))
        out.append((f"{script}/0", state))
        text = (GOLDEN / "classic" / "scripts" / f"{script}.txt").read_text()
        for n, step in enumerate(game.script(text), 1):
            state, _ = state.apply(step.event)
            out.append((f"{script}/{n}", state))
    return out


def classic_views() -> Iterator[tuple[str, object]]:
    game = games.get("classic")
    for name, state in classic_states():
        for seat_name, seat in game.seat_names:
            for timer in (None, 75, 4):  # no timer, a timer, the last seconds (inverted)
                context = games.Context(timer=timer if game.playing(state) else None)
                yield f"{name} {seat_name} timer {timer}", game.view(state, seat, context)


# ----- reading one frame ----------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """One grid of a frame: each cell's box and what the view says it shows."""

    boxes: dict[int, marks.Box]
    expect: dict[int, marks.Expect]
    covered: frozenset[int]
    framed: int | None
    end: bool = False  # an end screen's grid
    kinds: dict[int, str] | None = None  # each cell's key mark: agent, assassin, ...
    missed: frozenset[int] = frozenset()  # cells with a miss


def duet_grids(view: SeatView, spec: PanelSpec, boxes: dict[int, marks.Box]) -> list[Grid]:
    covered = view.agents | (view.my_misses & view.partner_misses)
    framed = view.last.cell if view.last is not None else None
    sides = [(view.side, boxes)]
    over = view.end is not None
    if view.end is not None and view.end.partner_side is not None:
        # The partner's grid: its place from the end screen's geometry (as the
        # seat's own grid's comes from `render_with_boxes`).
        lay = end.layout(spec, view.grid)
        x, y = lay.grids[1]
        sides.append((view.end.partner_side, grid_boxes(view.seat, x, y, lay.cell, view.grid)))
    misses_shown = not (over and (spec.model, spec.landscape, spec.labelled) in END_WITHOUT_MISSES)
    out = []
    for side, where in sides:
        expect = {}
        for i, mark in enumerate(side):
            missed = (i in view.my_misses) + (i in view.partner_misses)
            count = (mark is not B) + (missed if misses_shown else 0)
            expect[i] = marks.Expect(count, i in covered, i == framed)
        kinds = {i: m.value for i, m in enumerate(side)}
        missed = view.my_misses | view.partner_misses
        out.append(Grid(where, expect, covered, framed, over, kinds, missed))
    return out


def classic_grids(view: object, boxes: dict[int, marks.Box]) -> list[Grid]:
    from keystand.layouts import Colour

    public = view.public  # type: ignore[attr-defined]
    # The operatives see the key too once the end is final (their view's `key`).
    key = view.key  # type: ignore[attr-defined]
    colours = key if key is not None else public.revealed
    covered = frozenset(i for i, c in enumerate(public.revealed) if c is not None)
    framed = public.last.cell if public.last is not None else None
    expect = {
        i: marks.Expect(int(c is not None and c is not Colour.BYSTANDER), i in covered, i == framed)
        for i, c in enumerate(colours)
    }
    kinds = {i: "bystander" if c is None else c.value for i, c in enumerate(colours)}
    return [Grid(boxes, expect, covered, framed, False, kinds)]


@dataclass(frozen=True)
class Sign:
    name: str
    counter: marks.Box
    box: marks.Box
    number: marks.Box


def duet_signs(view: SeatView, spec: PanelSpec) -> list[Sign]:
    if view.stage is Stage.OVER:
        return []
    lay = play.layout(spec, view.grid)
    return [
        Sign(key, c.box, c.sign, c.number.box)
        for c, key in zip(lay.counters, ("turns", "mistakes"), strict=True)
        if c.sign is not None
    ]


def classic_signs(view: object, spec: PanelSpec) -> list[Sign]:
    public = view.public  # type: ignore[attr-defined]
    lay = classic.layout(spec, timed=public.timer is not None, grid=public.grid)
    out = [
        Sign(f"team {t}", tally.box, tally.sign, tally.text.box)
        for t, tally in zip("rb", lay.teams, strict=True)
    ]
    if lay.timer is not None and public.timer is not None:
        out.append(Sign("timer", lay.timer.box, lay.timer.sign, lay.timer.text.box))
    return out


def frames(spec: PanelSpec) -> Iterator[tuple[str, Image.Image, list[Grid], list[Sign]]]:
    """Every frame measured on `spec`: its name, its pixels, its grids and signs."""
    for name, view in [*duet_views(), *look_views()]:
        image, boxes = render_with_boxes(view, spec)
        yield name, image, duet_grids(view, spec, boxes), duet_signs(view, spec)
    for name, view in classic_views():
        image, boxes = render_with_boxes(view, spec)  # type: ignore[arg-type]
        yield f"classic {name}", image, classic_grids(view, boxes), classic_signs(view, spec)


def problems(spec: PanelSpec, limit: int = 20) -> list[str]:
    """What the measuring finds wrong on `spec`, over all its frames (the first `limit`)."""
    k = k_of(spec.model)
    found: list[str] = []
    seen: set[bytes] = set()
    for name, image, grids, signs in frames(spec):
        key = image.tobytes()
        if key in seen:  # the same picture again (another language, a mounting half a turn on)
            continue
        seen.add(key)
        for g, grid in enumerate(grids):
            reports = marks.measure_grid(image, grid.boxes, k, grid.covered, grid.framed)
            for i, report in reports.items():
                for p in report.problems(grid.expect[i]):
                    found.append(f"{name} grid {g} cell {i}: {p}")
        for sign in signs:
            for p in marks.measure_sign(image, sign.counter, sign.box, sign.number, k).problems(k):
                found.append(f"{name} sign {sign.name}: {p}")
        if len(found) >= limit:
            break
    return found[:limit]


# ----- the rules, on every frame -----------------------------------------------------


@pytest.mark.parametrize(("model", "rotation", "keys"), [(m, r, None) for m, r in MOUNTS] + KEYED)
def test_every_mark_is_0_4_mm_and_apart_on_every_frame(
    model: str, rotation: int, keys: str | None
) -> None:
    found = problems(panel(model, rotation, keys).screen())
    assert not found, "\n".join(found)


def test_the_frames_cover_every_screen_and_look() -> None:
    """The frames measured include every screen with a grid (Duet's play screen,
    its end held and revealed, both classic screens) and every look a game allows
    (framed and not): a test that measured nothing would pass."""
    spec = panel("epd2in7_V2")
    measured = list(frames(spec))
    names = [name for name, *_ in measured]
    assert any(" held" in n for n in names) and any("classic" in n for n in names)
    assert any("/" in n and not n.startswith("classic") and "held" not in n for n in names)
    looks = {
        (kind, i in grid.missed, e.covered, e.framed)
        for _, _, grids, _ in measured
        for grid in grids
        for i, e in grid.expect.items()
        for kind in [(grid.kinds or {})[i]]
    }
    for kind in ("agent", "assassin", "bystander"):
        for missed in (False, True):
            for covered in (False, True):
                for framed in (False, True):
                    assert (kind, missed, covered, framed) in looks
    assert {"R", "U", "X", "."} <= {kind for kind, *_ in looks}  # classic's colours
    assert len(measured) > 400


@pytest.mark.parametrize("model", MODELS)
def test_the_mistakes_sign_is_not_the_assassins_mark(model: str) -> None:
    """Where the counters have signs, the mistakes' sign looks like neither the
    assassin's square nor a cross (the sign it once was, read as the assassin)."""
    spec = panel(model)
    if not spec.style.counter_signs:
        pytest.skip("words name the counters on this panel")
    assert likeness_to_assassin(spec) < ALIKE


def likeness_to_assassin(spec: PanelSpec) -> float:
    k = k_of(spec.model)
    view = next(v for n, v in duet_views() if v.stage is not Stage.OVER)
    image, _ = render_with_boxes(view, spec)
    sign = next(s for s in duet_signs(view, spec) if s.name == "mistakes")
    ink = marks.measure_sign(image, sign.counter, sign.box, sign.number, k).ink
    shape = marks.silhouette(ink)
    x0, y0, x1, y1 = sign.box
    w, h = x1 - x0, y1 - y0
    square = Image.new("1", (w, h), 1)  # the assassin's mark, as the grid draws it
    cells.draw_cell(ImageDraw.Draw(square), (0, 0, min(w, h), min(w, h)), cells.CellLook(X), k)
    others = [square]
    for width in {k, k + 1, max(k, w // 5)}:  # crosses, as the mistakes' sign once was
        for inset in {0, w // 8}:
            cross = Image.new("1", (w, h), 1)
            d = ImageDraw.Draw(cross)
            d.line((inset, inset, w - 1 - inset, h - 1 - inset), fill=0, width=width)
            d.line((inset, h - 1 - inset, w - 1 - inset, inset), fill=0, width=width)
            others.append(cross)
    return max(
        marks.likeness(shape, marks.silhouette(marks.ink_of(other, (0, 0, w, h))))
        for other in others
    )


@pytest.mark.parametrize(("model", "rotation", "keys"), [(m, r, None) for m, r in MOUNTS] + KEYED)
def test_the_end_grids_drop_misses_only_where_they_cannot_fit(
    model: str, rotation: int, keys: str | None
) -> None:
    """An end grid shows the misses unless its cells cannot hold a miss and a mark
    apart at 0.4 mm (END_WITHOUT_MISSES, measured: test_every_mark_... fails on
    those panels with the misses drawn); the play screen always shows them."""
    spec = panel(model, rotation, keys).screen()
    k = k_of(model)
    play_cell = play.layout(spec).cell - 1
    end_cell = end.layout(spec).cell - 1
    assert cells.Metrics(play_cell, k).holds_misses
    shown = (model, spec.landscape, spec.labelled) not in END_WITHOUT_MISSES
    assert cells.Metrics(end_cell, k).holds_misses is shown


# ----- each rule able to fail --------------------------------------------------------


def broken(
    monkeypatch: pytest.MonkeyPatch, model: str, patch: Callable[[], None], rotation: int = 90
) -> list[str]:
    """The problems found on `model` with a drawing broken by `patch`."""
    cells._ink.cache_clear()
    try:
        patch()
        return problems(panel(model, rotation), limit=200)
    finally:
        monkeypatch.undo()
        cells._ink.cache_clear()


def test_a_hairline_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Marks drawn with 2-pixel strokes on the 2.13" (0.39 mm): thin strokes."""

    def patch() -> None:
        for module in (play, end, classic):
            monkeypatch.setattr(module, "stroke_px", lambda spec: 2)

    found = broken(monkeypatch, "epd2in13_V4", patch)
    assert any("strokes under k" in p for p in found), found[:5]


def test_marks_that_touch_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """No white between a miss and the key's mark: one piece of ink, not two."""
    found = broken(
        monkeypatch,
        "epd2in9_V2",
        lambda: monkeypatch.setattr(cells.Metrics, "gap", property(lambda self: 0)),
    )
    assert any("separate marks" in p for p in found), found[:5]


def test_a_mark_against_the_grid_line_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    found = broken(
        monkeypatch,
        "epd2in7_V2",
        lambda: monkeypatch.setattr(cells.Metrics, "clear", property(lambda self: 0)),
    )
    assert any("against the grid line" in p for p in found), found[:5]


def test_an_inverted_last_touch_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The last touch drawn inverted (as the cursor is): the frame check fails."""
    original = cells.draw_cell

    def inverted(draw: ImageDraw.ImageDraw, box: marks.Box, look: cells.CellLook, *a: object):
        original(draw, box, cells.CellLook(look.mark, look.covered, look.missed_by), *a)  # type: ignore[arg-type]
        if look.framed:
            x0, y0, x1, y1 = box
            mask = Image.new("1", (x1 - x0, y1 - y0), 1)
            draw.bitmap((x0, y0), mask, fill=0)  # the cell black: nothing of it shows

    def patch() -> None:
        monkeypatch.setattr(play, "draw_cell", inverted)

    found = broken(monkeypatch, "epd4in2_V2", patch, rotation=0)
    assert any("frame" in p for p in found), found[:5]


def test_a_sign_against_its_number_and_a_thin_sign_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    original = play.draw_sign

    def wide(draw: ImageDraw.ImageDraw, key: str, box: marks.Box, stroke: int = 2) -> None:
        x0, y0, x1, y1 = box
        original(draw, key, (x0, y0, x1 + 12, y1), stroke)  # up to the digits

    found = broken(monkeypatch, "epd2in7_V2", lambda: monkeypatch.setattr(play, "draw_sign", wide))
    assert any("between the sign and the number" in p for p in found), found[:5]

    found = broken(
        monkeypatch, "epd2in13_V4", lambda: monkeypatch.setattr(play, "draw_sign", old_sign)
    )
    assert any("sign turns" in p and "strokes under k" in p for p in found), found[:5]


def old_sign(draw: ImageDraw.ImageDraw, key: str, box: marks.Box, stroke: int = 2) -> None:
    """The counters' signs as they were before issue 31 (its play-test: the
    hourglass's top half a 1-pixel outline, the mistakes a cross)."""
    x0, y0, x1, y1 = box
    x1, y1 = x1 - 1, y1 - 1
    mid_x, mid_y = (x0 + x1) // 2, (y0 + y1) // 2
    width = max(2, (x1 - x0) // 6)
    if key == "turns":
        draw.line((x0, y0, x1, y0), fill=0, width=width)
        draw.line((x0, y1, x1, y1), fill=0, width=width)
        draw.line((x0 + 1, y0, x1 - 1, y1), fill=0, width=max(1, width // 2))
        draw.line((x1 - 1, y0, x0 + 1, y1), fill=0, width=max(1, width // 2))
        draw.polygon([(mid_x, mid_y + 1), (x0 + 2, y1), (x1 - 2, y1)], fill=0)
    else:
        inset = width // 2 + 1
        draw.line((x0 + inset, y0 + inset, x1 - inset, y1 - inset), fill=0, width=width)
        draw.line((x1 - inset, y0 + inset, x0 + inset, y1 - inset), fill=0, width=width)


def test_a_cross_for_mistakes_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mistakes' sign it once was, a cross (read as the assassin's), is found."""
    monkeypatch.setattr(play, "draw_sign", old_sign)
    assert likeness_to_assassin(panel("epd2in13_V4")) >= ALIKE
    assert likeness_to_assassin(panel("epd2in7_V2")) >= ALIKE


def test_the_measure_tells_a_stroke_from_a_hairline() -> None:
    """The measuring itself: a 3-pixel bar passes k = 3, a 2-pixel one fails all
    along; a 45-degree band three pixels along a row (2.1 across) passes k = 3, one
    two along a row (1.4 across) fails k = 2; a disc's and a wedge's stair steps
    pass; a white hairline in a black square fails k = 3."""
    bar = {(x, y) for x in range(20) for y in range(3)}
    assert not marks.thin(bar, 3)
    two = {(x, y) for x in range(20) for y in range(2)}
    assert marks.thin(two, 3) == two and not marks.thin(two, 2)
    band3 = {(x + y, y) for y in range(20) for x in range(3)}
    band2 = {(x + y, y) for y in range(20) for x in range(2)}
    assert not marks.thin(band3, 3)
    assert len(marks.thin(band2, 2)) > 20
    image = Image.new("1", (40, 40), 1)
    d = ImageDraw.Draw(image)
    d.ellipse((2, 2, 14, 14), fill=0)
    d.polygon([(20, 2), (34, 2), (27, 9)], fill=0)
    assert not marks.thin(marks.ink_of(image, (0, 0, 40, 40)), 3)
    square = Image.new("1", (20, 20), 1)
    d = ImageDraw.Draw(square)
    d.rectangle((2, 2, 17, 17), fill=0)
    d.line((6, 6, 13, 13), fill=1, width=1)
    part = marks.ink_of(square, (0, 0, 20, 20))
    assert any(marks.thin(h, 3) for h in marks.holes(part, (0, 0, 20, 20)))


# ----- the figures (docs/screens.md) --------------------------------------------------


def print_table() -> None:  # pragma: no cover - `python tests/marks.py`
    """The thinnest stroke of each kind of mark, per panel and mounting, in pixels
    and millimetres, over every frame the tests measure (the same code measures
    an older tree: run it with that tree's keystand)."""
    for model in MODELS:
        for landscape in (True, False):
            spec = next(s for s in (panel(model, r) for r in ROTATIONS) if s.landscape is landscape)
            widths: dict[str, int] = {}
            seen: set[bytes] = set()
            for _, image, grids, signs in frames(spec):
                if image.tobytes() in seen:
                    continue
                seen.add(image.tobytes())
                for grid in grids:
                    screen = "end" if grid.end else "play"
                    for i, box in grid.boxes.items():
                        _note_cell(widths, screen, image, grid, i, box)
                for sign in signs:
                    k = k_of(model)
                    report = marks.measure_sign(image, sign.counter, sign.box, sign.number, k)
                    _note(widths, f"sign {sign.name.split()[0]}", report.ink)
            mm = pixel_mm(model)
            tag = "landscape" if landscape else "portrait"
            print(f"{model} {tag} (0.4 mm = {k_of(model)} px):")
            for kind, px in sorted(widths.items()):
                print(f"    {kind:22} {px} px  {px * mm:.2f} mm")


def _note(
    widths: dict[str, int], kind: str, ink: set[marks.Pixel] | frozenset[marks.Pixel]
) -> None:
    if ink:
        widths[kind] = min(widths.get(kind, 99), marks.stroke_width(ink))


def _note_cell(
    widths: dict[str, int], screen: str, image: Image.Image, grid: Grid, i: int, box: marks.Box
) -> None:
    """The strokes of one cell, by kind: the frame (the grid line under it counted),
    a miss (a bystander's cell: its marks are its misses), the key's marks, covered
    or not, and the white inside them."""
    e = grid.expect[i]
    kind = (grid.kinds or {}).get(i, "")
    if e.framed:
        # The frame: the widest stroke every pixel of the cell's edge lies in.
        ink = marks.ink_of(image, marks.grow(box, 3))
        edge = marks.ring(box) & ink
        k = 0
        while edge and k < 12 and not marks.thin(ink, k + 1) & edge:
            k += 1
        widths[f"{screen} frame"] = min(widths.get(f"{screen} frame", 99), k)
        return
    framed_box = grid.boxes[grid.framed] if grid.framed is not None else None
    report = marks.measure_cell(image, box, 2, e.covered, False, framed_box)
    crop = (0, 0, box[2] - box[0] + 2 * marks.AROUND, box[3] - box[1] + 2 * marks.AROUND)
    if i in grid.missed and kind == "bystander":
        for part in report.marks:
            _note(widths, f"{screen} miss", part)
    elif i not in grid.missed and kind != "bystander":
        label = f"{screen} {kind}{' covered' if e.covered else ''}"
        for part in report.marks:
            _note(widths, label, part)
            for hole in marks.holes(set(part), crop):
                _note(widths, f"{label} white", hole)
