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

import importlib
from typing import TYPE_CHECKING

from PIL import Image

from .geometry import Box, screen_cell
from .i18n import DEFAULT, languages
from .keys import KeyLabel, KeyLabels
from .panels import EDGES, MODELS, PanelSpec, panel
from .text import WHITE, TextBox
from .view import (
    Counter,
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

if TYPE_CHECKING:
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
    from .menu import CampaignLine, HistoryLine, MenuItem, MenuLine, MenuView

    AnyView = SeatView | NeutralView | MenuView | SpymastersView | OperativesView

# The screens a stand seldom starts on load with their first use, not with the
# package: a cold start draws its first frame sooner (BENCHMARKS.md, "Render, start-up, memory").
LAZY = {
    **dict.fromkeys(("CampaignLine", "HistoryLine", "MenuItem", "MenuLine", "MenuView"), "menu"),
    **dict.fromkeys(
        (
            "ClassicLast",
            "ClassicLastKind",
            "ClassicPublic",
            "ClassicStage",
            "Colour",
            "OperativesView",
            "SpymastersView",
            "Team",
            "Win",
        ),
        "classic_view",
    ),
}


def __getattr__(name: str) -> object:
    if name == "AnyView":
        from .classic_view import OperativesView, SpymastersView
        from .menu import MenuView

        return SeatView | NeutralView | MenuView | SpymastersView | OperativesView
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{LAZY[name]}", __name__), name)


__all__ = [
    "DEFAULT",
    "EDGES",
    "MODELS",
    "Box",
    "CampaignLine",
    "ClassicLast",
    "ClassicLastKind",
    "ClassicPublic",
    "ClassicStage",
    "Colour",
    "Counter",
    "End",
    "Ending",
    "HistoryLine",
    "KeyLabel",
    "KeyLabels",
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
    over all screens: what the tests measure every string against. With keys, the
    screens' boxes lie beside the strip (in the screen's own coordinates: only
    their sizes matter) and the labels' boxes are the slot "key"."""
    from . import classic, end, keys, menu, neutral, play

    screen = spec.screen()
    slots: dict[str, list[TextBox]] = {}
    screens = (
        play.layout(screen),
        end.layout(screen),
        neutral.layout(spec),  # a neutral picture shows no keys: the whole panel
        menu.layout(screen),
        classic.layout(screen, timed=False),
        classic.layout(screen, timed=True),
    )
    for found in (*(lay.slots() for lay in screens), keys.slots(spec)):
        for name, boxes in found.items():
            slots.setdefault(name, []).extend(boxes)
    return slots


def render_with_boxes(
    view: AnyView, spec: PanelSpec, lang: str = DEFAULT, keys: KeyLabels | None = None
) -> tuple[Image.Image, dict[int, Box]]:
    """The seat's screen, upright as it reads it, and each table cell's box in it
    (the seat's own grid; none on a neutral picture). With `keys` on a panel with
    keys (`spec.keys`), the screen lies beside a strip saying what each key does
    now; without, on the whole panel."""
    if lang not in languages():
        raise ValueError(f"language {lang!r}: expected one of {', '.join(languages())}")
    if spec.keys is None or keys is None:
        return _screen(view, spec, lang)
    from . import keys as labels

    screen, boxes = _screen(view, spec.screen(), lang)
    image = Image.new("1", spec.size, WHITE)
    x, y = spec.origin
    image.paste(screen, (x, y))
    labels.draw(image, keys, spec, lang)
    return image, {i: (x0 + x, y0 + y, x1 + x, y1 + y) for i, (x0, y0, x1, y1) in boxes.items()}


def _screen(view: AnyView, spec: PanelSpec, lang: str) -> tuple[Image.Image, dict[int, Box]]:
    image = Image.new("1", spec.size, WHITE)
    # Each screen's module is imported where it is drawn: a menu or a classic
    # view exists only once its module is loaded, so the checks cost nothing.
    if isinstance(view, SeatView):
        if view.stage is Stage.OVER:
            from . import end

            return image, end.draw(image, view, spec, lang)
        from . import play

        return image, play.draw(image, view, spec, lang)
    if isinstance(view, NeutralView):
        from . import neutral

        neutral.draw(image, view, spec, lang)
        return image, {}
    from . import menu

    if isinstance(view, menu.MenuView):
        menu.draw(image, view, spec, lang)
        return image, {}
    from . import classic

    return classic.render_with_boxes(view, spec, lang)


def render(
    view: AnyView, spec: PanelSpec, lang: str = DEFAULT, keys: KeyLabels | None = None
) -> Image.Image:
    """The seat's screen: a 1-bit image of the panel's upright size."""
    return render_with_boxes(view, spec, lang, keys)[0]


def cell_boxes(view: AnyView, spec: PanelSpec) -> dict[int, Box]:
    """Each table cell's box (x0, y0, x1, y1; x1, y1 exclusive) in the rendered image."""
    return render_with_boxes(view, spec)[1]
