"""The in-game screen: the seat's side as a grid and a column of what to do now.

Landscape: the grid fills the height on the left, the column beside it.
Portrait: the grid across the top, the column below. Under the grid, its
caption: the mission in play. In the column, top down:
the seat's role now (inverted, white on black, when it is this seat's move),
the other role, the two counters of the time bank (turns and mistakes left),
the last input (framed when the rules refused it) and the announcement.
Every size comes from the panel's `Style`; every word from the strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import i18n
from .cells import STROKE, CellLook, Metrics, draw_cell, draw_hourglass, draw_miss_sign
from .geometry import Box, grid_boxes, grid_size, inclusive, pitch
from .legibility import stroke_px
from .panels import PanelSpec, Style
from .text import BLACK, WHITE, TextBox, draw_text, fits, line_height
from .text import font as _font
from .view import SQUARE, LastKind, Mark, MissionLabel, SeatId, SeatView, Shape, Stage, Who

PAD = 2  # around text in the headline's bar and in the counters
FRAME = 1  # the frame of a refused input
INSET = FRAME + 1  # text to the outside of that frame


@dataclass(frozen=True)
class Counter:
    """One counter in a framed box: a small label and a big number, the label over
    the number, or (`inline`, on short panels) left of it; or, where a word would
    be too small to read (`Style.counter_signs`), a sign left of the number in
    place of the label (`sign`; then `label` is None)."""

    box: Box
    label: TextBox | None
    number: TextBox
    sign: Box | None = None


@dataclass(frozen=True)
class PlayLayout:
    grid_x: int
    grid_y: int
    cell: int
    headline: TextBox
    sub: TextBox
    counters: tuple[Counter, Counter]
    last: TextBox
    note: TextBox
    status: Box
    grid: Shape = SQUARE
    # The mission in play ("Cairo 9-5"), one line under the grid: its caption.
    mission: TextBox | None = None

    @property
    def bar(self) -> Box:
        """The headline's bar (inverted when it is the seat's move)."""
        h = self.headline
        return (h.x - PAD, h.y - PAD, h.x + h.w + PAD, h.y + h.h + PAD)

    @property
    def last_frame(self) -> Box:
        t = self.last
        return (t.x - INSET, t.y - INSET, t.x + t.w + INSET, t.y + t.h + INSET)

    def slots(self) -> dict[str, list[TextBox]]:
        return {
            "headline": [self.headline],
            "sub": [self.sub],
            "counter": [c.label for c in self.counters if c.label is not None],
            "number": [c.number for c in self.counters],
            "last": [self.last],
            "note": [self.note],
            "mission": [self.mission] if self.mission is not None else [],
        }

    @property
    def shared(self) -> bool:
        """Whether the last input and the announcement share one box (small panels)."""
        return self.last == self.note

    def blocks(self) -> list[Box]:
        """The boxes the column is made of, top down (none may overlap)."""
        return [
            self.bar,
            self.sub.box,
            *(c.box for c in self.counters),
            self.last_frame,
            *([] if self.shared else [self.note.box]),
        ]


def digits(size: int) -> tuple[int, int]:
    """Where the digits' ink starts and ends below the line's top, at `size`."""
    _, top, _, bottom = _font(size).getbbox("0123456789", anchor="la")
    return int(top), int(bottom)  # whole pixels from FreeType; typed float for other fonts


def number_width(size: int) -> int:
    """The widest number a counter shows (turns and mistakes are at most 25)."""
    x0, _, x1, _ = _font(size).getbbox("88", anchor="la")
    return int(x1 - x0)


def counter(
    x: int, y: int, w: int, label_size: int, number_size: int, inline: bool, sign: bool = False
) -> Counter:
    """A counter's boxes with its top left at (x, y), `w` wide."""
    top, bottom = digits(number_size)
    ink = bottom - top
    if sign:  # a sign as tall as the digits, then the number in the rest
        height = ink + 2 * PAD + 2
        sy = y + PAD + 1
        mark = (x + PAD + 1, sy, x + PAD + 1 + ink * 4 // 5, sy + ink)
        # White between the sign and the digits, well over a stroke: "⌛11" once
        # read as one word.
        nx = mark[2] + PAD + ink // 5
        number = TextBox(nx, sy - top, x + w - PAD - nx, number_size)
        return Counter((x, y, x + w, y + height), None, number, mark)
    if inline:
        nw = number_width(number_size)
        height = max(ink, line_height(label_size)) + 2 * PAD
        label = TextBox(
            x + PAD, y + (height - line_height(label_size)) // 2, w - 3 * PAD - nw, label_size
        )
        number = TextBox(x + w - PAD - nw, y + (height - ink) // 2 - top, nw, number_size)
        return Counter((x, y, x + w, y + height), label, number)
    label = TextBox(x + PAD, y + PAD, w - 2 * PAD, label_size)
    number = TextBox(x + PAD, label.y + label.h - top, w - 2 * PAD, number_size)
    return Counter((x, y, x + w, label.y + label.h + ink + PAD), label, number)


def layout(panel: PanelSpec, grid: Shape = SQUARE) -> PlayLayout:
    """Where everything of the play screen goes on `panel` for a game on `grid`
    (the same for every view of that game).

    Under the grid, one line names the mission in play, the grid's caption: the
    grid is as large as the panel allows with its caption under it and the
    column beside it (landscape) or under both (portrait)."""
    if panel.style.across:
        return across(panel, grid)
    w, h = panel.size
    st = panel.style
    m = st.margin
    signs = st.counter_signs
    caption_h = line_height(st.label)
    if panel.landscape:
        cell = pitch(min(st.grid, h - 2 * m - caption_h) - 3, grid)  # 3: the outer lines
        gw, gh = grid_size(cell, grid)
        # The grid and its caption, one block, in the middle of the height.
        gx, gy = m + 1, m + 1 + (h - 2 * m - (gh + 2 + caption_h)) // 2
        status = (gx + gw + 1 + st.gap, m, w - m, h - m)
        caption = TextBox(m, gy + gh + 1, status[0] - 2 - m, st.label)
    else:
        sw = w - 2 * m
        column = _stack_height(st, (sw - st.gap) // 2)
        room = h - 2 * m - caption_h - st.gap - column
        cell = pitch(min(st.grid, sw, room) - 3, grid)
        gw, gh = grid_size(cell, grid)
        gx, gy = (w - gw) // 2, m + 1
        caption = TextBox(m, gy + gh + 1, sw, st.label)
        status = (m, caption.y + caption.h + st.gap, w - m, h - m)
    sx, sy, sx1, sy1 = status
    sw = sx1 - sx
    half = (sw - st.gap) // 2
    stack = _stack(st, half)
    spare = (sy1 - sy) - sum(hgt for _, hgt in stack)
    gap = max(0, min(st.gap * 2, spare // (len(stack) - 1)))
    y = sy
    boxes: dict[str, TextBox] = {}
    counters = None
    for name, hgt in stack:
        if name == "headline":
            boxes[name] = TextBox(sx + PAD, y + PAD, sw - 2 * PAD, st.headline, st.headline_lines)
        elif name == "sub":
            boxes[name] = TextBox(sx, y, sw, st.body, sub_lines(st))
        elif name == "counters":
            right = sx + half + st.gap
            counters = (
                counter(sx, y, half, st.label, st.number, st.counter_inline, signs),
                counter(right, y, sx1 - right, st.label, st.number, st.counter_inline, signs),
            )
        elif name == "note":
            boxes[name] = TextBox(sx, y, sw, st.body, st.note_lines)
        else:  # the last input, in a frame when refused; "message": the note's box too
            lines = st.note_lines if name == "message" else st.last_lines
            boxes["last"] = TextBox(sx + INSET, y + INSET, sw - 2 * INSET, st.body, lines)
            if name == "message":
                boxes["note"] = boxes["last"]
        y += hgt + gap
    assert counters is not None
    return PlayLayout(
        gx,
        gy,
        cell,
        boxes["headline"],
        boxes["sub"],
        counters,
        boxes["last"],
        boxes["note"],
        status,
        grid,
        caption,
    )


def across(panel: PanelSpec, grid: Shape = SQUARE) -> PlayLayout:
    """The play screen of an area too narrow for a column beside the grid
    (`Style.across`): the headline's bar across the top, the message (the last
    input and the notes, one box) across the foot, the grid between them on the
    left, and beside it the line under the headline, the two counters one above
    the other, and the mission's line."""
    w, h = panel.size
    st = panel.style
    m = st.margin
    head = TextBox(m + PAD, m + PAD, w - 2 * (m + PAD), st.headline, st.headline_lines)
    message_h = st.note_lines * line_height(st.body)
    message = TextBox(
        m + INSET, h - m - INSET - message_h, w - 2 * (m + INSET), st.body, st.note_lines
    )
    top = head.y + head.h + PAD + st.gap
    room = message.y - INSET - st.gap - top
    cell = pitch(min(st.grid, room) - 3, grid)
    gw, gh = grid_size(cell, grid)
    gx, gy = m + 1, top + 1 + (room - 3 - gh) // 2
    bx = gx + gw + 1 + st.gap
    bw = w - m - bx
    signs = st.counter_signs
    ch = counter(bx, 0, bw, st.label, st.number, st.counter_inline, signs).box[3]
    sub_h = sub_lines(st) * line_height(st.body)
    caption_h = line_height(st.label)
    gap = max(0, (room - sub_h - 2 * ch - caption_h) // 4)
    sub = TextBox(bx, top + gap, bw, st.body, sub_lines(st))
    y0 = sub.y + sub_h + gap
    counters = (
        counter(bx, y0, bw, st.label, st.number, st.counter_inline, signs),
        counter(bx, y0 + ch + gap, bw, st.label, st.number, st.counter_inline, signs),
    )
    caption = TextBox(bx, counters[1].box[3] + gap, bw, st.label)
    status = (m, m, w - m, h - m)
    return PlayLayout(gx, gy, cell, head, sub, counters, message, message, status, grid, caption)


def _stack(st: Style, half: int) -> list[tuple[str, int]]:
    """The column's blocks, top down, and the height each takes (`half`: a
    counter's width)."""
    counter_h = counter(0, 0, half, st.label, st.number, st.counter_inline, st.counter_signs)
    stack = [
        ("headline", st.headline_lines * line_height(st.headline) + 2 * PAD),
        ("sub", sub_lines(st) * line_height(st.body)),
        ("counters", counter_h.box[3]),
    ]
    if st.shared_message:
        stack.append(("message", st.note_lines * line_height(st.body) + 2 * INSET))
    else:
        stack.append(("last", st.last_lines * line_height(st.body) + 2 * INSET))
        stack.append(("note", st.note_lines * line_height(st.body)))
    return stack


def sub_lines(st: Style) -> int:
    """The lines the Duet screen's sub takes (`Style.play_sub_lines`)."""
    return st.play_sub_lines or st.sub_lines


def _stack_height(st: Style, half: int) -> int:
    """The height the column takes with no space between its blocks."""
    return sum(hgt for _, hgt in _stack(st, half))


# ----- what the column says ----------------------------------------------------------


def role(view: SeatView) -> tuple[str, str, bool]:
    """The headline key, the sub key, and whether it is this seat's move (the bar
    inverted). While the partner's screen fails, they say so instead, inverted:
    which panel, and what to check; mending it is this seat's move."""
    if view.partner_panel_failed:
        return "partner_panel_failed", "check_cable", True
    giver, guesser = view.clue_giver, view.guesser
    if view.stage is Stage.AWAITING_CLUE:
        if giver is Who.ME:
            return "your_clue", "partner_guesses", True
        if giver is Who.PARTNER:
            return "partner_clue", "you_guess", False
        return "next_clue", "either", True
    if view.stage is Stage.GUESSING:
        if guesser is Who.ME:
            return "you_guess", "gave_clue_partner", True
        return "partner_guesses", "gave_clue_me", False
    # Sudden death: no clues; whoever may guess, guesses.
    if guesser is Who.ME:
        return "sudden_death", "you_guess", True
    if guesser is Who.PARTNER:
        return "sudden_death", "partner_guesses", False
    return "sudden_death", "both_guess", True


# The refusals of a clue by the seat the group did not choose to give the first: the
# screens name the seats "me" and "partner", as the menu's First clue entry does.
FIRST_CLUE_CODES = ("first_clue_a", "first_clue_b")


def last_key(view: SeatView) -> tuple[str, str] | None:
    """The (table, key) of the last input's line, if there is one to show."""
    last = view.last
    if last is None:
        return None
    if last.kind is LastKind.REJECTED:
        assert last.reject is not None
        if last.reject in FIRST_CLUE_CODES and last.by is not None:  # as the seat names it
            return "reject", "first_clue_me" if last.by is Who.ME else "first_clue_partner"
        return "reject", last.reject
    if last.kind is LastKind.ARMED:
        return "last", "armed_me" if last.by is Who.ME else "armed_partner"
    if last.kind is LastKind.BYSTANDER and last.tokens == 2:
        return "last", "bystander_two"
    if last.kind is LastKind.UNDO and last.undone:
        return "last", f"undo_{last.undone}"
    return "last", last.kind.value


def note_key(view: SeatView) -> str | None:
    if view.cannot_save:  # first: nothing the players do is taken until it is mended
        return "cannot_save"
    if view.input_lost:  # then: touches are not seen until the device is back
        return "input_lost"
    if view.held:  # the partner's screen fails (the headline says) and its clue is next
        return "game_waits"
    if view.hint is not None:  # the seat just pressed a key that did nothing
        return f"hint_{view.hint}"
    if view.repaired is not None:  # until the next event: the game is not as left
        return f"repaired_{view.repaired.value}"
    if view.undo_asked is not None:  # first: it lapses in a few seconds
        return "undo_asked_by_me" if view.undo_asked is Who.ME else "undo_asked_by_partner"
    if view.nothing_left_for_me:
        return "nothing_left_for_me"
    if view.nothing_left_for_partner:
        return "nothing_left_for_partner"
    if view.stage is Stage.SUDDEN_DEATH and view.guesser is None:
        return "arm_first"
    if view.next_mission is not None:  # last: news for later, until a new game applies it
        return "next_mission"
    return None


# ----- drawing -----------------------------------------------------------------------


def cell_looks(view: SeatView, side: tuple[Mark, ...]) -> dict[int, CellLook]:
    """How each table cell of `side` looks, given the public record of `view`."""
    covered = view.covered
    # While the seat picks a word with its cursor, the cursor is the one frame on
    # its grid (the last input's line still says what the last touch did).
    framed = view.last.cell if view.last and view.cursor is None else None
    looks = {}
    for i, mark in enumerate(side):
        missed = frozenset(
            who
            for who, cells in ((Who.ME, view.my_misses), (Who.PARTNER, view.partner_misses))
            if i in cells
        )
        looks[i] = CellLook(mark, i in covered, missed, i == framed)
    return looks


def draw_lines(draw: ImageDraw.ImageDraw, x: int, y: int, cell: int, grid: Shape) -> None:
    """A grid's lines, its top left line at (x, y), and a second outer line outside
    it, so the grid reads as one object."""
    gw, gh = grid_size(cell, grid)
    for k in range(grid.cols + 1):
        draw.line((x + k * cell, y, x + k * cell, y + gh - 1), fill=BLACK)
    for k in range(grid.rows + 1):
        draw.line((x, y + k * cell, x + gw - 1, y + k * cell), fill=BLACK)
    draw.rectangle((x - 1, y - 1, x + gw, y + gh), outline=BLACK)


def draw_grid(
    draw: ImageDraw.ImageDraw,
    seat: SeatId,
    x: int,
    y: int,
    cell: int,
    looks: dict[int, CellLook],
    grid: Shape = SQUARE,
    stroke: int = STROKE,
) -> dict[int, Box]:
    """The grid, turned for `seat`, its top left line at (x, y); the cells' boxes.
    The marks' strokes at least `stroke` pixels (`legibility.stroke_px`)."""
    draw_lines(draw, x, y, cell, grid)
    boxes = grid_boxes(seat, x, y, cell, grid)
    # The framed cell last: its frame lies on the grid line and a pixel over its
    # neighbours' edges.
    for i in sorted(boxes, key=lambda i: looks[i].framed):
        draw_cell(draw, boxes[i], looks[i], stroke)
    return boxes


def draw_sign(draw: ImageDraw.ImageDraw, key: str, box: Box, stroke: int = STROKE) -> None:
    """A counter's sign, learnt once (docs/screens.md): an hourglass for the turns
    left; for the mistakes left, the wedge the grid draws on a miss (never the
    assassin's cross). Strokes at least `stroke` pixels. A counter with no sign
    shows its number alone there."""
    sign = SIGNS.get(key)
    if sign is not None:
        sign(draw, box, stroke)


SIGNS = {"turns": draw_hourglass, "mistakes": draw_miss_sign}


def draw_cursor(image: Image.Image, box: Box, cell: int, stroke: int) -> None:
    """The guesser's cursor (buttons only): the cell's four corners bracketed, heavy,
    over the grid lines, like a viewfinder. It reads as the place chosen, never as
    a mark of the key (the cell's own picture stays whole: the corners keep a
    pixel clear of its marks, and of the neighbours', as the frame of the last
    touch does), and it is not that frame (a whole outline, left off this screen
    while the cursor shows)."""
    x0, y0, x1, y1 = box
    t = Metrics(x1 - x0, stroke).frame + 2  # as wide as the last touch's frame, all told
    arm = max(2 * t, round((x1 - x0) * 0.4))  # each bracket's arms: four fifths of each side
    d = ImageDraw.Draw(image)
    left, top, right, bottom = x0 - 2, y0 - 2, x1 + 1, y1 + 1  # over the lines, a pixel beyond
    for cx, sx in ((left, 1), (right, -1)):
        for cy, sy in ((top, 1), (bottom, -1)):
            d.rectangle(_span(cx, cx + sx * (arm - 1), cy, cy + sy * (t - 1)), fill=BLACK)
            d.rectangle(_span(cx, cx + sx * (t - 1), cy, cy + sy * (arm - 1)), fill=BLACK)


def _span(xa: int, xb: int, ya: int, yb: int) -> Box:
    """The rectangle between two corners in either order (inclusive, for ImageDraw)."""
    return (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))


def draw(image: Image.Image, view: SeatView, panel: PanelSpec, lang: str) -> dict[int, Box]:
    lay = layout(panel, view.grid)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    looks = cell_looks(view, view.side)
    boxes = draw_grid(
        d, view.seat, lay.grid_x, lay.grid_y, lay.cell, looks, view.grid, stroke_px(panel)
    )
    if view.cursor is not None:
        draw_cursor(image, boxes[view.cursor], lay.cell, stroke_px(panel))
    s = i18n.strings(lang)
    head, sub, mine = role(view)
    if mine:
        d.rectangle(inclusive(lay.bar), fill=BLACK)
    draw_text(d, s["headline"][head], lay.headline, fill=WHITE if mine else BLACK, middle=True)
    draw_text(d, s["sub"][sub], lay.sub)
    for c, counter in zip(lay.counters, view.counters, strict=False):  # the game's own
        d.rectangle(inclusive(c.box), outline=BLACK)
        if c.sign is not None:
            draw_sign(d, counter.key, c.sign, stroke_px(panel))
        elif c.label is not None:
            label = s["counter"][counter.key]
            draw_text(d, label, c.label, center=not panel.style.counter_inline)
        draw_text(d, str(counter.value), c.number, center=True)
    if view.mission is not None and lay.mission is not None:
        draw_text(d, mission_caption(lang, view.mission, lay.mission), lay.mission, center=True)
    last = last_key(view)
    note = note_key(view)
    urgent = note in ("cannot_save", "input_lost")
    # Where they share one box, the next game's mission goes under the last input
    # (news for later: never instead of it), in the longest form that fits; so does
    # "Game waits" (the headline already says why): the last input stays in view.
    under: list[str] = []
    if lay.shared and note == "next_mission" and last and view.next_mission is not None:
        under, note = _next_mission_forms(s, lang, view.next_mission), None
    elif lay.shared and note == "game_waits" and last:
        under, note = [s["note"]["game_waits"]], None
    if lay.shared and note and last and (urgent or last[0] != "reject"):
        # One box. A fault that stops input first (a refusal must not hide it);
        # then a refusal; then a note that needs acting on now; then the
        # announcement when it is news (the touch that brought it), else the last
        # input (later, the headline says who clues).
        lasting = note in ("nothing_left_for_me", "nothing_left_for_partner")
        lasting = lasting and not urgent and not (view.last is not None and view.last.announced)
        later = note == "next_mission"  # news for later: never instead of the last input
        if lasting or later:
            note = None
        else:
            last = None
    if last:
        table, key = last
        if table == "reject":
            d.rectangle(inclusive(lay.last_frame), outline=BLACK, width=FRAME)
        text = s[table][key]
        text = next((f"{text}\n{m}" for m in under if fits(f"{text}\n{m}", lay.last)), text)
        draw_text(d, text, lay.last, middle=True)
    if note and not (lay.shared and last):
        text = s["note"][note]
        if note == "next_mission" and view.next_mission is not None:
            text = _next_mission(s, lang, view.next_mission)
        draw_text(d, text, lay.note, middle=lay.shared)
    return boxes


def mission_caption(lang: str, m: MissionLabel, box: TextBox) -> str:
    """The mission in play as `box` holds it: "Cairo 9-5", else "Cairo"."""
    forms = i18n.mission_forms(lang, m.name, m.numbers)
    return next((f for f in forms if fits(f, box)), forms[-1])


def _next_mission(s: Mapping[str, Mapping[str, str]], lang: str, m: MissionLabel) -> str:
    """ "Next game: Cairo 9-5" in the screen's language."""
    return s["note"]["next_mission"].format(mission=i18n.mission(lang, m.name, m.numbers))


def _next_mission_forms(
    s: Mapping[str, Mapping[str, str]], lang: str, m: MissionLabel
) -> list[str]:
    """The next game's mission, longest first: "Next game: Cairo 9-5", "Next: Cairo
    9-5", "Next: 9-5" (where it shares a box with the last input)."""
    short = s["note"]["next_mission_short"]
    return [
        _next_mission(s, lang, m),
        short.format(mission=i18n.mission(lang, m.name, m.numbers)),
        short.format(mission=m.numbers),
    ]
