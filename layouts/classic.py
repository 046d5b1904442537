"""The classic Codenames screens: the spymasters' key and the operatives' board.

Both screens share one layout, the Duet play screen's: the grid on the left
(landscape) or on top (portrait), a column of words beside it. Top down:

- the headline, in a bar: whose turn and what now ("Red's clue", "Red
  guesses", "Blue covers a word", "Red wins!"); inverted, white on black, when the
  people facing this screen must act (the spymasters give a clue or cover a
  word; the operatives guess);
- one line under it: the clue's number and the guesses it still allows (or
  that there is no limit), the team that started, "Invalid clue" while a
  penalty is pending, or how the game was won; on the spymasters' screen, the
  number they are choosing for their clue on the keys;
- a row of counters: each team's symbol (red a disc, blue a diamond, as on
  the grid) and its agents left, the counter of the team the headline names
  inverted (which ties the symbol to the name); and the turn timer (an
  hourglass and m:ss, inverted in the last seconds), in the same row where it
  fits, else in a row of its own;
- one message box: a fault that stops input, else the other screen failing
  (that panel cannot say so itself), else the stand's answer to a
  press (a hint, an undo asked), else a refusal (framed), else "time is up",
  else the end line (undo still possible, or how to deal the next game), else
  what the last input did.

Orientation: the spymasters read the grid in table order, row 0 (the row
farthest from them) at the top, as the card text and `touch R C` name cells.
The operatives sit across the table, so their grid is turned half a turn
(table (r, c) at (rows - 1 - r, cols - 1 - c)): each word's square on their screen lies where
the word lies on the table in front of them. `geometry.screen_cell` does the
turn, as for Duet's seat B.

The timer is drawn coarsely, so the panel refreshes seldom: `timer_shown` says
what a number of seconds left is drawn as, `next_change` when that changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from . import i18n
from .classic_cells import (
    DIAMOND,
    DISC,
    ClassicLook,
    draw_classic_cell,
    draw_hourglass,
    draw_symbol,
)
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
    number_text,
)
from .geometry import Box, grid_boxes, grid_size, inclusive, pitch
from .legibility import stroke_px
from .panels import PanelSpec
from .play import FRAME, INSET, PAD, digits, draw_lines
from .text import BLACK, WHITE, TextBox, draw_text, line_height, width
from .view import SQUARE, SeatId, Shape

ClassicView = SpymastersView | OperativesView

# The timer, coarsely: half minutes above a minute, ten seconds in the last
# minute, then each of the last seconds. Shown values are rounded up, so the
# screen never shows less time than is left.
COARSE = 30
FINE = 10
LAST_SECONDS = 5
WIDEST_TIME = "8:88"  # the digits of the font are all one width; 8 inks the most

SYMBOL_GAP = 3  # between a symbol's box and its number, at the least


def symbol_gap(stroke: int, ink: int) -> int:
    """The white between a sign's box and its number, digits `ink` pixels tall, on
    a panel whose 0.4 mm is `stroke` pixels: the blue diamond's points reach past
    the box (more with larger digits), and a stroke of white must stay between
    them and the digits (tests/test_marks.py measures it)."""
    size = sign_size("team", ink)[0]
    reach = ((round(size * DIAMOND / DISC) | 1) - size) // 2
    return SYMBOL_GAP + (stroke - 2) + max(0, reach - 2)


ROW_GAP = 4  # between the boxes of the counters' row


def timer_shown(seconds: int) -> int:
    """The seconds a timer with `seconds` left is drawn as."""
    if seconds < 0:
        raise ValueError(f"timer {seconds}: seconds left, 0 or more")
    if seconds <= LAST_SECONDS:
        return seconds
    step = FINE if seconds <= 60 else COARSE
    return -(-seconds // step) * step


def next_change(seconds: int) -> int | None:
    """The seconds left at which the drawn timer next changes (None: it shows 0:00):
    a host need not redraw the screens for the timer before then."""
    shown = timer_shown(seconds)
    for s in range(seconds - 1, -1, -1):
        if timer_shown(s) != shown:
            return s
    return None


def timer_text(seconds: int) -> str:
    shown = timer_shown(seconds)
    return f"{shown // 60}:{shown % 60:02d}"


# ----- where things go ------------------------------------------------------------------


@dataclass(frozen=True)
class Tally:
    """One box of the counters' row: its frame, its sign (a team's symbol or the
    hourglass) and its text (a number or the time), centred together."""

    box: Box
    sign: Box  # x0, y0, x1, y1 (exclusive), centred on the digits' ink
    text: TextBox


def sign_size(kind: str, ink: int) -> tuple[int, int]:
    """The (width, height) of a sign beside digits `ink` pixels tall: a team's symbol
    a little smaller than the digits, the hourglass their height, odd widths (the
    points and the waist on a centre column)."""
    if kind == "timer":
        return (ink * 2 // 3) | 1, ink
    side = (ink * 4 // 5) | 1
    return side, side


def _tally(
    x: int, y: int, w: int, h: int, kind: str, text: str, size: int, stroke: int = 2
) -> Tally:
    """A box `w` x `h` at (x, y) with a sign and `text` (its widest form) at `size`."""
    top, bottom = digits(size)
    ink = bottom - top
    sw_, sh_ = sign_size(kind, ink)
    text_w = width(text, size)
    gap = symbol_gap(stroke, ink)
    left = x + (w - (sw_ + gap + text_w)) // 2
    ink_y = y + (h - ink) // 2
    sign_y = ink_y + (ink - sh_) // 2
    box = TextBox(left + sw_ + gap, ink_y - top, text_w, size)
    return Tally((x, y, x + w, y + h), (left, sign_y, left + sw_, sign_y + sh_), box)


def tally_width(kind: str, text: str, size: int, stroke: int = 2) -> int:
    """The narrowest box that holds a sign and `text` at `size`, with its margins."""
    top, bottom = digits(size)
    inner = _inner(bottom - top)
    ink = bottom - top
    return 2 * inner + sign_size(kind, ink)[0] + symbol_gap(stroke, ink) + width(text, size)


def _inner(ink: int) -> int:
    """The white around a counter's contents, inside its frame."""
    return max(PAD + 1, ink // 5)


@dataclass(frozen=True)
class ClassicLayout:
    grid_x: int
    grid_y: int
    cell: int
    headline: TextBox
    sub: TextBox
    teams: tuple[Tally, Tally]  # red, blue
    timer: Tally | None
    message: TextBox  # the last input, framed when refused, or a note
    status: Box
    grid: Shape = SQUARE

    @property
    def bar(self) -> Box:
        h = self.headline
        return (h.x - PAD, h.y - PAD, h.x + h.w + PAD, h.y + h.h + PAD)

    @property
    def frame(self) -> Box:
        """The frame around the message, drawn when it is a refusal."""
        t = self.message
        return (t.x - INSET, t.y - INSET, t.x + t.w + INSET, t.y + t.h + INSET)

    def slots(self) -> dict[str, list[TextBox]]:
        """The text boxes by strings table (every table of classic words is drawn in
        exactly the box of its name; a refusal in the last input's box)."""
        return {
            "classic_headline": [self.headline],
            "classic_sub": [self.sub],
            "classic_last": [self.message],
            "classic_reject": [self.message],
            "classic_note": [self.message],
        }

    def blocks(self) -> list[Box]:
        """The boxes the column is made of (none may overlap)."""
        return [
            self.bar,
            self.sub.box,
            *(t.box for t in self.teams),
            *([self.timer.box] if self.timer else []),
            self.frame,
        ]


def _timer_sizes(
    number: int, body: int, sw: int, row_fits: bool, stroke: int = 2
) -> tuple[int, int, bool]:
    """The timer's type size, the team counters' and whether the timer takes a row
    of its own, in a column `sw` wide: the counters kept at `number` if the timer
    fits beside them at `body` or larger, else a row of its own if the column has
    the height (`row_fits`), else both shrunk together."""

    def row(team: int, timer: int) -> int:
        return 2 * tally_width("team", "8", team, stroke) + tally_width(
            "timer", WIDEST_TIME, timer, stroke
        )

    for size in range(number, body - 1, -1):
        if row(number, size) + 2 * ROW_GAP <= sw:
            return size, number, False
    for size in range(number, body - 1, -1):
        if not row_fits and row(size, size) + 2 * ROW_GAP <= sw:
            return size, size, False
    return number, number, True


def layout(panel: PanelSpec, timed: bool = False, grid: Shape = SQUARE) -> ClassicLayout:
    """Where everything of a classic screen goes on `panel` for a game on `grid`;
    `timed`: with the turn timer (the same for both screens and every view of one game)."""
    if panel.style.across:
        return across(panel, timed, grid)
    w, h = panel.size
    st = panel.style
    m = st.margin
    if panel.landscape:
        cell = pitch(min(st.grid, h - 2 * m) - 3, grid)  # 3: the outer lines
        gw, gh = grid_size(cell, grid)
        gx, gy = m + 1, (h - gh) // 2
        status = (gx + gw + 1 + st.gap, m, w - m, h - m)
    else:
        cell = pitch(min(st.grid, w - 2 * m) - 3, grid)
        gw, gh = grid_size(cell, grid)
        gx, gy = (w - gw) // 2, m + 1
        status = (m, gy + gh + 1 + st.gap, w - m, h - m)
    sx, sy, sx1, sy1 = status
    sw = sx1 - sx
    top, bottom = digits(st.number)
    row_h = bottom - top + 2 * _inner(bottom - top)
    stroke = stroke_px(panel)
    # The timer shares the counters' row if it fits there at the counters' size or
    # smaller (never below the body text's); failing that, the counters shrink with
    # it (a short column has no height for a row of its own); else it takes one.
    timer_size, team_size, timer_row = st.number, st.number, False
    stack = [
        ("headline", st.headline_lines * line_height(st.headline) + 2 * PAD),
        ("sub", st.sub_lines * line_height(st.body)),
        ("counters", row_h),
        # One box for the last input and the notes, on every panel: notes are rare
        # here (a fault, time up), and the narrow columns need the height.
        ("message", st.note_lines * line_height(st.body) + 2 * INSET),
    ]
    if timed:
        row_fits = sum(hgt for _, hgt in stack) + row_h <= sy1 - sy
        timer_size, team_size, timer_row = _timer_sizes(st.number, st.body, sw, row_fits, stroke)
    if timer_row:
        stack.insert(3, ("timer", row_h))
    spare = (sy1 - sy) - sum(hgt for _, hgt in stack)
    gap = max(0, min(st.gap * 2, spare // (len(stack) - 1)))
    y = sy
    boxes: dict[str, TextBox] = {}
    teams: tuple[Tally, Tally] | None = None
    timer: Tally | None = None
    for name, hgt in stack:
        if name == "headline":
            boxes[name] = TextBox(sx + PAD, y + PAD, sw - 2 * PAD, st.headline, st.headline_lines)
        elif name == "sub":
            boxes[name] = TextBox(sx, y, sw, st.body, st.sub_lines)
        elif name == "counters":
            tw = (sw - ROW_GAP) // 2
            if timed and not timer_row:
                timer_w = tally_width("timer", WIDEST_TIME, timer_size, stroke)
                tw = (sw - timer_w - 2 * ROW_GAP) // 2
                tx = sx + 2 * (tw + ROW_GAP)
                timer = _tally(tx, y, sx1 - tx, hgt, "timer", WIDEST_TIME, timer_size, stroke)
            right = sx + tw + ROW_GAP
            teams = (
                _tally(sx, y, tw, hgt, "team", "8", team_size, stroke),
                _tally(right, y, tw if timer else sx1 - right, hgt, "team", "8", team_size, stroke),
            )
        elif name == "timer":
            timer = _tally(sx, y, sw, hgt, "timer", WIDEST_TIME, st.number, stroke)
        else:  # the message: the last input (framed when refused) or a note
            lines = st.note_lines
            boxes["message"] = TextBox(sx + INSET, y + INSET, sw - 2 * INSET, st.body, lines)
        y += hgt + gap
    assert teams is not None
    return ClassicLayout(
        gx,
        gy,
        cell,
        boxes["headline"],
        boxes["sub"],
        teams,
        timer,
        boxes["message"],
        status,
        grid,
    )


def across(panel: PanelSpec, timed: bool = False, grid: Shape = SQUARE) -> ClassicLayout:
    """A classic screen on an area too narrow for a column beside the grid
    (`Style.across`), as the Duet play screen's `across`: the headline across the
    top, the message across the foot, the grid between them, and beside it the
    line under the headline over the teams' counters, and the timer under them."""
    w, h = panel.size
    st = panel.style
    m = st.margin
    stroke = stroke_px(panel)
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
    ink_top, ink_bottom = digits(st.number)
    row_h = ink_bottom - ink_top + 2 * _inner(ink_bottom - ink_top)
    # The teams side by side (one digit each), then the timer in a row of its own.
    rows = 2 if timed else 1
    sub_h = st.sub_lines * line_height(st.body)
    gap = max(0, (room - sub_h - rows * row_h) // (rows + 1))
    sub = TextBox(bx, top + gap, bw, st.body, st.sub_lines)
    y = sub.y + sub_h + gap
    tw = (bw - ROW_GAP) // 2
    teams = (
        _tally(bx, y, tw, row_h, "team", "8", st.number, stroke),
        _tally(bx + tw + ROW_GAP, y, bw - tw - ROW_GAP, row_h, "team", "8", st.number, stroke),
    )
    timer = None
    if timed:
        timer = _tally(bx, y + row_h + gap, bw, row_h, "timer", WIDEST_TIME, st.number, stroke)
    return ClassicLayout(gx, gy, cell, head, sub, teams, timer, message, (m, m, w - m, h - m), grid)


# ----- what the column says ------------------------------------------------------------


def headline(public: ClassicPublic) -> tuple[str, Team]:
    """The headline's key and the team it names."""
    if public.winner is not None:
        return f"wins_{public.winner.value}", public.winner
    assert public.team is not None
    if public.penalty:
        return f"cover_{public.team.other.value}", public.team.other
    if public.stage is ClassicStage.GUESSING:
        return f"guess_{public.team.value}", public.team
    return f"clue_{public.team.value}", public.team


def acting(view: ClassicView) -> bool:
    """Whether the people facing this screen must act now (the headline inverted)."""
    p = view.public
    if p.stage is ClassicStage.OVER:
        return False
    spymasters = isinstance(view, SpymastersView)
    if p.penalty or p.stage is ClassicStage.AWAITING_CLUE:
        return spymasters
    return not spymasters


def sub(public: ClassicPublic, choosing: str | None = None) -> tuple[str, dict[str, str]]:
    """The sub line's key, and the values for its placeholders; `choosing`: the
    number the spymasters are choosing for their clue (their screen only)."""
    if choosing is not None:
        return "choosing", {"n": number_text(choosing)}
    if public.winner is not None:
        # The other team's touch or clue ended it: the sub names that team.
        if public.win in (Win.ASSASSIN, Win.GIVEN, Win.PENALTY):
            assert public.win is not None
            return f"{public.win.value}_{public.winner.other.value}", {}
        return "all_found", {}
    if public.penalty:
        return "invalid", {}
    if public.stage is ClassicStage.GUESSING:
        n = public.clue_number
        if n is None:  # a clue given with no number: the group keeps the count
            return "no_limit", {}
        if public.guesses_left is None:  # 0 or unlimited: "Ignoriert die Regel plus 1"
            return "numbered_no_limit", {"n": number_text(n)}
        return "numbered", {"n": number_text(n), "left": str(public.guesses_left)}
    return f"started_{public.starting.value}", {}


def last_key(public: ClassicPublic) -> tuple[str, str] | None:
    """The (table, key) of the last input's line, if there is one to show."""
    last = public.last
    if last is None:
        return None
    if last.kind is ClassicLastKind.REJECTED:
        assert last.reject is not None
        return "classic_reject", last.reject
    if last.kind is ClassicLastKind.AGENT:
        assert last.colour is not None and last.colour.team is not None
        team = last.colour.team.value
        if public.stage is ClassicStage.OVER:
            return "classic_last", f"{team}_found"
        if used_up(last):
            return "classic_last", f"{team}_used_up"
        return "classic_last", f"{team}_{'over' if last.turn_over else 'on'}"
    return "classic_last", last.kind.value


def used_up(last: ClassicLast) -> bool:
    """Whether a touch found the team's own agent and still ended the turn: the
    clue's last guess, its number plus one ("dürfen sie 1 Rateversuch mehr als die
    beim Hinweis angegebene Zahl ausführen"). Only the limit ends a turn so (a last
    agent ends the game instead)."""
    colour = last.colour
    return (
        last.kind is ClassicLastKind.AGENT
        and last.turn_over
        and colour is not None
        and colour.team is last.team
    )


def message_key(public: ClassicPublic) -> tuple[str, str] | None:
    """What the one message box says: a fault that stops input first (a refusal must
    not hide it), then the other screen failing, then the stand's answer to a press
    (a hint, an undo asked), then a refusal, then "time is up", then the end
    screen's line (undo can still take the end back, or how to deal the next game),
    then the last input."""
    note = note_key(public)
    last = last_key(public)
    if note is not None and note != "time_up":  # a fault: nothing may hide it
        return "classic_note", note
    if public.note is not None:
        return "classic_note", public.note
    if last is not None and last[0] == "classic_reject":
        return last
    if note is not None:
        return "classic_note", note
    if public.end is not None:
        return "classic_note", f"end_{public.end}"
    return last


def note_key(public: ClassicPublic) -> str | None:
    if public.cannot_save:  # first: nothing the players do is taken until it is mended
        return "cannot_save"
    if public.input_lost:  # then: touches are not seen until the device is back
        return "input_lost"
    if public.panel_failed is not None:  # that screen cannot say it: this one must
        return f"panel_failed_{public.panel_failed}"
    if public.timer == 0 and public.stage is not ClassicStage.OVER:
        return "time_up"
    return None


# ----- drawing -------------------------------------------------------------------------


def looks(view: ClassicView) -> dict[int, ClassicLook]:
    """How each table cell looks: the key's colour on the spymasters' screen, the
    tile's colour (or nothing) on the operatives', until the end is final and
    their view has the key too."""
    p = view.public
    framed = p.last.cell if p.last else None
    colours: tuple[Colour | None, ...] = p.revealed if view.key is None else view.key
    return {
        i: ClassicLook(colour, p.revealed[i] is not None, i == framed)
        for i, colour in enumerate(colours)
    }


def facing(view: ClassicView) -> SeatId:
    """The chair the grid is turned for: the spymasters read the table as the card
    text names it (Duet's seat A); the operatives sit opposite (seat B)."""
    return SeatId.A if isinstance(view, SpymastersView) else SeatId.B


def _fill(text: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def _draw_grid(
    d: ImageDraw.ImageDraw,
    seat: SeatId,
    lay: ClassicLayout,
    cells: dict[int, ClassicLook],
    stroke: int,
) -> dict[int, Box]:
    x, y, cell = lay.grid_x, lay.grid_y, lay.cell
    draw_lines(d, x, y, cell, lay.grid)
    boxes = grid_boxes(seat, x, y, cell, lay.grid)
    # The framed cell last: its frame lies over its neighbours' edges.
    for i in sorted(boxes, key=lambda i: cells[i].framed):
        draw_classic_cell(d, boxes[i], cells[i], stroke)
    return boxes


def draw(image: Image.Image, view: ClassicView, panel: PanelSpec, lang: str) -> dict[int, Box]:
    p = view.public
    lay = layout(panel, timed=p.timer is not None, grid=p.grid)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    boxes = _draw_grid(d, facing(view), lay, looks(view), stroke_px(panel))
    s = i18n.strings(lang)
    head, team = headline(p)
    act = acting(view)
    ink = WHITE if act else BLACK
    if act:
        d.rectangle(inclusive(lay.bar), fill=BLACK)
    draw_text(d, s["classic_headline"][head], lay.headline, fill=ink, middle=True)
    key, values = sub(p, view.choosing if isinstance(view, SpymastersView) else None)
    draw_text(d, _fill(s["classic_sub"][key], values), lay.sub)
    for tally, t in zip(lay.teams, (Team.RED, Team.BLUE), strict=True):
        # The team the headline names is inverted: it ties the symbol to the name.
        named = t is team
        fill = WHITE if named else BLACK
        d.rectangle(inclusive(tally.box), outline=BLACK, fill=BLACK if named else WHITE)
        x0, y0, x1, _ = tally.sign
        draw_symbol(d, t, x0, y0, x1 - x0, fill=fill)
        draw_text(d, str(p.agents_left(t)), tally.text, fill=fill, center=True)
    if lay.timer is not None and p.timer is not None:
        # The last seconds inverted: time is short.
        urgent = timer_shown(p.timer) <= LAST_SECONDS
        fill = WHITE if urgent else BLACK
        d.rectangle(inclusive(lay.timer.box), outline=BLACK, fill=BLACK if urgent else WHITE)
        x0, y0, x1, y1 = lay.timer.sign
        draw_hourglass(d, x0, y0, x1 - x0, y1 - y0, fill, stroke_px(panel))
        draw_text(d, timer_text(p.timer), lay.timer.text, fill=fill, center=True)
    message = message_key(p)
    if message:
        table, name = message
        if table == "classic_reject":
            d.rectangle(inclusive(lay.frame), outline=BLACK, width=FRAME)
        # A code a newer rules module added and no strings file has yet: shown as is.
        draw_text(d, s[table].get(name, name), lay.message, middle=True)
    return boxes


def render_with_boxes(
    view: ClassicView, spec: PanelSpec, lang: str = i18n.DEFAULT
) -> tuple[Image.Image, dict[int, Box]]:
    """The screen, upright as its readers see it, and each table cell's box in it."""
    if lang not in i18n.languages():
        raise ValueError(f"language {lang!r}: expected one of {', '.join(i18n.languages())}")
    if not isinstance(view, SpymastersView | OperativesView):
        raise TypeError(f"not a classic view: {type(view).__name__}")
    image = Image.new("1", spec.size, WHITE)
    return image, draw(image, view, spec, lang)


def render(view: ClassicView, spec: PanelSpec, lang: str = i18n.DEFAULT) -> Image.Image:
    """A classic screen: a 1-bit image of the panel's upright size."""
    return render_with_boxes(view, spec, lang)[0]
