"""One word of a classic grid, and the team symbols, drawn in black and white.

A 1-bit panel has no red and no blue, so the two teams differ by shape, the
same shape wherever a team appears (the grid, the headline, the counters):

- red agent: a black disc;
- blue agent: a black diamond (a square on its point), of about the disc's ink;
- assassin: a black square with a white cross (as on the Duet screens);
- bystander: left white;
- covered (a tile on the word): a light dot screen over the cell and the mark as
  an outline, so what is still to be found stands out and what is done recedes;
- unknown (the operatives' screen, a word not yet covered): white, like a
  bystander: the operatives' screen has no key to draw;
- the word touched last: a heavy frame.

Every cell, the diamond too, is drawn by Duet's own cell (`cells.draw_cell`),
so both games keep one look and the same 0.4 mm strokes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import ImageDraw

from .cells import DIAMOND as DIAMOND_GLYPH
from .cells import STROKE, CellLook, draw_cell
from .cells import draw_hourglass as hourglass
from .classic_view import Colour, Team
from .geometry import Box
from .text import BLACK, WHITE
from .view import Mark

_MARK = {
    Colour.RED: Mark.AGENT,
    Colour.BLUE: Mark.BYSTANDER,  # a diamond in place of a mark (`cells.DIAMOND`)
    Colour.BYSTANDER: Mark.BYSTANDER,
    Colour.ASSASSIN: Mark.ASSASSIN,
}
# The team symbols: a diamond's diagonal to a disc's diameter as 0.7 to 0.56, for
# about the same ink (the counters' symbols; the grid's diamond is 1.25 discs).
DIAMOND = 0.7
DISC = 0.56


@dataclass(frozen=True)
class ClassicLook:
    """Everything a classic cell shows; `colour` None: not known to this screen."""

    colour: Colour | None
    covered: bool = False
    framed: bool = False


def draw_classic_cell(
    draw: ImageDraw.ImageDraw, box: Box, look: ClassicLook, stroke: int = STROKE
) -> None:
    """The word `look` in `box`, strokes at least `stroke` pixels (`cells.draw_cell`:
    a framed cell's frame lies over its neighbours' edges, so draw it last)."""
    mark = Mark.BYSTANDER if look.colour is None else _MARK[look.colour]
    glyph = DIAMOND_GLYPH if look.colour is Colour.BLUE else None
    draw_cell(draw, box, CellLook(mark, look.covered, framed=look.framed), stroke, glyph)


def diamond(
    draw: ImageDraw.ImageDraw,
    cx: int,
    cy: int,
    diag: int,
    *,
    fill: int = BLACK,
    outline: bool = False,
    width: int = 1,
) -> None:
    """A diamond with its points `diag` pixels apart, centred on (cx, cy); as an
    outline, white inside (over the dot screen of a covered word)."""
    r = diag // 2
    points = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]
    if outline:
        draw.polygon(points, fill=WHITE, outline=fill)
        for k in range(1, width):  # Pillow's polygon outline is one pixel: thicken inward
            draw.polygon(
                [(cx, cy - r + k), (cx + r - k, cy), (cx, cy + r - k), (cx - r + k, cy)],
                outline=fill,
            )
    else:
        draw.polygon(points, fill=fill)


def draw_symbol(
    draw: ImageDraw.ImageDraw, team: Team, x: int, y: int, size: int, fill: int
) -> None:
    """The team's symbol in a `size`-pixel square with its top left at (x, y); the
    diamond's points reach a little beyond it, for about the disc's ink."""
    if team is Team.RED:
        draw.ellipse((x, y, x + size - 1, y + size - 1), fill=fill)
    else:
        diag = round(size * DIAMOND / DISC) | 1
        diamond(draw, x + size // 2, y + size // 2, diag, fill=fill)


def draw_hourglass(
    draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int, fill: int, stroke: int = STROKE
) -> None:
    """The turn timer's sign: Duet's turns sign (`cells.draw_hourglass`), two
    triangles point to point between two bars, strokes at least `stroke` pixels."""
    hourglass(draw, (x, y, x + w, y + h), stroke, fill)
