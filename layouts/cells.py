"""One cell of a key grid, drawn in black and white, told apart by shape and pattern.

- agent: a black disc (the green square of the card);
- assassin: a black square with a white cross (the black square), or plain black
  where the cell has no room for a cross of full strokes;
- bystander: left white (the tan square);
- covered (an agent card on the word, or both seats' tokens): a light dot screen
  over the cell, the seat's own mark kept as an outline (white inside) where the
  outline's hole can be wider than a stroke, else drawn grey (the dot screen's
  white in it), so what is still to be found stands out and what is done recedes;
- a miss: a solid wedge at the edge of the seat that guessed, pointing to it (the
  timer token's arrow points from the clue giver to the guesser): on the seat's
  own screen, its own misses sit at the cell's bottom pointing down, toward it,
  its partner's at the top pointing up, across the table; a mark in the cell
  moves aside for them, so no two marks ever touch;
- the word touched last: a heavy frame around the cell, on its grid line, with
  white between it and everything inside (a frame, never an inversion: the cell's
  own marks show whole inside it).

Every stroke is at least `stroke` pixels wide: the panel's 0.4 mm
(`legibility.stroke_px`), so nothing a player needs at 70 cm is a hairline.
Each mark keeps a pixel of white or more to the grid line and the frame, and
`Metrics.gap` to every other mark in the cell (two pixels where a stroke is
three); the dot screen keeps a pixel of white from all of them. A cell too small
for a miss and the key's mark apart (`Metrics.holds_misses`: only the end
screens' grids of small panels) shows no misses.

A cell is drawn the same upright way on both seats' screens: only its place on
the grid turns (geometry.py), never its picture.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFilter

from .geometry import Box
from .text import BLACK, WHITE
from .view import Mark, Who

STROKE = 2  # the thinnest stroke, in pixels, where a caller names no panel


@dataclass(frozen=True)
class CellLook:
    """Everything a cell shows."""

    mark: Mark
    covered: bool = False
    missed_by: frozenset[Who] = frozenset()
    framed: bool = False


@dataclass(frozen=True)
class Metrics:
    """Where things go in a cell `size` pixels a side (its inside, the grid lines
    not counted) whose thinnest stroke is `stroke` pixels."""

    size: int
    stroke: int

    @property
    def frame(self) -> int:
        """The frame's width inside the cell; it also covers the grid line and one
        pixel of each neighbour (whose marks keep two pixels clear of their edge),
        so it is `frame + 2` pixels wide in all."""
        return max(1, self.stroke - 2, self.size // 14)

    @property
    def clear(self) -> int:
        """The white between the cell's edge and its marks: the frame, then a pixel."""
        return self.frame + 1

    @property
    def content(self) -> int:
        """The side of the square the marks share."""
        return self.size - 2 * self.clear

    @property
    def gap(self) -> int:
        """The white between two marks in the cell: two pixels where the strokes
        are three (a one-pixel gap, 0.2 mm, closes at 70 cm: the disc and the
        wedge under it would read as one pin)."""
        return max(self.stroke - 1, self.content // 8)

    @property
    def wedge(self) -> int:
        """A miss wedge's height in rows beside the key's mark (its tip `stroke`
        wide, two pixels wider each row)."""
        return max(3, round(self.content / 4))

    @property
    def lone_wedge(self) -> int:
        """A miss wedge's height in a bystander's cell, where it has the cell to
        itself (or shares it with the other seat's): larger, so a miss reads at a
        glance."""
        return max(self.wedge, min((self.content - self.gap) // 2, round(self.content * 0.35)))

    @property
    def mark(self) -> int:
        """The key's mark alone in the cell: a disc's diameter, a square's side."""
        return min(self.content, round(self.size * 0.62))

    def ring(self, side: int) -> int:
        """An outlined mark's line width (covered), or 0: no outline `side` wide
        leaves a hole wider than a stroke (a smaller one is a plus, or a blot), so
        the mark is drawn grey instead."""
        width = max(self.stroke, side // 7)
        return width if side - 2 * width >= self.stroke + 2 else 0

    def cross_width(self, side: int) -> int:
        """The assassin's white cross's width in a square of `side`: a stroke, more
        in a large cell (an eighth of the square)."""
        return max(self.stroke, round(side / 8))

    def cross(self, side: int) -> bool:
        """Whether the assassin's square of `side` holds a white cross with strokes
        and black around it all at least a stroke wide."""
        return side >= 5 * self.cross_width(side) + 1

    @property
    def holds_misses(self) -> bool:
        """Whether a miss wedge and a mark fit apart with every stroke whole: the mark
        beside a wedge at least two strokes and two pixels (6 pixels with 2-pixel
        strokes, 8 with 3: a disc told from a square)."""
        return self.content - self.gap - self.wedge >= 2 * self.stroke + 2


# The key's mark as a shape: Duet's marks, and classic's blue agent (`DIAMOND`).
DISC, SQUARE, DIAMOND = "disc", "square", "diamond"
GLYPH = {Mark.AGENT: DISC, Mark.ASSASSIN: SQUARE, Mark.BYSTANDER: None}


def draw_cell(
    draw: ImageDraw.ImageDraw,
    box: Box,
    look: CellLook,
    stroke: int = STROKE,
    glyph: str | None = None,
) -> None:
    """The cell `look` in `box` (its inside: x1, y1 exclusive), strokes at least
    `stroke` pixels; `glyph` (DIAMOND) in place of the look's mark. A framed
    cell's frame also covers the grid line and one pixel around it: draw it after
    its neighbours."""
    x0, y0, x1, y1 = box
    size = x1 - x0
    shape = glyph or GLYPH[look.mark]
    draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=WHITE)
    draw.bitmap((x0, y0), _ink(size, stroke, look, shape, x0 % 2, y0 % 2), fill=BLACK)
    if look.framed:
        m = Metrics(size, stroke)
        # The grid line and one pixel beyond, black; around that a pixel of white
        # (a neighbour's dot screen never touches the frame).
        draw.rectangle((x0 - 3, y0 - 3, x1 + 2, y1 + 2), outline=WHITE, width=1)
        draw.rectangle((x0 - 2, y0 - 2, x1 + 1, y1 + 1), outline=BLACK, width=2 + m.frame)


@functools.cache
def _ink(
    size: int, stroke: int, look: CellLook, shape: str | None, odd_x: int, odd_y: int
) -> Image.Image:
    """The cell's ink as a mask, made once per cell size, look and lattice parity."""
    ink = Image.new("1", (size, size), 0)  # the miss wedges, then all
    key = Image.new("1", (size, size), 0)  # the key's mark alone
    m = Metrics(size, stroke)
    screened = _marks(ImageDraw.Draw(ink), ImageDraw.Draw(key), m, look, shape)
    if look.covered:
        dots = _dots(size, odd_x, odd_y)
        if screened:
            # No room for an outline with its hole: the mark in the dot screen's
            # white, a grey mark (its edge kept whole: only where it is all round).
            inner = key.convert("L").filter(ImageFilter.MinFilter(3)).convert("1")
            key.paste(0, mask=_and(dots, inner))
        ink.paste(1, mask=key)
        # The dot screen, but a pixel clear of every mark, of the frame and of the
        # cell's edge, and never inside an outlined mark (white: the outline
        # reads as one mark). The marks keep clear of the edge, so the corner is
        # outside them all.
        solid = ink.convert("L")
        ImageDraw.floodfill(solid, (0, 0), 128)
        solid = solid.point(lambda v: 0 if v == 128 else 255)
        keep = Image.new("1", (size, size), 0)
        ImageDraw.Draw(keep).rectangle((1, 1, size - 2, size - 2), fill=1)
        if look.framed:
            ImageDraw.Draw(keep).rectangle((0, 0, size - 1, size - 1), outline=0, width=m.clear)
        keep.paste(0, mask=solid.filter(ImageFilter.MaxFilter(3)).convert("1"))
        ink.paste(1, mask=_and(dots, keep))
    else:
        ink.paste(1, mask=key)
    if look.framed:
        ImageDraw.Draw(ink).rectangle((0, 0, size - 1, size - 1), outline=1, width=m.frame)
    return ink


def _and(a: Image.Image, b: Image.Image) -> Image.Image:
    out = Image.new("1", a.size, 0)
    out.paste(a, mask=b)
    return out


@functools.cache
def _dots(w: int, odd_x: int, odd_y: int) -> Image.Image:
    """The dot screen's mask for a square `w` a side whose corner is at an odd column
    (`odd_x`) or row (`odd_y`) of the panel: a dot where both are even, one pixel in
    four, on the panel's own pixel grid."""
    row = bytes(255 if (x + odd_x) % 2 == 0 else 0 for x in range(w))
    blank = bytes(w)
    rows = (row if (y + odd_y) % 2 == 0 else blank for y in range(w))
    return Image.frombytes("L", (w, w), b"".join(rows)).convert("1")


def _marks(
    d: ImageDraw.ImageDraw, key: ImageDraw.ImageDraw, m: Metrics, look: CellLook, shape: str | None
) -> bool:
    """The miss wedges on `d` and the key's mark (`shape`) on `key`, in ink (1) on
    blank masks; True: the mark is covered and too small for an outline with a
    hole a stroke wide, so it is to be drawn grey."""
    top, bottom = m.clear, m.size - m.clear  # the content's rows: top inclusive, bottom not
    mine = Who.ME in look.missed_by and m.holds_misses
    theirs = Who.PARTNER in look.missed_by and m.holds_misses
    mid = m.size // 2
    rows = m.wedge if shape is not None else m.lone_wedge
    if mine:  # pointing down, at the cell's bottom: toward this seat
        _wedge(d, mid, bottom - 1, rows, m.stroke, True)
        bottom -= rows + m.gap
    if theirs:  # pointing up, at the top: across the table, toward the partner
        _wedge(d, mid, top, rows, m.stroke, False)
        top += rows + m.gap
    if shape is None:
        return False
    side = min(m.mark, bottom - top)
    if shape == DIAMOND:  # its points reach further: about the disc's ink
        side = min(m.content, bottom - top, round(side * 1.25))
        side -= 1 - side % 2  # odd: its points on the centre row and column
    sx = m.clear + (m.content - side) // 2
    sy = top + (bottom - top - side) // 2
    box = (sx, sy, sx + side - 1, sy + side - 1)
    ring = m.ring(side) if look.covered else 0
    if shape == DIAMOND and side // 2 - round(ring * 1.42) < m.stroke + 1:
        ring = 0  # no hole a stroke wide inside a slanted outline
    if shape == DISC:
        key.ellipse(box, fill=1)
        if ring:  # a disc's worth less a disc: as thick at 45 degrees as across
            inner = (sx + ring, sy + ring, sx + side - 1 - ring, sy + side - 1 - ring)
            key.ellipse(inner, fill=0)
    elif shape == DIAMOND:
        _diamond(key, box, ring)
    elif ring:
        key.rectangle(box, fill=0, outline=1, width=ring)
    else:
        key.rectangle(box, fill=1)
        if m.cross(side) and not look.covered:  # white, a stroke and a half in: black all round
            width = m.cross_width(side)
            inset = width + (width + 1) // 2
            a0, a1 = sx + inset, sx + side - 1 - inset
            b0, b1 = sy + inset, sy + side - 1 - inset
            key.line((a0, b0, a1, b1), fill=0, width=width)
            key.line((a0, b1, a1, b0), fill=0, width=width)
    return look.covered and not ring


def _diamond(d: ImageDraw.ImageDraw, box: Box, ring: int) -> None:
    """A square on its point filling `box`; outlined `ring` wide across its edges
    (a slanted edge needs about 1.4 times the pixels along a row)."""
    x0, y0, x1, _ = box
    r = (x1 - x0) // 2
    cx, cy = x0 + r, y0 + r
    d.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], fill=1)
    if ring:
        q = r - round(ring * 1.42)
        d.polygon([(cx, cy - q), (cx + q, cy), (cx, cy + q), (cx - q, cy)], fill=0)


def _wedge(
    d: ImageDraw.ImageDraw, cx: int, y: int, rows: int, stroke: int, down: bool, base: int = 0
) -> None:
    """A solid wedge of `rows` rows, its tip on row `y` and each row two pixels
    wider toward its base (one a side: a slanted edge with no thin steps), the base
    `base` wide (at least the tip `stroke` wide); pointing down, the base above the
    tip, up, below it. Centred on column `cx` (an even width: `cx` the right one of
    its middle two). Strokes of four pixels or more (the 4.26"'s 0.4 mm): the base
    row's outermost pixels go, so no corner is sharper than a stroke allows."""
    tip = max(stroke, base - 2 * (rows - 1))
    for j in range(rows):
        w = tip + 2 * j  # j = 0: the tip
        if j == rows - 1 and j:
            w -= 2 * max(0, stroke - 3)
        row = y - j if down else y + j
        x0 = cx - w // 2
        d.line((x0, row, x0 + w - 1, row), fill=1)


# ----- the counters' signs -----------------------------------------------------------


def draw_hourglass(draw: ImageDraw.ImageDraw, box: Box, stroke: int, fill: int = BLACK) -> None:
    """The turns' sign: an hourglass in `box` (x1, y1 exclusive), a bar at the top
    and the bottom at least `stroke` thick and two solid triangles between them,
    point to point at a waist as wide as a bar, their sides one pixel in per row
    (no thin steps)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    bar = max(stroke, h // 9)  # heavier with large digits (the 4.2"'s timer)
    half = (h - 2 * bar) // 2  # rows of each triangle
    glass = min(w, bar + 2 * (half - 1)) if half > 0 else w
    glass -= (glass - bar) % 2  # the waist centred under the bars
    left = x0 + (w - glass) // 2
    draw.rectangle((x0, y0, x1 - 1, y0 + bar - 1), fill=fill)
    draw.rectangle((x0, y1 - bar, x1 - 1, y1 - 1), fill=fill)
    rows = h - 2 * bar
    for j in range(rows):
        # Distance in rows from the nearer bar: the glass narrows toward the waist.
        from_bar = min(j, rows - 1 - j)
        width = max(bar, glass - 2 * from_bar)  # the waist as heavy as the bars
        inset = (glass - width) // 2
        y = y0 + bar + j
        draw.line((left + inset, y, left + inset + width - 1, y), fill=fill)


def draw_miss_sign(draw: ImageDraw.ImageDraw, box: Box, stroke: int, fill: int = BLACK) -> None:
    """The mistakes' sign: the grid's own miss mark, a solid wedge pointing down, as
    wide as `box` and centred in it (its sides one pixel in per row)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    width = w - (w - stroke) % 2
    rows = min(h, (width - stroke) // 2 + 1)
    top = y0 + (h - rows) // 2
    left = x0 + (w - width) // 2
    for j in range(rows):
        row_w = width - 2 * j
        draw.line((left + j, top + j, left + j + row_w - 1, top + j), fill=fill)
