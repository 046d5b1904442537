"""Pillow renderers from a seat view and a panel spec to a 1-bit image (docs/design.md "Layout").

Imports nothing of keystand: it defines the seat view it draws (`view.py`).

>>> from keystand.layouts import panel, render
>>> image = render(view, panel("epd2in13_V4"), lang="de")   # doctest: +SKIP

One module per screen: `play.py` (a game in progress), `end.py` (the end of a
game, both sides), `neutral.py` (idle, menu, switched off: no key),
`classic.py` (classic Codenames: the spymasters' key and the operatives' board,
drawn from `classic_view.py`'s views). The half
turn of seat B lives in `geometry.py` only; sizes per panel in `panels.py`;
the words in `strings/<lang>.toml`; the font in `fonts/`.
"""

from __future__ import annotations

from PIL import Image

from . import end, menu, neutral, play
from .classic_view import (
    ClassicLast,
    ClassicLastKind,
    ClassicPublic,
    ClassicStage,
    Colour,
    OperativesView,
    SpymastersView,
    Team,
    Win,
)
from .geometry import Box, screen_cell
from .i18n import DEFAULT, languages
from .menu import HistoryLine, MenuItem, MenuLine, MenuView
from .panels import MODELS, PanelSpec, panel
from .text import WHITE, TextBox
from .view import (
    End,
    Ending,
    Last,
    LastKind,
    Mark,
    MissionLabel,
    Neutral,
    NeutralView,
    Repaired,
    SeatId,
    SeatView,
    Shape,
    Stage,
    Who,
)

__all__ = [
    "DEFAULT",
    "MODELS",
    "Box",
    "ClassicLast",
    "ClassicLastKind",
    "ClassicPublic",
    "ClassicStage",
    "Colour",
    "End",
    "Ending",
    "HistoryLine",
    "Last",
    "LastKind",
    "Mark",
    "MenuItem",
    "MenuLine",
    "MenuView",
    "MissionLabel",
    "Neutral",
    "NeutralView",
    "OperativesView",
    "PanelSpec",
    "Repaired",
    "SeatId",
    "SeatView",
    "Shape",
    "SpymastersView",
    "Stage",
    "Team",
    "TextBox",
    "Who",
    "Win",
    "cell_boxes",
    "languages",
    "panel",
    "render",
    "render_with_boxes",
    "screen_cell",
    "text_slots",
]


def text_slots(spec: PanelSpec) -> dict[str, list[TextBox]]:
    """Every box text is drawn in on `spec`, by slot (a strings table, `i18n.slot`),
    over all screens: what the tests measure every string against."""
    from . import classic

    slots: dict[str, list[TextBox]] = {}
    screens = (
        play.layout(spec),
        end.layout(spec),
        neutral.layout(spec),
        menu.layout(spec),
        classic.layout(spec, timed=False),
        classic.layout(spec, timed=True),
    )
    for lay in screens:
        for name, boxes in lay.slots().items():
            slots.setdefault(name, []).extend(boxes)
    return slots


AnyView = SeatView | NeutralView | MenuView | SpymastersView | OperativesView


def render_with_boxes(
    view: AnyView, spec: PanelSpec, lang: str = DEFAULT
) -> tuple[Image.Image, dict[int, Box]]:
    """The seat's screen, upright as it reads it, and each table cell's box in it
    (the seat's own grid; none on a neutral picture)."""
    if lang not in languages():
        raise ValueError(f"language {lang!r}: expected one of {', '.join(languages())}")
    if isinstance(view, SpymastersView | OperativesView):
        from . import classic  # loaded with the first classic screen, not with Duet's

        return classic.render_with_boxes(view, spec, lang)
    image = Image.new("1", spec.size, WHITE)
    if isinstance(view, NeutralView):
        neutral.draw(image, view, spec, lang)
        return image, {}
    if isinstance(view, MenuView):
        menu.draw(image, view, spec, lang)
        return image, {}
    if view.stage is Stage.OVER:
        return image, end.draw(image, view, spec, lang)
    return image, play.draw(image, view, spec, lang)


def render(view: AnyView, spec: PanelSpec, lang: str = DEFAULT) -> Image.Image:
    """The seat's screen: a 1-bit image of the panel's upright size."""
    return render_with_boxes(view, spec, lang)[0]


def cell_boxes(view: AnyView, spec: PanelSpec) -> dict[int, Box]:
    """Each table cell's box (x0, y0, x1, y1; x1, y1 exclusive) in the rendered image."""
    return render_with_boxes(view, spec)[1]
