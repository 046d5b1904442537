"""The menu's entries every game has keep their places in every game (issue 22
item 5): counted down from Close (close, new game, invalid clue) or up from the
bottom (game, history, language; Calibrate grid below them on a grid build), the
same presses reach them whichever game is in play; each game's own settings lie
between. Counting presses learnt on Duet once landed on Language in classic."""

from __future__ import annotations

import pytest

from keystand import games
from keystand.layouts import MenuItem, MenuLine, MenuView, panel, render
from keystand.layouts import menu as menu_screen
from keystand.panel_models import PANELS

TOP = ("close", "new_game", "penalty")
BOTTOM = ("language", "history", "game")


def test_the_shared_entries_are_where_they_are_in_every_game() -> None:
    for name in games.SHIPPED:
        items = games.get(name).menu_items
        assert items[: len(TOP)] == TOP, name
        assert items[-len(BOTTOM) :] == BOTTOM, name


def test_each_game_has_its_own_settings_between() -> None:
    own = {name: games.get(name).menu_items[len(TOP) : -len(BOTTOM)] for name in games.SHIPPED}
    assert own == {
        "duet": ("mission", "order", "first_clue", "campaign", "new_campaign"),
        "classic": ("timer", "numbers"),
    }


# ----- the scroll signs ----------------------------------------------------------


LINES = tuple(MenuLine(MenuItem(name)) for name in (*games.get("duet").menu_items, "calibrate"))
MOUNTS = [(m, r) for m in PANELS for r in (0, 90)]


def sign_ink(model: str, rotation: int, selected: int) -> tuple[bool, bool]:
    """Whether the scroll column holds ink beside the first and the last entry shown."""
    spec = panel(model, rotation)
    lay = menu_screen.layout(spec)
    image = render(MenuView(LINES, selected), spec, "en").convert("1")
    w, _ = spec.size
    right = w - spec.style.margin - 3
    left = right - menu_screen.scroll_width(spec) + 1
    chosen_row = menu_screen._window(selected, len(LINES), len(lay.rows))

    def inked(value: object, chosen: bool) -> bool:
        top, bottom = value.y, value.y + value.line_height
        pixels = [
            image.getpixel((x, y)) for x in range(left, right + 1) for y in range(top, bottom)
        ]
        return any(p == (255 if chosen else 0) for p in pixels)

    first, last = lay.values[0], lay.values[min(len(lay.rows), len(LINES)) - 1]
    k_last = min(len(lay.rows), len(LINES)) - 1
    return (
        inked(first, selected == chosen_row),
        inked(last, selected == chosen_row + k_last),
    )


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
def test_a_sign_says_more_entries_lie_above_or_below(model: str, rotation: int) -> None:
    rows = len(menu_screen.layout(panel(model, rotation)).rows)
    if rows >= len(LINES):  # every entry on screen: no sign
        assert sign_ink(model, rotation, 0) == (False, False)
        return
    assert sign_ink(model, rotation, 0) == (False, True)  # at the top: more below
    assert sign_ink(model, rotation, len(LINES) - 1) == (True, False)  # at the foot: above
    middle = len(LINES) // 2
    first = menu_screen._window(middle, len(LINES), rows)
    assert first > 0  # the middle entry chosen: the list has scrolled
    assert sign_ink(model, rotation, middle) == (True, first + rows < len(LINES))
