"""The end screen: won or lost, the mission, why, the score, the card code, and
both sides.

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

from collections.abc import Mapping
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from . import i18n
from .geometry import Box, grid_size, inclusive
from .legibility import stroke_px
from .panels import PanelSpec
from .play import (
    PAD,
    Counter,
    cell_looks,
    counter,
    digits,
    draw_grid,
    mission_caption,
    number_width,
)
from .text import BLACK, TextBox, draw_text, font, line_height, width
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
    reason: TextBox  # why a won game was won (the score under it, or beside it)
    score: Counter
    code: TextBox  # the code's place, in lines of small type (the hold text's)
    code_lines: int = 1  # the lines the card code itself takes, at `code_size`
    code_size: int = 13  # the card code's type size (`Style.code`)
    place: Box = (0, 0, 0, 0)  # all the code's place: the code, then the foot line
    mission: TextBox | None = None  # the mission the game was, under the title
    lost: TextBox | None = None  # why a lost game was lost: the score's room too
    mission_right: bool = False  # the mission stands at the title line's right end

    @property
    def reason_lost(self) -> TextBox:
        return self.lost or self.reason

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
            "end_reason": [self.reason_lost],
            "end_reason_won": [self.reason],
            "mission": [self.mission] if self.mission is not None else [],
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
    mission_h = line_height(st.label)
    score_w = max(number_width(st.number) + 8, 5 * st.label)
    # `code_across` (a short panel): the code and the line under it span the whole
    # width at the foot, so the grids and the words above share what is left.
    across = code_lines_for(w - 2 * m, st.code) if st.code_across else 0
    foot = code_height(panel, across) if across else 0
    lost = None
    mission_right = False
    if st.end_beside:
        text_w = st.end_text
        area = (m, m, w - m - st.gap - text_w, h - m - foot)
        tx = w - m - text_w
        # The title's line box has room above its capitals: the column starts at
        # the panel's edge where every line counts (`end_score_row`).
        top = 0 if st.end_score_row else m
        title = TextBox(tx, top, text_w, st.title)
        bottom = h - m - foot  # the column's foot
        if st.end_score_row:  # the score, a framed number, at the mission's right
            nw = number_width(st.number) + 2 * PAD + 4
            score = number_counter(tx + text_w - nw, top + title_h, nw, st.number)
            mission = TextBox(tx, top + title_h, text_w - nw - st.gap, st.label)
            reason = TextBox(tx, score.box[3], text_w, st.body, st.reason_lines)
        else:
            mission = TextBox(tx, top + title_h, text_w, st.label)
            reason = TextBox(tx, mission.y + mission_h, text_w, st.body, st.reason_lines)
            score = counter(
                tx,
                reason.y + reason.h + st.gap,
                text_w if across else min(text_w, score_w),
                st.label,
                st.number,
                bool(across),  # label and number in a row: the height is short
            )
        # A lost game has no score: its reason takes the column down to its foot.
        below = mission.y + mission_h
        lost = TextBox(tx, below, text_w, st.body, (bottom - below) // line_height(st.body))
    elif w - 2 * m - score_w - st.gap >= MIN_BAND:
        if st.end_score_row:  # the score a framed number: the band keeps its width
            score_w = number_width(st.number) + 2 * PAD + 4
        band_w = w - 2 * m - score_w - st.gap
        title = TextBox(m, m, band_w, st.title)
        if st.end_mission_by_title:  # right-aligned on the title's baseline
            mw = band_w - widest_title(st.title) - st.gap
            drop = baseline(st.title) - baseline(st.label)
            title = replace(title, w=band_w - mw - st.gap)
            mission = TextBox(m + band_w - mw, m + drop, mw, st.label)
            mission_right = True
            reason = TextBox(m, m + title_h, band_w, st.body, st.reason_lines)
        else:
            mission = TextBox(m, m + title_h, band_w, st.label)
            reason = TextBox(m, mission.y + mission_h, band_w, st.body, st.reason_lines)
        if st.end_score_row:
            score = number_counter(w - m - score_w, m, score_w, st.number)
        else:
            score = counter(w - m - score_w, m, score_w, st.label, st.number, False)
        # A lost game has no score: its reason takes the whole width.
        lost = replace(reason, w=w - 2 * m)
        area = (m, max(reason.y + reason.h, score.box[3]) + BAND_GAP, w - m, h - m - foot)
    else:  # too narrow for the score beside the words: under them, label and number in a row
        title = TextBox(m, m, w - 2 * m, st.title)
        mission = TextBox(m, m + title_h, w - 2 * m, st.label)
        reason = TextBox(m, mission.y + mission_h, w - 2 * m, st.body, st.reason_lines)
        score = counter(m, reason.y + reason.h, w - 2 * m, st.label, st.number, True)
        area = (m, score.box[3] + BAND_GAP, w - m, h - m - foot)
        # A lost game has no score: its reason takes the score's row too.
        lost = replace(reason, lines=(score.box[3] - reason.y) // line_height(st.body))
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
        if across:  # the code at the panel's foot: the grids in the middle of what is left
            ay0 += (grids_h - cap_h - gh) // 2
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
        cell,
        (first, second),
        captions,
        title,
        reason,
        score,
        code,
        code_lines,
        st.code,
        place,
        mission,
        lost,
        mission_right,
    )


def widest_title(size: int) -> int:
    """The widest end title ("Gewonnen!") at `size`, over every language."""
    return max(
        width(t, size)
        for lang in i18n.languages()
        for t in i18n.strings(lang)["end_title"].values()
    )


def baseline(size: int) -> int:
    """Where the baseline lies below a line's top at `size`."""
    ascent, _ = font(size).getmetrics()
    return int(ascent)


def number_counter(x: int, y: int, w: int, size: int) -> Counter:
    """A framed number with no label, its top left at (x, y), `w` wide: the score
    where a word beside it has no room (`Style.end_score_row`)."""
    top, bottom = digits(size)
    height = bottom - top + 2 * PAD + 2
    number = TextBox(x + PAD, y + PAD + 1 - top, w - 2 * PAD, size)
    return Counter((x, y, x + w, y + height), None, number)


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


def foot_text(view: SeatView, s: Mapping[str, Mapping[str, str]], lang: str) -> str:
    """The line under the card code: what a key just pressed would do, else what
    starts the next game, naming its mission when one was chosen for it."""
    if view.hint is not None:
        return s["end_hint"][view.hint]
    m = view.next_mission
    if m is None:
        return s["end_hint"]["new_game"]
    return s["end_hint"]["next_mission"].format(mission=i18n.mission(lang, m.name, m.numbers))


def draw(image: Image.Image, view: SeatView, panel: PanelSpec, lang: str) -> dict[int, Box]:
    end = view.end
    assert end is not None
    lay = layout(panel, view.grid)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    s = i18n.strings(lang)
    won = end.ending in (Ending.WON, Ending.WON_SUDDEN_DEATH)
    draw_text(d, s["end_title"]["won" if won else "lost"], lay.title)
    if view.mission is not None and lay.mission is not None:
        named = mission_caption(lang, view.mission, lay.mission)
        draw_text(d, named, lay.mission, right=lay.mission_right)
    reason = s["end_reason"].get(end.reason) or s["end_reason"][end.ending.value]
    draw_text(d, reason, lay.reason if won else lay.reason_lost)
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
        draw_text(d, foot_text(view, s, lang), after, center=True)
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
