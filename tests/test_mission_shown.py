"""The mission in play is named on every game screen, by the name each language's
rulebook gives it; the mission chosen for the next game is told on both seats'
end screens (issue 31 item 5).

The rulebooks' sentences (shared/rules/duet-rules-*.txt, "The mission map"),
quoted: the screens' names must be the rulebook's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_layouts import ALL_MOUNTS, says, view

from keystand import screens
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.games.duet.settings import MISSION
from keystand.layouts import MissionLabel, Stage, languages, panel, render
from keystand.layouts import end as end_screen
from keystand.layouts import play as play_screen
from keystand.layouts.i18n import mission, mission_forms, strings
from keystand.layouts.text import fits
from keystand.rules import Key, Mission, Seat, generate
from keystand.rules.mission import NAMED
from keystand.stand import Menu, Stand
from keystand.store import Store

RULEBOOK = {
    # duet-rules-en.txt: "Moscow 8-8, Jakarta 7-7, and Singapore 6-6 are just like the
    # standard mission"; "When setting up Cairo, for example" ("Cairo uses 9").
    "en": "Moscow 8-8, Jakarta 7-7, and Singapore 6-6 ... Cairo 9-5",
    # duet-rules-de.txt: "Moskau 8-8, Bangkok 7-7 und Singapur 6-6 sind genau wie die
    # Standardmission"; "Kairo 9-5 9 Zeitmarker gesamt".
    "de": "Moskau 8-8, Bangkok 7-7 und Singapur 6-6 ... Kairo 9-5",
    # duet-rules-ru.txt: "Москва 8-8, Джакарта 7-7 и Сингапур 6-6 это стандартные
    # миссии"; "Каир 9-5 9 жетонов времени" (its numbers joined by an en dash, U+2013).
    "ru": "Москва 8\u20138, Джакарта 7\u20137 и Сингапур 6\u20136 ... Каир 9\u20135",
}


@pytest.mark.parametrize("lang", sorted(RULEBOOK))
def test_each_mission_is_named_as_its_language_s_rulebook_names_it(lang: str) -> None:
    """The German rulebook calls 7-7 Bangkok (shared/rules/NOTES.md); so do the
    German screens. Every name the screens have is a mission a rulebook names."""
    book = RULEBOOK[lang].replace("\u2013", "-")
    names = strings(lang)["mission_name"]
    for key in names:
        assert key in NAMED
        assert mission(lang, key, str(NAMED[key])) in book, (lang, key)
    assert set(names) == {Mission.parse(k).name for k in names}  # one key a mission


CAIRO = MissionLabel("cairo", "9-5")
MISSIONS = [
    CAIRO,
    MissionLabel(None, "9-9"),
    MissionLabel("jakarta", "7-7"),
    MissionLabel(None, "25-25"),
]


@pytest.mark.parametrize(("model", "rotation"), ALL_MOUNTS)
def test_the_play_screen_names_the_mission_under_the_grid(model: str, rotation: int) -> None:
    """In every language and for every mission: its name and numbers where the box
    holds them (else its name: a name says its numbers), in a box of its own that
    nothing else on the screen touches."""
    spec = panel(model, rotation)
    lay = play_screen.layout(spec)
    box = lay.mission
    assert box is not None
    w, h = spec.size
    x0, y0, x1, y1 = box.box
    assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h
    grid_bottom = lay.grid_y + 5 * lay.cell + 1  # the grid's outer line
    assert y0 >= grid_bottom
    for block in lay.blocks():  # the column's boxes: beside it, or under it
        assert x1 <= block[0] or y1 <= block[1] or block[3] <= y0, block
    for lang in languages():
        blank = render(view(), spec, lang)
        for m in MISSIONS:
            shown = render(view(mission=m), spec, lang)
            caption = play_screen.mission_caption(lang, m, box)
            forms = mission_forms(lang, m.name, m.numbers)
            assert caption == next(f for f in forms if fits(f, box))
            assert says(shown, spec, caption, box, center=True), (lang, m)
            diff = layouts_diff(blank, shown)
            assert diff is not None and inside(diff, box.box), (lang, m)


def layouts_diff(a, b):  # type: ignore[no-untyped-def]
    from PIL import ImageChops

    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox()


def inside(inner: tuple[int, ...], outer: tuple[int, ...]) -> bool:
    x0, y0, x1, y1 = inner
    return outer[0] <= x0 and outer[1] <= y0 and x1 <= outer[2] and y1 <= outer[3]


def test_the_full_name_shows_but_where_a_panel_is_too_narrow() -> None:
    """ "Cairo 9-5" in full everywhere, in every language; only the 2.13" mounted
    landscape, its grid 95 px wide, says the longest names without their numbers."""
    short = set()
    for model, rotation in ALL_MOUNTS:
        spec = panel(model, rotation)
        box = play_screen.layout(spec).mission
        assert box is not None
        for lang in languages():
            for key in strings(lang)["mission_name"]:
                full = mission(lang, key, str(NAMED[key]))
                if not fits(full, box):
                    short.add((model, spec.landscape, lang, key))
    assert {(m, landscape) for m, landscape, _, _ in short} <= {("epd2in13_V4", True)}
    assert ("epd2in13_V4", True, "en", "cairo") not in short


def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "s"), new_card=lambda: generate(5))
    s.boot()
    return s


def lose(s: Stand, now: float) -> None:
    card = s.state.card
    assassin = min(i for i, k in enumerate(card.a) if k is Key.ASSASSIN)
    s.handle(Act("clue", "A"), now)
    s.handle(Touch(*divmod(assassin, 5)), now + 0.1)


@pytest.mark.parametrize("revealed", [False, True])
def test_a_mission_chosen_on_the_end_screen_shows_on_both_end_screens(
    tmp_path: Path, revealed: bool
) -> None:
    """Seat A opens its menu on the end screen and picks Moscow for the next game:
    both seats' end screens say so (where they say what starts the next game, once
    the key is shown), and name the mission the game was."""
    s = stand(tmp_path)
    lose(s, 0.0)
    now = 1.0
    if revealed:
        now = 1.0 + s.settings.reveal_delay + 1.0
        s.tick(now)
    s.handle(Press("A", KeyName.MENU, long=True), now)
    s.menus[Seat.A].index = s.menus[Seat.A].items.index(MISSION)
    for _ in range(3):  # 9-9 -> 10-10 -> 11-11 -> Moscow 8-8
        s.handle(Press("A", KeyName.MENU), now + 0.1)
    assert s.settings.of(MISSION) == Mission(8, 8)
    s.handle(Press("A", KeyName.UNDO), now + 0.2)  # the menu closes: A's end screen again
    assert s.state is not None and s.state.phase.value == "over" and not s.menus
    for seat in Seat:
        v = s.game.view(s.state, seat, screens.context(s, seat))
        assert v.stage is Stage.OVER and v.end is not None
        assert v.next_mission == MissionLabel("moscow", "8-8")
        assert v.mission == MissionLabel(None, "9-9")
        for model, rotation in ALL_MOUNTS:
            spec = panel(model, rotation)
            lay = end_screen.layout(spec)
            for lang in languages():
                image = render(v, spec, lang)
                assert lay.mission is not None
                right = lay.mission_right
                assert says(image, spec, "9-9", lay.mission, right=right), (model, lang)
                _, foot = end_screen.code_boxes(lay.code, lay.code_lines, lay.code_size)
                told = strings(lang)["end_hint"]["next_mission"].format(
                    mission=mission(lang, "moscow", "8-8")
                )
                if revealed:
                    assert says(image, spec, told, foot, center=True), (model, rotation, lang)
                else:  # the hold: the line says what undo does, the mission waits
                    assert not says(image, spec, told, foot, center=True)


def test_the_end_screen_says_clue_new_game_when_nothing_else_was_chosen(tmp_path: Path) -> None:
    s = stand(tmp_path)
    lose(s, 0.0)
    s.tick(1.0 + s.settings.reveal_delay + 1.0)
    v = s.game.view(s.state, Seat.B, screens.context(s, Seat.B))
    assert v.next_mission is None
    spec = panel("epd2in9_V2")
    lay = end_screen.layout(spec)
    _, foot = end_screen.code_boxes(lay.code, lay.code_lines, lay.code_size)
    new_game = strings("de")["end_hint"]["new_game"]
    assert says(render(v, spec, "de"), spec, new_game, foot, center=True)


def test_a_seat_view_carries_the_mission_of_the_game_it_shows(tmp_path: Path) -> None:
    s = stand(tmp_path)
    s.settings = s.settings.choosing(MISSION, Mission.parse("cairo"))
    s.new_game()
    for seat in Seat:
        v = s.game.view(s.state, seat, screens.context(s, seat))
        assert v.mission == CAIRO and v.next_mission is None
    s.menus.open[Seat.B] = Menu(Seat.B, index=s.menu_items().index(MISSION))
    s.handle(Press("B", KeyName.MENU), 1.0)  # the next game's: the one in play stays Cairo
    v = s.game.view(s.state, Seat.A, screens.context(s, Seat.A))
    assert v.mission == CAIRO and v.next_mission is not None and v.next_mission != CAIRO
