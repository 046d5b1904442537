"""Text in a box: word wrap, measuring with the font's own text box, drawing in 1 bit.

A `TextBox` is where one slot's text goes: its position, width, the type size
and how many lines it may take. `wrap` and `fits` are what the renderer uses
and what the tests measure with, so a string that passes the tests is drawn
exactly as measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .fonts import font

BLACK = 0
WHITE = 1


@dataclass(frozen=True)
class TextBox:
    x: int
    y: int
    w: int
    size: int
    lines: int = 1

    @property
    def font(self) -> ImageFont.FreeTypeFont:
        return font(self.size)

    @property
    def line_height(self) -> int:
        return line_height(self.size)

    @property
    def h(self) -> int:
        return self.lines * self.line_height

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (self.x, self.y, self.x + self.w, self.y + self.h)


def line_height(size: int) -> int:
    ascent, descent = font(size).getmetrics()
    return ascent + descent


# A screen redraws the same few dozen lines at every touch (labels, counters, the
# words of the menu); FreeType measured and rasterised each one every time, the
# largest part of a frame's drawing on the 4.2" (BENCHMARKS.md). Both are kept,
# per line and size, the last thousand lines.
@lru_cache(maxsize=1024)
def bbox(text: str, size: int) -> tuple[int, int, int, int]:
    """The inked box of `text` on one line at `size`, from its top-left origin."""
    x0, y0, x1, y1 = font(size).getbbox(text, anchor="la")
    return int(x0), int(y0), int(x1), int(y1)  # whole pixels from FreeType


@lru_cache(maxsize=1024)
def _ink(text: str, size: int) -> Image.Image:
    """`text` rasterised as Pillow draws it on a 1-bit image: its inked box, 1 where ink."""
    x0, y0, x1, y1 = bbox(text, size)
    mask = Image.new("1", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), text, font=font(size), fill=1, anchor="la")
    return mask


def width(text: str, size: int) -> int:
    """The inked width of `text` on one line (the font's text box, not an estimate)."""
    if not text:
        return 0
    x0, _, x1, _ = bbox(text, size)
    return x1 - x0


SHY = "\u00ad"  # a soft hyphen: a line may break there, and shows "-" only if it does


def shown(line: str) -> str:
    """A wrapped line as drawn: a soft hyphen at its end a "-", any other gone."""
    if line.endswith(SHY):
        line = line[:-1] + "-"
    return line.replace(SHY, "")


def _pieces(word: str) -> list[str]:
    """A word split after each hyphen (or soft hyphen): the places a line may break
    inside it."""
    pieces, start = [], 0
    for k, ch in enumerate(word):
        if ch in ("-", SHY) and 0 < k < len(word) - 1:
            pieces.append(word[start : k + 1])
            start = k + 1
    pieces.append(word[start:])
    return pieces


def wrap(text: str, size: int, w: int) -> list[str]:
    """`text` broken into lines of at most `w` pixels where it allows: at spaces and
    after hyphens (a card code breaks between its groups) or soft hyphens.

    A piece longer than a line stays whole on its own line (and `fits` says no).
    """
    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):  # a no-break space joins, as its name says
            if not word:
                continue
            for k, piece in enumerate(_pieces(word)):
                trial = line + piece if (k or not line) else f"{line} {piece}"
                if line and width(shown(trial), size) > w:
                    lines.append(line)
                    line = piece
                else:
                    line = trial
        lines.append(line)
    return [shown(line) for line in lines]


def fits(text: str, box: TextBox) -> bool:
    """Whether `text` wrapped to the box's width takes at most its lines, every line
    inside the box left to right and top to bottom."""
    lines = wrap(text, box.size, box.w)
    if len(lines) > box.lines:
        return False
    for line in lines:
        if not line:
            continue
        x0, y0, x1, y1 = bbox(line, box.size)
        if x1 - x0 > box.w or y0 < 0 or y1 > box.line_height:
            return False
    return True


def draw_text(
    draw: ImageDraw.ImageDraw,
    text: str,
    box: TextBox,
    *,
    fill: int = BLACK,
    center: bool = False,
    right: bool = False,
    middle: bool = False,
    height: int | None = None,
) -> None:
    """Draw `text` wrapped in `box`, left aligned, centred or right aligned; `middle`
    centres the lines vertically in `height` pixels (default the box's own height)."""
    lines = wrap(text, box.size, box.w)[: box.lines]
    lh = box.line_height
    y = box.y
    if middle:
        y += ((height or box.h) - len(lines) * lh) // 2
    for line in lines:
        if line:
            x0, y0, x1, _ = bbox(line, box.size)
            spare = box.w - (x1 - x0)
            x = box.x + (spare // 2 if center else spare if right else 0)
            draw.bitmap((x, y + y0), _ink(line, box.size), fill=fill)
        y += lh
