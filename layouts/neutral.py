"""The neutral picture: idle between games, the menu, the service switched off.

It shows no key and nothing of any game, the same on both seats: an empty
5x5 grid as the stand's emblem, the name, and one or two lines of what the
stand is doing. e-ink keeps its last picture without power, so this is what a
panel shows when the stand stops or a game is abandoned.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import i18n
from .geometry import grid_side
from .panels import PanelSpec
from .text import BLACK, TextBox, draw_text, line_height
from .view import NeutralView

BRAND = "keystand"


@dataclass(frozen=True)
class NeutralLayout:
    emblem: tuple[int, int, int]  # x, y, cell
    brand: TextBox
    title: TextBox
    sub: TextBox

    def slots(self) -> dict[str, list[TextBox]]:
        return {"neutral_title": [self.title], "neutral_sub": [self.sub]}


def layout(panel: PanelSpec) -> NeutralLayout:
    w, h = panel.size
    st = panel.style
    m = st.margin + st.gap
    text_h = line_height(st.title) + line_height(st.headline) + 2 * line_height(st.body)
    if panel.landscape:
        cell = (min(h - 2 * m, w // 2 - m) - 1) // 5
        side = grid_side(cell)
        ex, ey = m + (w // 2 - m - side) // 2, (h - side) // 2
        tx, tw = w // 2, w // 2 - m
        ty = (h - text_h) // 2
    else:
        cell = (min(w - 2 * m, h - 2 * m - text_h - st.gap) - 1) // 5
        side = grid_side(cell)
        ex, ey = (w - side) // 2, m
        tx, tw = st.margin, w - 2 * st.margin
        ty = ey + side + st.gap
    brand = TextBox(tx, ty, tw, st.title)
    title = TextBox(tx, brand.y + brand.h, tw, st.headline)
    sub = TextBox(tx, title.y + title.h, tw, st.body, 2)
    return NeutralLayout((ex, ey, cell), brand, title, sub)


def draw(image: Image.Image, view: NeutralView, panel: PanelSpec, lang: str) -> None:
    lay = layout(panel)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    x, y, cell = lay.emblem
    side = grid_side(cell)
    for k in range(6):
        d.line((x + k * cell, y, x + k * cell, y + side - 1), fill=BLACK)
        d.line((x, y + k * cell, x + side - 1, y + k * cell), fill=BLACK)
    d.rectangle((x - 1, y - 1, x + side, y + side), outline=BLACK)
    s = i18n.strings(lang)
    draw_text(d, BRAND, lay.brand, center=True)
    draw_text(d, s["neutral_title"][view.kind.value], lay.title, center=True)
    draw_text(d, s["neutral_sub"][view.kind.value], lay.sub, center=True)
