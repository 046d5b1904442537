"""The end screen: won or lost and why, the score, the card code, and both sides.

Only here does a seat's screen show the partner's side: the view carries it
only once the game is over. Both grids are turned the same way, as this seat
sees the table, so a word's two marks sit at the same place in each grid:
"You" on the left, "Partner" on the right, the final table (covers, misses,
the last touch) drawn on both.

Wide panels put the words in a column beside the two grids; the others in a
band above them. The card code runs under the grids, and under it what starts
the next game, or, while the partner's screen fails, that it does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from . import i18n
from .geometry import Box, grid_size, inclusive
from .legibility import stroke_px
from .panels import PanelSpec
from .play import Counter, cell_looks, counter, draw_grid, number_width
from .text import BLACK, TextBox, draw_text, line_height, width
from .view import SQUARE, Ending, SeatView, Shape, Who

GRID_GAP = 6
# The widest a card code can be: W is the font's widest capital (the tests check
# it against the code's alphabet, which the layouts do not know).
WIDEST_CODE = "WWWW-WWWW-WWWW"
MIN_BAND = 120  # the narrowest column of words beside the score
# Between the words above and the grids' captions (whose line has white above its
# capitals): every pixel goes to the grids, whose marks need it (docs/screens.md).
BAND_GAP = 2


@dataclass(frozen=True)
class EndLayout:
    cell: int
    grids: tuple[tuple[int, int], tuple[int, int]]
    captions: tuple[TextBox, TextBox]
    title: TextBox
    reason: TextBox
    score: Counter
    code: TextBox  # the code's place, in lines of small type (the hold text's)
    code_lines: int = 1  # the lines the card code itself takes, at `code_size`
    code_size: int = 13  # the card code's type size (`Style.code`)
    place: Box = (0, 0, 0, 0)  # all the code's place: the code, then the foot line

    def held(self, size: int) -> tuple[TextBox, TextBox]:
        """Where the hold text goes while the key is held back (the card code's type
        `size`): the whole code place, or, above a notice on the foot line, the
        lines over it."""
        _, foot = code_boxes(self.code, self.code_lines, size)
        lines = max(1, (foot.y - self.code.y) // self.code.line_height)
        return replace(self.code, lines=(foot.y + foot.h - self.code.y) // foot.line_height), (
            replace(self.code, lines=lines)
        )

    def slots(self) -> dict[str, list[TextBox]]:
        _, foot = code_boxes(self.code, self.code_lines, self.code_size)
        return {
            "end_title": [self.title],
            "end_reason": [self.reason],
            "score": [box for box in (self.score.label,) if box is not None],
            "number": [self.score.number],
            "caption_me": [self.captions[0]],
            "caption_partner": [self.captions[1]],
            # The hold text alone fills the code's place; above the notice, all but
            # its last line.
            "code": list(self.held(self.code_size)),
            "end_hint": [foot],
            "end_note": [foot],
        }


def layout(panel: PanelSpec, grid: Shape = SQUARE) -> EndLayout:
    """Where everything of the end screen goes on `panel`.

    The words go beside the grids (`Style.end_beside`, the wide short panels) or
    in a band above them. The two grids stand side by side, or one above the
    other when that makes their cells larger (a panel mounted on end).
    """
    w, h = panel.size
    st = panel.style
    m = st.margin
    cap_h = line_height(st.label)
    title_h = line_height(st.title)
    score_w = max(number_width(st.number) + 8, 5 * st.label)
    # `code_across` (a short panel): the code and the line under it span the whole
    # width at the foot, so the grids and the words above share what is left.
    across = code_lines_for(w - 2 * m, st.code) if st.code_across else 0
    foot = code_height(panel, across) if across else 0
    if st.end_beside:
        text_w = st.end_text
        area = (m, m, w - m - st.gap - text_w, h - m - foot)
        tx = w - m - text_w
        title = TextBox(tx, m, text_w, st.title)
        reason = TextBox(tx, m + title_h, text_w, st.body, st.reason_lines)
        score = counter(
            tx,
            reason.y + reason.h + st.gap,
            text_w if across else min(text_w, score_w),
            st.label,
            st.number,
            bool(across),  # label and number in a row: the height is short
        )
    elif w - 2 * m - score_w - st.gap >= MIN_BAND:
        band_w = w - 2 * m - score_w - st.gap
        title = TextBox(m, m, band_w, st.title)
        reason = TextBox(m, m + title_h, band_w, st.body, st.reason_lines)
        score = counter(w - m - score_w, m, score_w, st.label, st.number, False)
        area = (m, max(reason.y + reason.h, score.box[3]) + BAND_GAP, w - m, h - m)
    else:  # too narrow for the score beside the words: under them, label and number in a row
        title = TextBox(m, m, w - 2 * m, st.title)
        reason = TextBox(m, m + title_h, w - 2 * m, st.body, st.reason_lines)
        score = counter(m, reason.y + reason.h, w - 2 * m, st.label, st.number, True)
        area = (m, score.box[3] + BAND_GAP, w - m, h - m)
    ax0, ay0, ax1, ay1 = area
    aw, ah = ax1 - ax0, ay1 - ay0
    # The card code at its own size (`Style.code`: no two of its characters alike
    # at it), on one line where the widest code fits across, else broken between
    # its groups; then one line for what starts the next game.
    code_lines = across or code_lines_for(aw, st.code)
    code_h = code_height(panel, code_lines)
    grids_h = ah - (0 if across else code_h)
    # Each grid takes its cells + 3 pixels (its lines and the outer frame) and a caption.
    rows, cols = grid.rows, grid.cols
    beside = ((aw - GRID_GAP) // 2 - 3) // cols, (grids_h - cap_h - 3) // rows
    above = (aw - 3) // cols, (grids_h - 2 * cap_h - GRID_GAP - 6) // (2 * rows)
    cell_beside, cell_above = min(beside), min(above)
    stacked = cell_above > cell_beside
    cell = cell_above if stacked else cell_beside
    gw, gh = (n + 2 for n in grid_size(cell, grid))
    if stacked:
        x = ax0 + (aw - gw) // 2
        first = (x + 1, ay0 + cap_h + 1)
        second = (x + 1, first[1] + gh + cap_h + GRID_GAP)
        captions = (
            TextBox(x, ay0, gw, st.label),
            TextBox(x, second[1] - 1 - cap_h, gw, st.label),
        )
        code_y = second[1] - 1 + gh
    else:
        total = 2 * gw + GRID_GAP
        x = ax0 + (aw - total) // 2
        first = (x + 1, ay0 + cap_h + 1)
        second = (x + gw + GRID_GAP + 1, first[1])
        # The partner's caption may start a gap's width back over the first grid
        # and run to the area's edge (wider than a small panel's grid); "You" is
        # short in every language.
        split = x + gw - GRID_GAP
        captions = (
            TextBox(ax0, ay0, split - ax0, st.label),
            TextBox(split, ay0, ax1 - split, st.label),
        )
        code_y = first[1] - 1 + gh
    if across:
        ax0, aw, code_y = m, w - 2 * m, h - m - code_h
    # The code's place, in lines of the small type the hold text takes.
    code = TextBox(ax0, code_y, aw, st.label, code_h // line_height(st.label))
    place = (ax0, code_y, ax0 + aw, code_y + code_h)
    return EndLayout(
        cell, (first, second), captions, title, reason, score, code, code_lines, st.code, place
    )


def code_height(panel: PanelSpec, code_lines: int) -> int:
    """The code's place: the code in `code_lines`, then the line(s) under it."""
    st = panel.style
    return code_lines * line_height(st.code) + st.foot_lines * line_height(st.label)


def code_lines_for(w: int, size: int) -> int:
    """The lines the widest card code takes `w` pixels wide at type `size`: one, or
    two broken between its groups."""
    return 1 if width(WIDEST_CODE, size) <= w else 2


def code_boxes(
    box: TextBox, code_lines: int | None = None, size: int | None = None
) -> tuple[TextBox, TextBox]:
    """The code's place once the key is shown: the card code (in `code_lines` of
    type `size`), then one line for what starts the next game."""
    if size is None or code_lines is None:
        head = replace(box, lines=box.lines - 1)
        return head, replace(box, y=box.y + head.h, lines=1)
    code = TextBox(box.x, box.y, box.w, size, code_lines)
    rest = box.h - code.h  # the foot's lines, but for a part of one (code and foot sizes differ)
    return code, replace(box, y=box.y + code.h, lines=max(1, -(-rest // box.line_height)))


def hold_key(view: SeatView) -> str:
    """The [end_hold] line while the key is held back: what undo does, or, once one
    seat pressed it, the same request as during play (that seat waits, the
    partner is asked to press undo too)."""
    if view.undo_asked is None:
        return "undo"
    return "asked_by_me" if view.undo_asked is Who.ME else "asked_by_partner"


def draw(image: Image.Image, view: SeatView, panel: PanelSpec, lang: str) -> dict[int, Box]:
    end = view.end
    assert end is not None
    lay = layout(panel, view.grid)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    s = i18n.strings(lang)
    won = end.ending is Ending.WON
    draw_text(d, s["end_title"]["won" if won else "lost"], lay.title)
    draw_text(d, s["end_reason"][end.ending.value], lay.reason)
    if end.score is not None:
        d.rectangle(inclusive(lay.score.box), outline=BLACK)
        if lay.score.label is not None:
            draw_text(d, s["score"]["label"], lay.score.label, center=True)
        draw_text(d, str(end.score), lay.score.number, center=True)
    code, after = code_boxes(lay.code, lay.code_lines, lay.code_size)
    # The partner's screen fails: its last line says so (that panel cannot), before
    # what starts the next game.
    notice = s["end_note"]["partner_panel_failed"] if view.partner_panel_failed else None
    if end.card_code is None:  # the key is held back a few seconds: undo is still possible
        whole, head = lay.held(lay.code_size)
        draw_text(d, s["end_hold"][hold_key(view)], head if notice else whole, center=True)
    else:  # alone and large: no two of its characters alike (docs/screens.md)
        draw_text(d, end.card_code, code, center=True)
    if notice is not None:
        draw_text(d, notice, after, center=True)
    elif not end.held:  # what starts the next game, or what the key just pressed would do
        draw_text(d, s["end_hint"][view.hint or "new_game"], after, center=True)
    boxes = {}
    for (x, y), caption, key, side in zip(
        lay.grids, lay.captions, ("me", "partner"), (view.side, end.partner_side), strict=True
    ):
        if side is None:
            continue
        draw_text(d, s["caption"][key], caption, center=True)
        looks = cell_looks(view, side)
        drawn = draw_grid(d, view.seat, x, y, lay.cell, looks, view.grid, stroke_px(panel))
        if key == "me":
            boxes = drawn
    return boxes
