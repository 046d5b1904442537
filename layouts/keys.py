"""The key labels: what each of the seat's keys does now, drawn beside the key.

A seat's keys sit along one edge of its screen (`PanelSpec.keys`); the strip at
that edge is cut into one band per key, in the order the keys sit (top to
bottom along a side, left to right along the top or bottom), and each band
says what its key does at this moment, in the seat's language: "Clue", "End
turn", "Next"... A key that does something only when held says so ("Menu
(hold)"); a key that does nothing now has an empty band. The host decides the
meanings (they are the stand's, not the game's view) and hands them over as
`KeyLabel`s; this module only draws them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import i18n
from .panels import PanelSpec
from .text import BLACK, TextBox, draw_text, line_height

PAD = 1  # between a label and its band's edges
POINTER = 3  # the pointer's length toward the key, in pixels


@dataclass(frozen=True)
class KeyLabel:
    """What one key does now: a key of the strings' [key] table (None: nothing),
    and whether only holding it does that. A key that gives a value carries it
    after a colon, drawn into its string's {n}: "give:2" is "Clue 2", and the
    clue's number "unlimited" is drawn "∞"."""

    word: str | None = None
    held: bool = False


KeyLabels = tuple[KeyLabel, ...]  # in the order the keys sit along their edge
KEYS = 4  # a seat's keys: clue, pass, undo, menu


def bands(spec: PanelSpec, count: int = KEYS) -> tuple[tuple[int, int, int, int], ...]:
    """The strip cut into `count` equal bands along its edge, in the keys' order."""
    strip = spec.strip
    assert strip is not None, "a panel without keys has no labels"
    x0, y0, x1, y1 = strip
    if spec.axis == "side":
        return tuple(
            (x0, y0 + (y1 - y0) * k // count, x1, y0 + (y1 - y0) * (k + 1) // count)
            for k in range(count)
        )
    return tuple(
        (x0 + (x1 - x0) * k // count, y0, x0 + (x1 - x0) * (k + 1) // count, y1)
        for k in range(count)
    )


def boxes(spec: PanelSpec, count: int = KEYS) -> tuple[TextBox, ...]:
    """Where each key's label goes: inside its band, clear of the pointer toward the
    key and of the line between the strip and the screen, its lines centred."""
    st = spec.screen().style
    size, lh = st.label, line_height(st.label)  # the counters' labels' size: small, legible
    out = []
    for x0, y0, x1, y1 in bands(spec, count):
        left, right = x0 + PAD + _lead(spec, "left"), x1 - PAD - _lead(spec, "right")
        top, bottom = y0 + _lead(spec, "top"), y1 - _lead(spec, "bottom")
        lines = min(st.key_lines, max(1, (bottom - top) // lh))
        y = top + (bottom - top - lines * lh) // 2
        out.append(TextBox(left, y, right - left, size, lines))
    return tuple(out)


def _lead(spec: PanelSpec, side: str) -> int:
    """Pixels kept clear on `side` of each band: the line to the screen on the
    inner side, the pointer on the keys' side."""
    if side == spec.keys:
        return POINTER + 1
    inner = {"left": "right", "right": "left", "top": "bottom", "bottom": "top"}[spec.keys or ""]
    return 2 if side == inner else 0


def slots(spec: PanelSpec) -> dict[str, list[TextBox]]:
    """The labels' boxes, the slot of the [key] strings (none without keys)."""
    return {"key": list(boxes(spec))} if spec.keys is not None else {}


def text(strings: Mapping[str, Mapping[str, str]], label: KeyLabel) -> str:
    """A label's words: the meaning, with "(hold)" when only holding the key does it."""
    assert label.word is not None
    name, _, value = label.word.partition(":")
    word = strings["key"][name]
    if value:
        from .classic_view import number_text  # the only value a key gives: a clue's number

        word = word.replace("{n}", number_text(value))
    return strings["key"]["held"].format(label=word) if label.held else word


def draw(image: Image.Image, labels: KeyLabels, spec: PanelSpec, lang: str) -> None:
    """The strip: a line apart from the screen, and each key's label in its band,
    a small pointer on the edge toward the key."""
    strip = spec.strip
    assert strip is not None
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    s = i18n.strings(lang)
    x0, y0, x1, y1 = strip
    line = {
        "left": (x1 - 1, y0, x1 - 1, y1 - 1),
        "right": (x0, y0, x0, y1 - 1),
        "top": (x0, y1 - 1, x1 - 1, y1 - 1),
        "bottom": (x0, y0, x1 - 1, y0),
    }[spec.keys or ""]
    d.line(line, fill=BLACK)
    for label, band, box in zip(
        labels, bands(spec, len(labels)), boxes(spec, len(labels)), strict=True
    ):
        if label.word is None:
            continue
        draw_text(d, text(s, label), box, center=True, middle=True)
        _pointer(d, spec, band)


def _pointer(d: ImageDraw.ImageDraw, spec: PanelSpec, band: tuple[int, int, int, int]) -> None:
    """A small solid triangle at the band's middle, on the keys' edge, pointing at
    the key: the label belongs to the key beside it."""
    x0, y0, x1, y1 = band
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    p = POINTER
    shape = {
        "left": [(x0, cy), (x0 + p, cy - p), (x0 + p, cy + p)],
        "right": [(x1 - 1, cy), (x1 - 1 - p, cy - p), (x1 - 1 - p, cy + p)],
        "top": [(cx, y0), (cx - p, y0 + p), (cx + p, y0 + p)],
        "bottom": [(cx, y1 - 1), (cx - p, y1 - 1 - p), (cx + p, y1 - 1 - p)],
    }[spec.keys or ""]
    d.polygon(shape, fill=BLACK)
