"""How large the screens' words are on the real panel: each text box's cap height
(the height of a capital H at the box's type size) in millimetres, from the
panel's pixel size (`panels.pixel_mm`). Every box any screen draws text in is
measured (`text_slots`), so a later change cannot shrink a word unseen.

The goal is 2.0 mm at arm's length (issue 22); docs/screens.md has each
panel's figure.

The grid's marks and the counters' signs (issue 31): every stroke at least
MARK_MM on the panel, `stroke_px` whole pixels (a 2-pixel line on the 2.13" is
0.39 mm, so its strokes are 3 pixels; on the others 2 pixels make 0.42-0.45 mm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .panels import PanelSpec, pixel_mm
from .text import TextBox, font

GOAL_MM = 2.0
MARK_MM = 0.4  # the thinnest stroke of a mark that carries the game, read at 70 cm


def stroke_px(spec: PanelSpec) -> int:
    """The fewest whole pixels that make MARK_MM on `spec`'s panel."""
    return math.ceil(MARK_MM / pixel_mm(spec.model) - 1e-9)


def cap_height(size: int) -> int:
    """The pixels a capital letter stands at type `size`."""
    _, top, _, bottom = font(size).getbbox("H", anchor="ls")
    return int(bottom - top)


@dataclass(frozen=True)
class Smallest:
    """The smallest text on one mounted panel: its slot, type size and cap height."""

    slot: str
    size: int
    mm: float


def smallest(spec: PanelSpec, slots: dict[str, list[TextBox]]) -> Smallest:
    """The smallest text of `slots` (a panel's text boxes, by slot) on `spec`."""
    size, slot = min((box.size, name) for name, boxes in slots.items() for box in boxes)
    return Smallest(slot, size, round(cap_height(size) * pixel_mm(spec.model), 2))
