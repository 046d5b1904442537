"""One cell of a key grid, drawn in black and white, told apart by shape and pattern.

- agent: a black disc (the green square of the card);
- assassin: the whole cell black with a white cross (the black square);
- bystander: left white (the tan square);
- covered (an agent card on the word, or both seats' tokens): a light dot screen
  over the cell, the seat's own mark kept as an outline, so what is still to be
  found stands out and what is done recedes;
- a miss: a bar along the edge of the seat that guessed, with an arrowhead
  pointing to it (the timer token's arrow points from the clue giver to the
  guesser): on the seat's own screen, its own misses point down, toward it, and
  its partner's point up, across the table;
- the word touched last: a heavy frame.

A cell is drawn the same upright way on both seats' screens: only its place on
the grid turns (geometry.py), never its picture.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .geometry import Box, toward
from .text import BLACK, WHITE
from .view import Mark, Who

SMALL = 20  # cells narrower than this get bolder marks and slimmer arrows


@dataclass(frozen=True)
class CellLook:
    """Everything a cell shows."""

    mark: Mark
    covered: bool = False
    missed_by: frozenset[Who] = frozenset()
    framed: bool = False


def _screen(draw: ImageDraw.ImageDraw, box: Box) -> None:
    """A light dot screen: one pixel in four, on the panel's own pixel grid (even
    columns of even rows), drawn through a mask made once per cell size."""
    x0, y0, x1, y1 = box
    draw.bitmap((x0, y0), _dots(x1 - x0, y1 - y0, x0 % 2, y0 % 2), fill=BLACK)


@functools.cache
def _dots(w: int, h: int, odd_x: int, odd_y: int) -> Image.Image:
    """The dot screen's mask for a box `w` x `h` whose corner is at an odd column
    (`odd_x`) or row (`odd_y`) of the panel: a dot where both are even."""
    row = bytes(255 if (x + odd_x) % 2 == 0 else 0 for x in range(w))
    blank = bytes(w)
    rows = (row if (y + odd_y) % 2 == 0 else blank for y in range(h))
    return Image.frombytes("L", (w, h), b"".join(rows)).convert("1")


def draw_cell(draw: ImageDraw.ImageDraw, box: Box, look: CellLook) -> None:
    x0, y0, x1, y1 = box
    s = x1 - x0
    draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=WHITE)
    if look.covered:
        _screen(draw, box)
    thin = max(1, s // 14)
    small = s < SMALL  # an end-screen grid on a small panel: marks fill more of the cell
    if look.mark is Mark.AGENT:
        disc = _centred(box, round(s * (0.7 if small else 0.56)))
        if look.covered:
            draw.ellipse(disc, fill=WHITE, outline=BLACK, width=thin)
        else:
            draw.ellipse(disc, fill=BLACK)
    elif look.mark is Mark.ASSASSIN:
        side = s - 4 if small else round(s * 0.6)
        square = _centred(box, side)
        arm = _centred(box, side - 2 * (1 if small else max(2, s // 8)))
        cross = ((arm[0], arm[1]), (arm[2], arm[3]))
        other = ((arm[0], arm[3]), (arm[2], arm[1]))
        if look.covered:
            draw.rectangle(square, fill=WHITE, outline=BLACK, width=thin)
            draw.line(cross, fill=BLACK, width=thin)
            draw.line(other, fill=BLACK, width=thin)
        else:
            draw.rectangle(square, fill=BLACK)
            draw.line(cross, fill=WHITE, width=max(1 if small else 2, s // 9))
            draw.line(other, fill=WHITE, width=max(1 if small else 2, s // 9))
    frame = max(2, s // 12) if look.framed else 0
    if small and look.framed:
        # No room inside the frame for an arrow: the arrow goes over the frame's
        # edge, which stays whole on the other three sides (never the arrow hidden).
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=BLACK, width=frame)
    inset = 0 if small else frame  # inside the frame of the last touch, not under it
    keep = frame if small else 0  # the frame's top and bottom stay whole
    for who in look.missed_by:
        _miss(draw, (x0 + inset, y0 + inset, x1 - inset, y1 - inset), toward(who), keep)
    if look.framed and not small:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), outline=BLACK, width=frame)


def _centred(box: Box, side: int) -> Box:
    """A square of `side` pixels centred in the box (inclusive corners, for ImageDraw)."""
    x0, y0, x1, y1 = box
    left = x0 + (x1 - x0 - side) // 2
    top = y0 + (y1 - y0 - side) // 2
    return (left, top, left + side - 1, top + side - 1)


def _miss(draw: ImageDraw.ImageDraw, box: Box, direction: int, keep: int = 0) -> None:
    """A timer token's arrow, pointing to the seat that guessed: down (+1), along the
    left edge, for the viewer's own misses; up (-1), along the right edge, for the
    partner's. The marks leave both edges free on the play screen; where cells are
    small, a white band keeps the arrow apart from a mark it would touch (but for
    `keep` rows at the top and bottom: a frame's, where the arrow crosses it)."""
    x0, y0, x1, y1 = box
    s = x1 - x0
    head = max(3 if s < SMALL else 5, (s // 5) | 1)  # odd: the apex on the shaft's centre column
    shaft = max(1 if s < SMALL else 2, s // 10)
    pad = max(1, s // 16)
    left = x0 + pad if direction > 0 else x1 - 1 - pad - head + 1
    mid = left + head // 2
    top, bottom = y0 + pad + 1, y1 - 1 - pad - 1
    band = (max(x0, left - 1), y0 + keep, min(x1 - 1, left + head), y1 - 1 - keep)
    draw.rectangle(band, fill=WHITE)
    draw.rectangle((mid - shaft // 2, top, mid - shaft // 2 + shaft - 1, bottom), fill=BLACK)
    tip, base = (bottom, bottom - head // 2 - 1) if direction > 0 else (top, top + head // 2 + 1)
    draw.polygon([(left, base), (left + head - 1, base), (mid, tip)], fill=BLACK)
