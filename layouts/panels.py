"""The four Waveshare panels, how they are mounted, and their type sizes: data, not code.

A panel's controller addresses it in its native frame (width x height as the
vendor's module names them). `rotation` is how the panel is mounted: the
clockwise turn, in degrees, that takes the reader's upright image to that
native frame (the same convention as `keystand.drivers`). The layouts draw the
upright image; a driver turns it.

Everything that differs between panels is a `Style` below; the screen modules
hold one look each and read their sizes from here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

ROTATIONS = (0, 90, 180, 270)


@dataclass(frozen=True)
class Style:
    """Type sizes (pixels) and how many lines each text slot gets on one panel.

    The play screen: the grid on the left (landscape) or on top (portrait), at
    most `grid` pixels a side, and a column beside it, top down: `headline` (the
    seat's role, bold), `sub` (the other role), the two counters (a `label` over
    a `number`, or beside it when `counter_inline`), `last` (the last input or a
    refused one) and `note` (the announcement); with `shared_message` the last
    two share one box of `note_lines` (a refusal first, then the announcement,
    then the last input). The end screen: `title`, `reason`, the score as a
    counter, the card code at `code` size (one its characters cannot be confused
    at: tests/test_card_code_legible.py), and the two sides;
    `end_beside` puts the words in a column `end_text` wide beside the grids
    instead of in a band above them.
    """

    grid: int
    headline: int
    body: int
    label: int
    number: int
    title: int
    headline_lines: int = 2
    sub_lines: int = 1
    last_lines: int = 1
    note_lines: int = 2
    reason_lines: int = 2
    margin: int = 2
    gap: int = 4
    counter_inline: bool = False
    counter_signs: bool = False  # a sign, not a word, names each counter (too small a box)
    shared_message: bool = False
    end_beside: bool = False
    end_text: int = 0
    code: int = 13  # the card code's type size
    hint_lines: int = 1  # the menu's foot line (what the keys do), landscape; portrait 2
    code_across: bool = False  # the end screen's code and foot line span the width
    foot_lines: int = 1  # the end screen's line under the code: what starts the next game


@dataclass(frozen=True)
class PanelSpec:
    """One mounted panel: the model, its native frame and the mounting rotation."""

    model: str
    width: int
    height: int
    diagonal: str
    rotation: int

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            raise ValueError(f"rotation {self.rotation}: expected 0, 90, 180 or 270")

    @property
    def size(self) -> tuple[int, int]:
        """The upright image size (what the seat reads)."""
        w, h = self.width, self.height
        return (w, h) if self.rotation in (0, 180) else (h, w)

    @property
    def landscape(self) -> bool:
        w, h = self.size
        return w >= h

    @property
    def style(self) -> Style:
        base = _STYLES[self.model]
        return base if self.landscape else _PORTRAIT.get(self.model, base)


# Native frames as the vendor's modules define EPD_WIDTH x EPD_HEIGHT.
NATIVE: dict[str, tuple[int, int, str]] = {
    "epd2in13_V4": (122, 250, '2.13"'),
    "epd2in7_V2": (176, 264, '2.7"'),
    "epd2in9_V2": (128, 296, '2.9"'),
    "epd4in2_V2": (400, 300, '4.2"'),
}
MODELS: tuple[str, ...] = tuple(NATIVE)
# Each panel's active area, its long side by its short side in millimetres, from
# Waveshare's specification pages ("Display area" / "Display size"): 2.13inch
# e-Paper HAT (V4) 48.55 x 23.71; 2.7inch e-Paper HAT (V2) 57.288 x 38.192;
# 2.9inch e-Paper Module (V2) 66.89 x 29.05; 4.2inch e-Paper Module (V2) 84.8 x 63.6.
# Over the pixels: a pixel is 0.194, 0.217, 0.226 and 0.212 mm.
ACTIVE_AREA_MM: dict[str, tuple[float, float]] = {
    "epd2in13_V4": (48.55, 23.71),
    "epd2in7_V2": (57.288, 38.192),
    "epd2in9_V2": (66.89, 29.05),
    "epd4in2_V2": (84.8, 63.6),
}


def pixel_mm(model: str) -> float:
    """The side of one pixel of `model`, in millimetres (its active area's long side
    over its long side's pixels)."""
    width, height, _ = NATIVE[model]
    return ACTIVE_AREA_MM[model][0] / max(width, height)


# All four are 110-130 pixels per inch. Sizes are for reading at arm's length:
# every word's capitals at least 2.0 mm tall on the panel (layouts/legibility.py:
# 11 px type on the 2.9", 13 px on the 2.7", 14 px on the 2.13" and the 4.2"),
# the role bold and larger, the counters' digits at least 18 px. Each was tuned by
# looking at the screens (docs/screens.png) and is held by the tests: every
# string of every language fits its box.
_STYLES: dict[str, Style] = {
    "epd2in13_V4": Style(
        grid=94,
        headline=15,
        body=14,
        label=14,
        number=18,
        title=15,
        note_lines=2,
        reason_lines=2,
        shared_message=True,
        counter_signs=True,
        end_beside=True,
        end_text=116,
        code_across=True,
        hint_lines=2,
        code=14,
    ),
    "epd2in9_V2": Style(
        grid=128,
        headline=16,
        body=11,
        label=11,
        number=18,
        title=16,
        counter_inline=True,
        reason_lines=3,
        end_beside=True,
        end_text=92,
    ),
    "epd2in7_V2": Style(
        grid=142,
        headline=15,
        body=13,
        label=13,
        number=24,
        counter_signs=True,
        title=20,
        sub_lines=2,
        note_lines=3,
        reason_lines=1,
        shared_message=True,
        hint_lines=2,
    ),
    # The 4.2": the grid as large as the column of words beside it allows (its
    # narrowest is 148 px: Russian "отгадываете" in the 22 px headline, "mistakes"
    # over its number), the numbers larger (issue 31: the panel's area used).
    "epd4in2_V2": Style(
        grid=236,
        headline=22,
        body=16,
        label=14,
        number=44,
        title=28,
        sub_lines=2,
        last_lines=3,
        note_lines=3,
        reason_lines=1,
        margin=4,
        gap=8,
        code=16,
    ),
}
# Mounted on end: the grid on top, the column below it wide and short.
_PORTRAIT: dict[str, Style] = {
    "epd2in13_V4": replace(
        _STYLES["epd2in13_V4"],
        grid=94,
        sub_lines=2,
        note_lines=3,
        end_beside=False,
        code_across=False,
        reason_lines=2,
        foot_lines=2,
        hint_lines=4,
        gap=2,  # the grid's 18 px cells and three lines of notes: every pixel counts
    ),
    "epd2in9_V2": replace(
        _STYLES["epd2in9_V2"],
        counter_inline=False,
        last_lines=2,
        end_beside=False,
        reason_lines=2,
    ),
    "epd2in7_V2": replace(
        _STYLES["epd2in7_V2"],
        grid=131,
        counter_inline=True,
        sub_lines=1,
        note_lines=2,
        reason_lines=2,
    ),
    "epd4in2_V2": replace(
        _STYLES["epd4in2_V2"],
        headline_lines=1,
        counter_inline=True,
        sub_lines=1,
        last_lines=1,
        note_lines=2,
        reason_lines=2,
        # Upright, the end screen's grids are as wide as the panel allows and the
        # height left over goes to its words.
        title=36,
        code=22,
    ),
}


def panel(model: str, rotation: int | None = None) -> PanelSpec:
    """The panel `model` mounted at `rotation`; by default mounted landscape, upright."""
    try:
        width, height, diagonal = NATIVE[model]
    except KeyError:
        raise ValueError(f"panel model {model!r}: expected one of {', '.join(MODELS)}") from None
    if rotation is None:
        rotation = 90 if width < height else 0
    return PanelSpec(model, width, height, diagonal, rotation)
