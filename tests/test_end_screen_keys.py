"""The keys on the Duet end screen, through the stand and the screens as the service
draws them: while the end is held back (undo can still take the last touch back)
one seat's undo is asked of the other as during play, and a refused key leaves
the held end as it was; once both sides are shown, undo and pass say why they do
nothing and what deals the next game."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from test_history_at_once import HOLD, lose

from keystand import games, layouts, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName, Press
from keystand.layouts import end as end_screen
from keystand.layouts.i18n import strings
from keystand.layouts.text import TextBox, draw_text
from keystand.layouts.view import HINTS
from keystand.rules import Seat
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store

MOUNTS = [(m, r) for m in layouts.MODELS for r in (0, 90)]


def stand_of(root: Path, game: str = "duet") -> Stand:
    stand = Stand(Store(root), settings=Settings(game=game))
    stand.boot()
    return stand


def press(stand: Stand, seat: Seat, key: KeyName, now: float) -> bool:
    return stand.handle(Press(seat.value, key), now)


def seat_view(stand: Stand, seat: Seat) -> layouts.AnyView:
    return stand.game.view(stand.state, seat, screens.context(stand, seat))


def says(shown: Image.Image, text: str, box: TextBox) -> bool:
    """`shown` has `text` in `box`, drawn as the end screen draws it, and nothing
    else there."""
    alone = Image.new("1", shown.size, 1)
    d = ImageDraw.Draw(alone)
    d.fontmode = "1"
    draw_text(d, text, box, center=True)
    return shown.crop(box.box).tobytes() == alone.crop(box.box).tobytes()


def held_box(panel: SimPanel) -> TextBox:
    lay = end_screen.layout(screens.spec(panel))
    return lay.held(lay.code_size)[0]


def foot_box(panel: SimPanel) -> TextBox:
    lay = end_screen.layout(screens.spec(panel))
    return end_screen.code_boxes(lay.code, lay.code_lines, lay.code_size)[1]


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
@pytest.mark.parametrize("lang", ["en", "de", "ru"])
def test_one_seats_undo_on_the_held_end_is_asked_of_the_partner(
    model: str, rotation: int, lang: str, tmp_path: Path
) -> None:
    stand = stand_of(tmp_path)
    stand.settings = replace(stand.settings, lang=(lang, lang))
    lose(stand, 10.0)
    panel = SimPanel(model, rotation=rotation, speed=0)
    s = strings(lang)["end_hold"]
    for seat in Seat:
        assert says(screens.render(stand, seat, panel), s["undo"], held_box(panel))
    assert press(stand, Seat.A, KeyName.UNDO, 12.0)
    assert not stand.revealed  # still held: the partner's side and the code are not shown
    asker, asked = (screens.render(stand, seat, panel) for seat in (Seat.A, Seat.B))
    assert says(asker, s["asked_by_me"], held_box(panel))
    assert says(asked, s["asked_by_partner"], held_box(panel))
    press(stand, Seat.B, KeyName.UNDO, 13.0)  # both: the touch is taken back
    assert stand.playing


def test_an_unanswered_undo_on_the_held_end_lapses(tmp_path: Path) -> None:
    stand = stand_of(tmp_path)
    lose(stand, 10.0)
    panel = SimPanel("epd2in9_V2", speed=0)
    held = screens.render(stand, Seat.B, panel)
    press(stand, Seat.A, KeyName.UNDO, 11.5)
    assert screens.render(stand, Seat.B, panel).tobytes() != held.tobytes()
    assert stand.tick(11.5 + stand.settings.undo_window + 0.1)
    assert screens.render(stand, Seat.B, panel).tobytes() == held.tobytes()


@pytest.mark.parametrize("name", games.SHIPPED)
@pytest.mark.parametrize("key", [KeyName.CLUE, KeyName.PASS])
def test_a_key_the_held_end_refuses_leaves_it_as_it_was(
    name: str, key: KeyName, tmp_path: Path
) -> None:
    """Clue or pass within the hold: the rules would say "the game is over", and that
    refusal took the frame off the word that lost the game (and cost each panel
    two refreshes). The held end stays as it was: undo can still take it back."""
    stand = stand_of(tmp_path, name)
    lose(stand, 10.0)
    before = {seat: seat_view(stand, seat) for seat in Seat}
    if name == "duet":
        assert before[Seat.A].last.cell is not None  # the word that lost it, framed
    for seat in Seat:
        assert not press(stand, seat, key, 12.0)  # no screen changes
        assert {s: seat_view(stand, s) for s in Seat} == before
    stand.tick(12.0 + 5.0)  # nor when a refusal's few seconds would be over
    assert {s: seat_view(stand, s) for s in Seat} == before
    assert not stand.playing and not stand.revealed
    press(stand, Seat.A, KeyName.UNDO, 17.5)
    press(stand, Seat.B, KeyName.UNDO, 18.0)
    assert stand.playing  # undo still takes the end back


@pytest.mark.parametrize(("model", "rotation"), MOUNTS)
@pytest.mark.parametrize("lang", ["en", "de", "ru"])
@pytest.mark.parametrize("key", [KeyName.UNDO, KeyName.PASS])
def test_undo_and_pass_once_both_sides_are_shown_say_the_game_is_over(
    model: str, rotation: int, lang: str, key: KeyName, tmp_path: Path
) -> None:
    stand = stand_of(tmp_path)
    stand.settings = replace(stand.settings, lang=(lang, lang))
    lose(stand, 10.0)
    stand.tick(11.0 + HOLD)  # both sides shown: undo is refused
    panel = SimPanel(model, rotation=rotation, speed=0)
    partner = screens.render(stand, Seat.B, panel)
    assert press(stand, Seat.A, key, 30.0)
    s = strings(lang)["end_hint"]
    assert says(screens.render(stand, Seat.A, panel), s["too_late"], foot_box(panel))
    assert screens.render(stand, Seat.B, panel).tobytes() == partner.tobytes()  # its own
    stand.tick(40.0)  # a hint's few seconds: then the end line again
    assert says(screens.render(stand, Seat.A, panel), s["new_game"], foot_box(panel))


def test_every_hint_the_revealed_end_screen_can_get_has_its_words(tmp_path: Path) -> None:
    """A key that does nothing there sets a hint (stand/hints.py); the end screen draws it
    under the code, in every language. Not "partner_new_game": that is set as a
    new game is dealt, and the game's next accepted input clears it."""
    stand = stand_of(tmp_path)
    lose(stand, 10.0)
    stand.tick(11.0 + HOLD)
    panel = SimPanel("epd2in7_V2", speed=0)
    for lang in layouts.languages():
        for hint in sorted(set(HINTS) - {"partner_new_game"}):
            context = replace(screens.context(stand, Seat.A), hint=hint)
            view = stand.game.view(stand.state, Seat.A, context)
            image = layouts.render(view, screens.spec(panel), lang)
            assert says(image, strings(lang)["end_hint"][hint], foot_box(panel)), (lang, hint)
