"""The panels, how they are mounted, and their type sizes: data, not code.

A panel's controller addresses it in its native frame (width x height as the
vendor's module names them). `rotation` is how the panel is mounted: the
clockwise turn, in degrees, that takes the reader's upright image to that
native frame (the same convention as `keystand.drivers`). The layouts draw the
upright image; a driver turns it.

Everything that differs between panels is a `Style` below; the screen modules
hold one look each and read their sizes from here. What a model is (its native
frame, diagonal, active area) is its record's (keystand.panel_models); this
module adds only how the screens are laid out on it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from keystand.panel_models import PANELS

ROTATIONS = (0, 90, 180, 270)
# The edges of the upright picture a seat's keys may sit along: their labels are
# drawn in a strip there (`PanelSpec.keys`, layouts/keys.py). Left and right are
# one "side" strip, top and bottom one "end" strip: each has its own styles.
EDGES = ("left", "right", "top", "bottom")


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
    # A key-label strip (the styles of `_KEYED`): its thickness across the edge, in
    # pixels, and the lines of `body` type each key's label may take.
    key_strip: int = 0
    key_lines: int = 1
    # The play screens' words across the whole width, over and under the grid (the
    # headline above, the message below), the counters and the line under the
    # headline in a block beside the grid: for an area too narrow for a column of
    # words beside a grid (the 2.7" beside its keys' labels).
    across: bool = False
    menu_split: float = 0.5  # the menu's share of its width for the entries' names (landscape)
    menu_stacked: bool = False  # each entry's value on a line under its name, as on end
    # The end screen's words beside the grids have no room for the score under
    # them: it stands, a framed number, at the right of the mission's line.
    end_score_row: bool = False
    # The end screen's mission at the right of the title's line (a wide band of
    # words: its line goes to the grids) rather than on a line under it.
    end_mission_by_title: bool = False
    # The Duet play screen's lines for the sub where it needs fewer than `sub_lines`
    # (classic's): its room goes to the mission's line under the grid (0: the same).
    play_sub_lines: int = 0


@dataclass(frozen=True)
class PanelSpec:
    """One mounted panel: the model, its native frame, the mounting rotation, and
    the edge of the upright picture along which the seat's keys sit (None: no
    labelled keys beside it; then every screen has the whole picture).

    With keys, each screen is drawn in `screen()`, the picture less the strip at
    that edge (`strip`), where layouts/keys.py draws what each key does now."""

    model: str
    width: int
    height: int
    diagonal: str
    rotation: int
    keys: str | None = None
    # Set on the spec `screen()` gives: the size and style of the area beside the
    # labels, which every screen's layout takes for a panel of its own.
    area: tuple[int, int] | None = None
    area_style: Style | None = None
    labelled: bool = False  # the area lies beside key labels: no screen says what keys do

    def __post_init__(self) -> None:
        if self.rotation not in ROTATIONS:
            raise ValueError(f"rotation {self.rotation}: expected 0, 90, 180 or 270")
        if self.keys is not None:
            if self.keys not in EDGES:
                raise ValueError(f"keys {self.keys!r}: expected one of {', '.join(EDGES)}")
            if (self.model, self.landscape, self.axis) not in _KEYED:
                raise ValueError(self._no_room())

    def _no_room(self) -> str:
        """Why the keys' edge has no room for labels, and which edges have."""
        how = "landscape" if self.landscape else "portrait"
        edges = [
            e for e in EDGES if (self.model, self.landscape, _axis(e)) in _KEYED and e != self.keys
        ]
        where = f"its {' or '.join(edges)} edge has" if edges else 'no edge has: keys = "none"'
        return (
            f"{self.model} mounted {how} has no room for key labels along its {self.keys} "
            f"edge ({where})"
        )

    @property
    def size(self) -> tuple[int, int]:
        """The upright image size (what the seat reads)."""
        if self.area is not None:
            return self.area
        w, h = self.width, self.height
        return (w, h) if self.rotation in (0, 180) else (h, w)

    @property
    def landscape(self) -> bool:
        w, h = self.size
        return w >= h

    @property
    def style(self) -> Style:
        if self.area_style is not None:
            return self.area_style
        base = _STYLES[self.model]
        return base if self.landscape else _PORTRAIT.get(self.model, base)

    @property
    def axis(self) -> str:
        """'side' for keys along the left or right edge, 'end' for the top or bottom."""
        return _axis(self.keys)

    @property
    def strip(self) -> tuple[int, int, int, int] | None:
        """The key labels' strip in the upright picture (x1, y1 exclusive); None
        without keys."""
        if self.keys is None:
            return None
        w, h = self.size
        t = _KEYED[(self.model, self.landscape, self.axis)].key_strip
        return {
            "left": (0, 0, t, h),
            "right": (w - t, 0, w, h),
            "top": (0, 0, w, t),
            "bottom": (0, h - t, w, h),
        }[self.keys]

    @property
    def origin(self) -> tuple[int, int]:
        """Where `screen()`'s area starts in the upright picture."""
        strip = self.strip
        if strip is None or self.keys in ("right", "bottom"):
            return (0, 0)
        return (strip[2], 0) if self.keys == "left" else (0, strip[3])

    def screen(self) -> PanelSpec:
        """The spec every screen is laid out on: the whole picture without keys, else
        the part beside the key labels, with its own style."""
        strip = self.strip
        if strip is None:
            return self
        w, h = self.size
        t = strip[2] - strip[0] if self.axis == "side" else strip[3] - strip[1]
        area = (w - t, h) if self.axis == "side" else (w, h - t)
        style = _KEYED[(self.model, self.landscape, self.axis)]
        return replace(self, keys=None, area=area, area_style=style, labelled=True)


def _axis(edge: str | None) -> str:
    return "side" if edge in ("left", "right") else "end"


# Each model's native frame (as the vendor's module defines EPD_WIDTH x
# EPD_HEIGHT) with its diagonal, and its active area (long side by short side, in
# millimetres, with its source in the record): from the records.
NATIVE: dict[str, tuple[int, int, str]] = {
    name: (m.width, m.height, m.diagonal) for name, m in PANELS.items()
}
MODELS: tuple[str, ...] = tuple(NATIVE)
ACTIVE_AREA_MM: dict[str, tuple[float, float]] = {name: m.active_mm for name, m in PANELS.items()}


def pixel_mm(model: str) -> float:
    """The side of one pixel of `model`, in millimetres (its active area's long side
    over its long side's pixels): 0.194 mm on the 2.13", 0.217 on the 2.7", 0.226
    on the 2.9", 0.212 on the 4.2"."""
    return PANELS[model].pixel_mm


# The first four are 110-130 pixels per inch, the 4.26" 219. Sizes are for reading
# at arm's length: every word's capitals at least 2.0 mm tall on the panel
# (layouts/legibility.py: 11 px type on the 2.9", 13 px on the 2.7", 14 px on the
# 2.13" and the 4.2", 26 px on the 4.26"),
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
        end_score_row=True,
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
        title=16,  # "Gewonnen!" in the end screen's column of words, the grids' cells 15 px
        sub_lines=2,
        note_lines=3,
        reason_lines=3,
        shared_message=True,
        hint_lines=2,
        end_beside=True,
        end_text=94,
        code_across=True,
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
        reason_lines=2,
        margin=4,
        gap=8,
        code=16,
        end_mission_by_title=True,
    ),
    # The 4.26" (800 x 480, 0.116 mm a pixel): the 4.2"'s look at its pixel size
    # (the same millimetres), the grid as tall as the panel allows.
    "epd4in26": Style(
        grid=440,
        headline=40,
        body=30,
        label=26,
        number=64,
        title=44,
        sub_lines=2,
        last_lines=2,
        note_lines=3,
        reason_lines=1,
        margin=8,
        gap=12,
        code=30,
        end_mission_by_title=True,
    ),
}
# Mounted on end: the grid on top, the column below it wide and short.
_PORTRAIT: dict[str, Style] = {
    "epd2in13_V4": replace(
        _STYLES["epd2in13_V4"],
        grid=94,
        sub_lines=2,
        play_sub_lines=1,  # the mission's line under the grid: each Duet sub fits one
        note_lines=3,
        end_beside=False,
        code_across=False,
        reason_lines=2,
        foot_lines=2,
        hint_lines=4,
        end_score_row=False,
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
        headline=14,
        headline_lines=1,
        counter_inline=True,
        sub_lines=1,
        note_lines=2,
        reason_lines=2,
        end_beside=False,
        code_across=False,
    ),
    "epd4in2_V2": replace(
        _STYLES["epd4in2_V2"],
        headline_lines=1,
        counter_inline=True,
        sub_lines=1,
        last_lines=1,
        note_lines=2,
        reason_lines=2,
        end_mission_by_title=False,  # 214 px beside the score: no room for both
        # Upright, the end screen's grids are as wide as the panel allows and the
        # height left over goes to its words.
        title=36,
        code=22,
    ),
    "epd4in26": replace(
        _STYLES["epd4in26"],
        headline=36,
        headline_lines=1,
        sub_lines=1,
        last_lines=1,
        note_lines=2,
        reason_lines=2,
        end_mission_by_title=False,  # upright: the title's line is the panel's width
        title=56,
        code=40,
    ),
}


def panel(model: str, rotation: int | None = None, keys: str | None = None) -> PanelSpec:
    """The panel `model` mounted at `rotation` (by default landscape, upright), its
    seat's keys along the `keys` edge of the upright picture (None: no labels)."""
    try:
        width, height, diagonal = NATIVE[model]
    except KeyError:
        raise ValueError(f"panel model {model!r}: expected one of {', '.join(MODELS)}") from None
    if rotation is None:
        rotation = 90 if width < height else 0
    return PanelSpec(model, width, height, diagonal, rotation, keys)


def _keyed(model: str, landscape: bool, **changes: object) -> Style:
    base = _STYLES[model] if landscape else _PORTRAIT.get(model, _STYLES[model])
    return replace(base, **changes)  # type: ignore[arg-type]


# The styles of each screen beside a strip of key labels, by model, mounting
# (landscape or not) and the strip's axis: a mounting with no entry has no room
# for labels along that axis (`PanelSpec` refuses it). `key_strip` is the strip's
# thickness; the rest shrinks the screen into what is left.
_KEYED: dict[tuple[str, bool, str], Style] = {
    ("epd2in7_V2", True, "side"): _keyed(
        "epd2in7_V2",
        True,
        key_strip=65,
        key_lines=2,
        across=True,
        headline_lines=1,
        sub_lines=3,  # classic's; the Duet screen's two lines leave room for the mission
        play_sub_lines=2,
        note_lines=2,
        reason_lines=2,
        end_beside=False,  # beside the labels the words go above the two grids
        end_mission_by_title=True,
        end_score_row=True,  # the score a framed number at the title's right
        title=15,
        code_across=True,
        number=22,
        gap=2,
        menu_stacked=True,
    ),
    ("epd2in9_V2", True, "end"): _keyed("epd2in9_V2", True, key_strip=19),
    ("epd4in2_V2", True, "end"): _keyed("epd4in2_V2", True, key_strip=22),
    ("epd4in26", True, "end"): _keyed("epd4in26", True, key_strip=40),
}
