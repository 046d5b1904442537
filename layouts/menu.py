"""The menu, on the screen of the seat that opened it: no key, nothing of the game.

A title bar, the entries (the chosen one inverted, a window that scrolls with
it on small panels), and a line that says what the keys do (or, while the other
seat's screen fails, says that: an urgent fault before a reminder). The same screen
lists the finished games when the seat asks for the history, a page of them at a
time with "2/5" at the title bar's right end, and the turns and mistakes while a
custom mission is set.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace

from PIL import Image, ImageDraw

from . import i18n
from .panels import PanelSpec
from .text import BLACK, WHITE, TextBox, draw_text, fits, line_height, width


class MenuItem(enum.Enum):
    CLOSE = "close"
    NEW_GAME = "new_game"
    MISSION = "mission"
    ORDER = "order"
    FIRST_CLUE = "first_clue"
    CAMPAIGN = "campaign"
    NEW_CAMPAIGN = "new_campaign"
    LANGUAGE = "language"
    PENALTY = "penalty"
    CALIBRATE = "calibrate"
    HISTORY = "history"
    GAME = "game"
    TIMER = "timer"
    NUMBERS = "numbers"


@dataclass(frozen=True)
class MenuLine:
    """One entry: its label, and its value as a strings key or as plain text (9-9)."""

    item: MenuItem
    value_key: str | None = None
    value_text: str | None = None
    named: tuple[str | None, str] | None = None  # a name key (or None) and numbers: "9-5"
    # Chosen during a game for the next one (the rules fix it at the start): the
    # label says "Next game" instead of the entry's name, the value is the choice.
    next_game: bool = False


@dataclass(frozen=True)
class HistoryLine:
    """One finished game: when, what it was (Duet's mission, another game's name),
    how it ended, the score."""

    date: str
    label: str
    result: str  # won, lost, abandoned: a key of [history]
    score: int | None


@dataclass(frozen=True)
class CampaignLine:
    """One mission of the team's campaign: which (its name key or None, "9-5"),
    how many times won, the best score."""

    mission: tuple[str | None, str]
    won: int
    best: int


@dataclass(frozen=True)
class MenuView:
    lines: tuple[MenuLine, ...]
    selected: int = 0
    editing: str | None = None  # "turns" or "mistakes" while a custom mission is set
    history: tuple[HistoryLine, ...] | None = None  # shown instead of the entries
    # The history's page, any integer: taken modulo the pages there are on the
    # panel (its rows to a page), so paging on past either end wraps round.
    history_page: int = 0
    # The other seat's screen fails (stuck, unplugged): said where the keys' hint goes,
    # as that panel cannot say it and the players may not look at it for a while.
    other_panel_failed: bool = False
    # The campaign's missions won, shown instead of the entries (paged by
    # `history_page`, as the history is).
    campaign: tuple[CampaignLine, ...] | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.selected < len(self.lines):
            raise ValueError(f"selected {self.selected}: expected 0..{len(self.lines) - 1}")
        if self.editing not in (None, "turns", "mistakes"):
            raise ValueError(f"editing {self.editing!r}: expected turns or mistakes")


# The widest page indicator the history draws ("17/17": HISTORY_GAMES to a few a page).
WIDEST_PAGES = "88/88"


@dataclass(frozen=True)
class MenuLayout:
    title: TextBox
    page: TextBox  # the history's "2/5", at the title bar's right end
    rows: tuple[TextBox, ...]  # where each visible entry's label goes
    values: tuple[TextBox, ...]  # and its value
    hint: TextBox
    row_h: int

    @property
    def first_line(self) -> TextBox:
        """The first row, label and value together (the empty history's one line)."""
        first, value = self.rows[0], self.values[0]
        lines = max(1, (value.y + value.h - first.y) // first.line_height)
        return replace(first, w=max(first.w, value.x + value.w - first.x), lines=lines)

    def slots(self) -> dict[str, list[TextBox]]:
        return {
            "menu_title": [self.title],
            "menu": list(self.rows),
            "menu_value": list(self.values),
            "menu_hint": [self.hint],
            "history": list(self.values),
            "history_empty": [self.first_line],
            "campaign": list(self.values),
            "campaign_empty": [self.first_line],
        }


def layout(panel: PanelSpec) -> MenuLayout:
    w, h = panel.size
    st = panel.style
    m = st.margin + 1
    title = TextBox(m + 2, m, w - 2 * m - 4, st.headline)
    pw = width(WIDEST_PAGES, st.body) + 1  # at the entries' size: beside the title
    page = TextBox(
        title.x + title.w - pw, title.y + (title.h - line_height(st.body)) // 2, pw, st.body
    )
    hint_size = st.label
    hint_lines = st.hint_lines if panel.landscape else max(2, st.hint_lines)
    hint = TextBox(m, h - m - hint_lines * line_height(hint_size), w - 2 * m, hint_size, hint_lines)
    lh = line_height(st.body)
    top = title.y + title.h + 2
    inner = w - 2 * m
    sw = scroll_width(panel)  # right of each value: the scroll signs' column
    # Beside the keys' labels the foot says nothing of the keys: the entries run on
    # under it, and a notice (the other screen fails) covers the last of them.
    bottom = h - m if panel.labelled else hint.y - 2
    if panel.landscape and not st.menu_stacked:  # label and value side by side
        row_h = lh + 3
        label_w = round(inner * st.menu_split)
        n = max(1, (bottom - top) // row_h)
        rows = tuple(TextBox(m + 3, top + k * row_h + 1, label_w - 6, st.body) for k in range(n))
        values = tuple(
            TextBox(m + label_w, top + k * row_h + 1, inner - label_w - 3 - sw, st.body)
            for k in range(n)
        )
    else:  # narrow: the value on a line of its own under the label, to the right
        row_h = 2 * lh + 3
        n = max(1, (bottom - top) // row_h)
        rows = tuple(TextBox(m + 3, top + k * row_h + 1, inner - 6, st.body) for k in range(n))
        values = tuple(
            TextBox(m + 3, top + k * row_h + 1 + lh, inner - 6 - sw, st.body) for k in range(n)
        )
    return MenuLayout(title, page, rows, values, hint, row_h)


def scroll_width(panel: PanelSpec) -> int:
    """The column at the list's right edge where an arrow says more entries lie
    above or below (a small panel shows a few entries at a time)."""
    return 5 + 1  # a 5-pixel triangle and a pixel apart: read at a glance, narrow


def _scroll_sign(
    draw: ImageDraw.ImageDraw, panel: PanelSpec, row: TextBox, up: bool, ink: int
) -> None:
    """A small solid triangle in the scroll column beside `row` (a value's box),
    pointing up or down."""
    w, _ = panel.size
    size = scroll_width(panel) - 1
    right = w - panel.style.margin - 3
    left = right - size
    top = row.y + (row.line_height - size) // 2
    bottom = top + size - 1
    mid = (left + right) // 2
    if up:
        points = [(left, bottom), (right, bottom), (mid, top)]
    else:
        points = [(left, top), (right, top), (mid, bottom)]
    draw.polygon(points, fill=ink)


def _window(selected: int, count: int, rows: int) -> int:
    """The first entry shown, so that the chosen one is on screen."""
    if count <= rows:
        return 0
    return min(max(0, selected - rows // 2), count - rows)


def draw(image: Image.Image, view: MenuView, panel: PanelSpec, lang: str) -> None:
    lay = layout(panel)
    s = i18n.strings(lang)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    w, _ = panel.size
    x0, x1 = lay.rows[0].x - 3, w - lay.rows[0].x + 2
    d.rectangle((x0, lay.title.y - 1, x1, lay.title.y + lay.title.h), fill=BLACK)
    if view.campaign is not None:
        _draw_campaign(d, view, view.campaign, panel, lay, s, lang)
        return
    if view.history is not None:
        draw_text(d, s["menu"]["history"], lay.title, fill=WHITE)
        page, pages = history_page(view, len(lay.rows))
        per = len(lay.rows)
        games = view.history[page * per : (page + 1) * per]
        if games:
            draw_text(d, f"{page + 1}/{pages}", lay.page, fill=WHITE, right=True)
        else:
            draw_text(d, s["history_empty"]["none"], lay.first_line)
        for row, value, game in zip(lay.rows, lay.values, games, strict=False):
            draw_text(d, history_label(game, s, row), row)
            score = "" if game.score is None else f" {game.score}"
            draw_text(d, s["history"][game.result] + score, value, right=not panel.landscape)
        _foot(d, foot(view, s, "back", panel.labelled), lay.hint, panel.labelled)
        return
    draw_text(d, s["menu_title"]["menu"], lay.title, fill=WHITE)
    first = _window(view.selected, len(view.lines), len(lay.rows))
    shown = view.lines[first : first + len(lay.rows)]
    for k, (row, value, line) in enumerate(zip(lay.rows, lay.values, shown, strict=False)):
        chosen = first + k == view.selected
        ink = WHITE if chosen else BLACK
        if chosen:
            d.rectangle((x0, row.y - 1, x1, row.y + lay.row_h - 3), fill=BLACK)
        label = "mission_next" if line.next_game else line.item.value
        draw_text(d, s["menu"][label], row, fill=ink)
        text = s["menu_value"][line.value_key] if line.value_key else (line.value_text or "")
        if line.named is not None:
            text = i18n.mission(lang, *line.named)
        if chosen and view.editing and line.item is MenuItem.MISSION:
            # While T-M is set by hand its numbers are the news, not a name.
            numbers = line.named[1] if line.named is not None else text
            text = f"{s['menu_value'][view.editing]} {numbers}"
        draw_text(d, text, value, fill=ink, right=not panel.landscape)
        if (k == 0 and first > 0) or (k == len(lay.rows) - 1 and first + k + 1 < len(view.lines)):
            _scroll_sign(d, panel, value, up=k == 0, ink=ink)  # more entries that way
    hint = "edit" if view.editing else "move"
    _foot(d, foot(view, s, hint, panel.labelled), lay.hint, panel.labelled)


def _foot(d: ImageDraw.ImageDraw, text: str, box: TextBox, over: bool) -> None:
    """The foot line; `over` the last entries (beside the keys' labels, where it is
    only a notice), on white under a rule."""
    if text and over:
        x0, y0, x1, y1 = box.box
        d.rectangle((x0, y0 - 2, x1 - 1, y1 - 1), fill=WHITE)
        d.line((x0, y0 - 2, x1 - 1, y0 - 2), fill=BLACK)
    draw_text(d, text, box, center=True)


def _draw_campaign(
    d: ImageDraw.ImageDraw,
    view: MenuView,
    missions: tuple[CampaignLine, ...],
    panel: PanelSpec,
    lay: MenuLayout,
    s: Mapping[str, Mapping[str, str]],
    lang: str,
) -> None:
    """The campaign's page: each mission won, how often, its best score; a page of
    them at a time, as the history's."""
    draw_text(d, s["menu"]["campaign"], lay.title, fill=WHITE)
    per = len(lay.rows)
    pages = max(1, -(-len(missions) // per))
    page = view.history_page % pages
    shown = missions[page * per : (page + 1) * per]
    if shown:
        draw_text(d, f"{page + 1}/{pages}", lay.page, fill=WHITE, right=True)
    else:
        draw_text(d, s["campaign_empty"]["none"], lay.first_line)
    for row, value, line in zip(lay.rows, lay.values, shown, strict=False):
        draw_text(d, i18n.mission(lang, *line.mission), row)
        won = str(line.won) if line.won < 100 else "99+"  # a row has room for no more
        text = s["campaign"]["row"].format(won=won, best=line.best)
        draw_text(d, text, value, right=not panel.landscape)
    draw_text(d, foot(view, s, "back"), lay.hint, center=True)


def history_label(game: HistoryLine, s: Mapping[str, Mapping[str, str]], row: TextBox) -> str:
    """When and which mission; a game without missions (classic) by its name in the
    seat's language, the date left out where a narrow row has no room for both."""
    mission = s["menu_value"].get(f"game_{game.label}", game.label)
    label = f"{game.date} {mission}"
    return label if fits(label, row) else mission


def history_page(view: MenuView, per_page: int) -> tuple[int, int]:
    """The history's page shown (from 0) and how many there are, `per_page` games
    to a page (the panel's rows)."""
    count = len(view.history or ())
    pages = max(1, -(-count // per_page))
    return view.history_page % pages, pages


def foot(
    view: MenuView, s: Mapping[str, Mapping[str, str]], hint: str, labelled: bool = False
) -> str:
    """The foot line: what the keys do (nothing where each key's label says it),
    unless the other seat's screen fails."""
    if view.other_panel_failed:
        return s["menu_note"]["other_panel_failed"]
    return "" if labelled else s["menu_hint"][hint]
