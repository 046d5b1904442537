"""Measuring the marks of a rendered screen from its pixels (issue 31, item 4).

Everything here reads a 1-bit image; where to look (a cell's box, a counter's
sign) comes from the screen's geometry, what is there only from the pixels.

A *stroke of at least k pixels*: a pixel of ink lies in a stroke at least k wide
when it is within one pixel (its 8 neighbours) of the *core*, the union of every
placement of a k-pixel disc that lies wholly in the ink. The disc: 2x2 for k = 2;
for k >= 3 a k x k square without its corner pixels (k = 3: a plus). A line
thinner than k has no core, so all of it fails; the one-pixel slack forgives the
stair steps of a slanted edge and a wedge's corners, never a thin line (its
middle is more than a pixel from any core). A slanted band passes when its
width across is about k: a 45-degree band three pixels wide along a row (2.1
pixels across) holds the k = 3 plus, a two-pixel band (1.4 across) no 2x2.

White strokes (the assassin's cross, the inside of an outlined mark) are measured
the same way: the holes a mark encloses.

Run as a script, it prints the thinnest stroke of each kind of mark on every
panel and mounting, over the frames tests/test_marks.py measures:

    .venv/bin/python tests/marks.py
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from PIL import Image

Pixel = tuple[int, int]
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)

MIN_MM = 0.4  # the figure: every stroke that carries the game, on the real panel
AROUND = 3  # a cell is read with this much around it: its grid line, a frame's spill, a halo

NEIGHBOURS8 = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
NEIGHBOURS4 = [(1, 0), (-1, 0), (0, 1), (0, -1)]


def min_stroke(pixel_mm: float) -> int:
    """The fewest whole pixels that make MIN_MM on a panel of `pixel_mm` pixels."""
    return math.ceil(MIN_MM / pixel_mm - 1e-9)


def disc(k: int) -> list[Pixel]:
    """The k-pixel disc's offsets from its top left."""
    if k <= 2:
        return [(dx, dy) for dy in range(k) for dx in range(k)]
    corners = {(0, 0), (0, k - 1), (k - 1, 0), (k - 1, k - 1)}
    return [(dx, dy) for dy in range(k) for dx in range(k) if (dx, dy) not in corners]


def core(ink: set[Pixel] | frozenset[Pixel], k: int) -> set[Pixel]:
    """Every pixel of `ink` covered by a placement of the k-pixel disc wholly in `ink`."""
    shape = disc(k)
    ax, ay = shape[0]  # every placement has an inked pixel at this offset
    out: set[Pixel] = set()
    for px, py in ink:
        x, y = px - ax, py - ay
        placed = [(x + dx, y + dy) for dx, dy in shape]
        if all(p in ink for p in placed):
            out.update(placed)
    return out


def near(p: Pixel, kept: set[Pixel]) -> bool:
    x, y = p
    return p in kept or any((x + dx, y + dy) in kept for dx, dy in NEIGHBOURS8)


def thin(ink: set[Pixel], k: int) -> set[Pixel]:
    """The pixels of `ink` in no stroke k wide."""
    kept = core(ink, k)
    return {p for p in ink if not near(p, kept)}


def stroke_width(ink: set[Pixel] | frozenset[Pixel], limit: int = 12) -> int:
    """The widest k (up to `limit`) for which no pixel of `ink` is thin: the
    thinnest stroke of `ink`, in whole pixels (0: no ink)."""
    if not ink:
        return 0
    x0 = min(x for x, _ in ink)
    y0 = min(y for _, y in ink)
    return _stroke_width(frozenset((x - x0, y - y0) for x, y in ink), limit)


@functools.cache
def _stroke_width(ink: frozenset[Pixel], limit: int) -> int:
    k = 1
    while k < limit and not thin(set(ink), k + 1):
        k += 1
    return k


def components(pixels: set[Pixel], steps: list[Pixel] = NEIGHBOURS8) -> list[set[Pixel]]:
    """The connected parts of `pixels` (8-connected by default), largest first."""
    left = set(pixels)
    out = []
    while left:
        seed = left.pop()
        part = {seed}
        todo = [seed]
        while todo:
            x, y = todo.pop()
            for dx, dy in steps:
                p = (x + dx, y + dy)
                if p in left:
                    left.remove(p)
                    part.add(p)
                    todo.append(p)
        out.append(part)
    return sorted(out, key=lambda part: (-len(part), min(part)))


def holes(part: set[Pixel], box: Box) -> list[set[Pixel]]:
    """The white regions (4-connected) `part` alone encloses inside `box`."""
    x0, y0, x1, y1 = box
    rest = {(x, y) for x in range(x0, x1) for y in range(y0, y1)} - part
    return [
        region
        for region in components(rest, NEIGHBOURS4)
        if not any(x in (x0, x1 - 1) or y in (y0, y1 - 1) for x, y in region)
    ]


def ink_of(image: Image.Image, box: Box, ink: int = 0) -> set[Pixel]:
    """The pixels of `box` in `image` of value `ink` (0: black)."""
    x0, y0, x1, y1 = box
    px = image.load()
    assert px is not None
    return {
        (x, y)
        for y in range(max(0, y0), min(image.height, y1))
        for x in range(max(0, x0), min(image.width, x1))
        if (px[x, y] != 0) == bool(ink)
    }


def grow(box: Box, by: int) -> Box:
    x0, y0, x1, y1 = box
    return (x0 - by, y0 - by, x1 + by, y1 + by)


def ring(box: Box, width: int = 1) -> set[Pixel]:
    """The outermost `width` rows and columns of `box`."""
    x0, y0, x1, y1 = box
    return {
        (x, y)
        for x in range(x0, x1)
        for y in range(y0, y1)
        if min(x - x0, x1 - 1 - x, y - y0, y1 - 1 - y) < width
    }


def inside(p: Pixel, box: Box) -> bool:
    x, y = p
    return box[0] <= x < box[2] and box[1] <= y < box[3]


# ----- one cell of a grid ---------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """What one cell shows, from the view (never from the layout): how many marks
    besides the frame (the key's mark, each miss shown), covered, framed."""

    marks: int
    covered: bool = False
    framed: bool = False


@dataclass(frozen=True)
class CellReport:
    """What the pixels of one cell say (coordinates in the cell's own crop)."""

    marks: tuple[frozenset[Pixel], ...]  # each mark's ink, the frame not among them
    frame: frozenset[Pixel]  # the frame's ink in the cell (or a neighbour's frame's spill)
    thin: frozenset[Pixel]  # ink in no stroke k wide
    thin_holes: frozenset[Pixel]  # white inside a mark, in no stroke k wide
    on_border: frozenset[Pixel]  # a mark's ink against the grid line
    stray_tone: frozenset[Pixel]  # lone pixels (of either ink) off the dot screen's lattice
    touching_frame: bool  # a mark touches the frame (a neighbour's spill)
    frame_whole: bool  # the cell's edge all ink (when framed)
    frame_deep: bool  # frame ink far inside the cell: an inversion, not a frame

    def problems(self, expect: Expect) -> list[str]:
        out = []
        if self.thin:
            out.append(f"{len(self.thin)} px in strokes under k: {sorted(self.thin)[:4]}")
        if self.thin_holes:
            out.append(f"{len(self.thin_holes)} px of white strokes under k")
        if self.on_border:
            out.append(f"a mark against the grid line at {sorted(self.on_border)[:4]}")
        if self.stray_tone:
            out.append(f"lone pixels off the dot screen {sorted(self.stray_tone)[:4]}")
        if len(self.marks) != expect.marks:
            out.append(f"{len(self.marks)} separate marks, expected {expect.marks}")
        if self.touching_frame:
            out.append("a mark touches the frame")
        if expect.framed and not (self.frame and self.frame_whole):
            out.append("framed, but no whole frame at the cell's edge")
        if expect.framed and self.frame_deep:
            out.append("the frame reaches into the cell: an inversion, not a frame")
        if not expect.framed and self.frame_whole and self.frame:
            out.append("a frame on a cell not touched last")
        return out


def measure_cell(
    image: Image.Image,
    box: Box,
    k: int,
    covered: bool,
    framed: bool,
    framed_box: Box | None,
) -> CellReport:
    """One cell's marks, from the pixels of `box` and the few around it (its grid
    line, a frame's spill over it). `covered`: the cell may carry the dot screen
    (lone pixels on one lattice); `framed`: it is the cell touched last;
    `framed_box`: that cell's box, when it is another one (its frame may lie a
    pixel over this cell's edge)."""
    x0, y0, x1, y1 = box
    region = grow(box, AROUND)
    crop = image.crop(region)
    spill: frozenset[Pixel] = frozenset()
    if framed_box is not None and not framed:
        reach = grow(framed_box, 2)
        spill = frozenset(
            (x - region[0], y - region[1])
            for x in range(x0, x1)
            for y in range(y0, y1)
            if inside((x, y), reach)
        )
    return _measure(
        crop.tobytes(), crop.size, k, covered, framed, spill, (region[0] % 2, region[1] % 2)
    )


@functools.cache
def _measure(
    data: bytes,
    size: tuple[int, int],
    k: int,
    covered: bool,
    framed: bool,
    spill: frozenset[Pixel],
    parity: tuple[int, int],
) -> CellReport:
    crop = Image.frombytes("1", size, data)
    w, h = size
    box = (AROUND, AROUND, w - AROUND, h - AROUND)
    s = box[2] - box[0]
    ink = ink_of(crop, (0, 0, w, h))
    tone: set[Pixel] = set()
    lattices: set[Pixel] = set()
    if covered:
        # The dot screen is a tone, not a stroke, in either ink: lone black pixels
        # (the screen over the cell), lone white ones (a mark drawn grey) are filled.
        for x, y in [p for p in ink_of(crop, box, ink=1)]:
            if all((x + dx, y + dy) in ink for dx, dy in NEIGHBOURS8):
                ink.add((x, y))
                lattices.add(((x + parity[0]) % 2, (y + parity[1]) % 2))
        for x, y in [p for p in ink if inside(p, box)]:
            if not any((x + dx, y + dy) in ink for dx, dy in NEIGHBOURS8):
                tone.add((x, y))
                lattices.add(((x + parity[0]) % 2, (y + parity[1]) % 2))
    own_all = {p for p in ink if inside(p, box)}
    stroke_ink = ink - tone
    kept = core(stroke_ink, k)
    own = own_all - tone
    edge = ring(box)
    if framed:
        parts = components(own)
        frame = set().union(*(p for p in parts if p & edge))
        whole = edge <= own
    else:
        frame = own & spill
        whole = bool(edge <= own)
    rest = own - frame
    marks = components(rest)
    hole_px: set[Pixel] = set()
    for part in marks:
        for hole in holes(part, box):
            hole_px |= thin(hole, k)
    depth = max(2, s // 4)
    deep = any(
        min(x - box[0], box[2] - 1 - x, y - box[1], box[3] - 1 - y) >= depth for x, y in frame
    )
    return CellReport(
        marks=tuple(frozenset(p) for p in marks),
        frame=frozenset(frame),
        thin=frozenset(p for p in own if not near(p, kept)),
        thin_holes=frozenset(hole_px),
        on_border=frozenset(rest & edge),
        stray_tone=frozenset(tone) if len(lattices) > 1 else frozenset(),
        touching_frame=bool(frame) and not framed and any(near(p, frame) for p in rest),
        frame_whole=whole,
        frame_deep=deep,
    )


def measure_grid(
    image: Image.Image,
    boxes: dict[int, Box],
    k: int,
    covered: frozenset[int],
    framed: int | None,
) -> dict[int, CellReport]:
    """Every cell of one grid, measured: `covered` cells may carry the dot screen,
    `framed` is the cell touched last (None: none)."""
    framed_box = boxes[framed] if framed is not None else None
    return {
        i: measure_cell(image, box, k, i in covered, i == framed, framed_box)
        for i, box in boxes.items()
    }


# ----- a counter's sign -----------------------------------------------------------------


@dataclass(frozen=True)
class SignReport:
    ink: frozenset[Pixel]  # the sign's ink (in the image's coordinates)
    thin: frozenset[Pixel]
    thin_holes: frozenset[Pixel]
    gap: float  # pixels of white between the sign's ink and the number's (inf: no number)

    def problems(self, k: int) -> list[str]:
        out = []
        if not self.ink:
            out.append("no sign")
        if self.thin:
            out.append(f"{len(self.thin)} px in strokes under k: {sorted(self.thin)[:4]}")
        if self.thin_holes:
            out.append(f"{len(self.thin_holes)} px of white strokes under k")
        if self.gap < k:
            out.append(f"{self.gap:.1f} px between the sign and the number, under k")
        return out


def measure_sign(image: Image.Image, counter: Box, sign: Box, number: Box, k: int) -> SignReport:
    """A counter's sign in `sign` and its number in `number`, inside the counter's
    frame `counter`: the sign's strokes, and the white between its ink and the
    number's. The counter may be inverted (white on black): its ink is what differs
    from the paper inside its frame. The sign's ink is every piece of ink that
    reaches into `sign` (a diamond's points reach a little beyond it); the
    number's, the other pieces in `number`. A piece from the sign's box on past
    the number's first quarter is a sign run into the digits: no white at all."""
    x0, y0, x1, y1 = counter
    inner = (x0 + 1, y0 + 1, x1 - 1, y1 - 1)
    edge = ring(inner)
    whites = ink_of(image, inner, ink=1)
    paper = 1 if len(edge & whites) * 2 >= len(edge) else 0
    ink = (whites if paper == 0 else ink_of(image, inner)) - edge
    parts = components(ink)
    mine = [p for p in parts if any(inside(q, sign) for q in p)]
    sign_ink = set().union(*mine) if mine else set()
    digits = [p for p in parts if p not in mine and any(inside(q, number) for q in p)]
    number_ink = set().union(*digits) if digits else set()
    if any(_spans_digits(part, number) for part in mine):
        gap = 0.0  # one piece of ink from the sign's box on into the digits
    else:
        gap = (
            min(
                (math.dist(a, b) for a in _outline(sign_ink) for b in _outline(number_ink)),
                default=math.inf,
            )
            - 1
        )
    hole_px: set[Pixel] = set()
    for part in mine:
        for hole in holes(part, inner):
            hole_px |= thin(hole, k)
    return SignReport(frozenset(sign_ink), frozenset(thin(sign_ink, k)), frozenset(hole_px), gap)


def _spans_digits(part: set[Pixel], number: Box) -> bool:
    """Whether `part` reaches past the first quarter of the number's box (a sign's
    points may reach a little into it; a sign run into the digits reaches on)."""
    x0, _, x1, _ = number
    return any(x >= x0 + max(2, (x1 - x0) // 4) for x, _ in part)


def _outline(pixels: set[Pixel]) -> set[Pixel]:
    return {
        (x, y) for x, y in pixels if any((x + dx, y + dy) not in pixels for dx, dy in NEIGHBOURS4)
    }


def silhouette(ink: set[Pixel] | frozenset[Pixel], size: int = 16) -> Image.Image:
    """`ink` in a square around its box (its shape kept: a flat wedge stays flat),
    scaled to `size` x `size`: to compare shapes drawn at different sizes."""
    xs = [x for x, _ in ink]
    ys = [y for _, y in ink]
    w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    side = max(w, h)
    x0, y0 = min(xs) - (side - w) // 2, min(ys) - (side - h) // 2
    im = Image.new("1", (side, side), 0)
    px = im.load()
    assert px is not None
    for x, y in ink:
        px[x - x0, y - y0] = 1
    return im.resize((size, size), Image.Resampling.NEAREST)


def likeness(a: Image.Image, b: Image.Image) -> float:
    """How alike two silhouettes are: their shared ink over their joint ink."""
    pa, pb = a.load(), b.load()
    assert pa is not None and pb is not None
    both = either = 0
    for y in range(a.height):
        for x in range(a.width):
            both += bool(pa[x, y] and pb[x, y])
            either += bool(pa[x, y] or pb[x, y])
    return both / either if either else 1.0


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    import test_marks

    test_marks.print_table()
