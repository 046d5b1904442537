"""The neutral picture: idle between games, the menu, the service switched off.

It shows no key and nothing of any game, the same on both seats: an empty
5x5 grid as the stand's emblem (`EMBLEM`: a picture, whatever grid a game
has), the name, and one or two lines of what the stand is doing. e-ink
keeps its last picture without power, so this is what a panel shows when the
stand stops or a game is abandoned.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import i18n
from .geometry import grid_side, pitch
from .panels import PanelSpec
from .play import draw_lines
from .text import TextBox, draw_text, line_height
from .view import NeutralView, Shape

BRAND = "keystand"
EMBLEM = Shape(5, 5)


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
    text_h = line_height(st.title) + line_height(st.headline) + 3 * line_height(st.body)
    if panel.landscape:
        cell = pitch(min(h - 2 * m, w // 2 - m) - 1, EMBLEM)
        side = grid_side(cell, EMBLEM.cols)
        ex, ey = m + (w // 2 - m - side) // 2, (h - side) // 2
        tx, tw = w // 2, w // 2 - m
        ty = (h - text_h) // 2
    else:
        cell = pitch(min(w - 2 * m, h - 2 * m - text_h - st.gap) - 1, EMBLEM)
        side = grid_side(cell, EMBLEM.cols)
        ex, ey = (w - side) // 2, m
        tx, tw = st.margin, w - 2 * st.margin
        ty = ey + side + st.gap
    brand = TextBox(tx, ty, tw, st.title)
    title = TextBox(tx, brand.y + brand.h, tw, st.headline)
    sub = TextBox(tx, title.y + title.h, tw, st.body, 3)
    return NeutralLayout((ex, ey, cell), brand, title, sub)


def draw(image: Image.Image, view: NeutralView, panel: PanelSpec, lang: str) -> None:
    lay = layout(panel)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    x, y, cell = lay.emblem
    draw_lines(d, x, y, cell, EMBLEM)
    s = i18n.strings(lang)
    draw_text(d, BRAND, lay.brand, center=True)
    draw_text(d, s["neutral_title"][view.kind.value], lay.title, center=True)
    draw_text(d, s["neutral_sub"][view.kind.value], lay.sub, center=True)
