"""One seat may leave a game in play for a new one (menu > New game, twice): the
partner's screen says plainly that its partner did, and the game left is in the
history as abandoned (issue 22 item 6). One seat can: a café's stand lent out
all evening must not be stuck on a game whose partner walked away; consent is
asked for undo, which changes the game both are playing, not for leaving it."""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.menu import Item
from keystand.rules import Seat
from keystand.settings import Settings
from keystand.stand import LEFT_SHOWN, Stand
from keystand.store import Store


def new_game(stand: Stand, seat: str, now: float) -> None:
    stand.handle(Press(seat, KeyName.MENU, long=True), now)
    while stand.menus[Seat(seat)].item is not Item.NEW_GAME:
        stand.handle(Press(seat, KeyName.PASS), now)
    stand.handle(Press(seat, KeyName.MENU), now)
    if Seat(seat) in stand.menus:
        stand.handle(Press(seat, KeyName.MENU), now)  # a game in play: once more


def touch_the_assassin(stand: Stand) -> int:
    """A clues, B touches an assassin of A's side (at 1 s and 2 s): the game is lost."""
    stand.handle(Press("A", KeyName.CLUE), 1.0)
    side = stand.state.card.side(Seat.A)
    assassin = next(i for i, k in enumerate(side) if k.value == "X")
    stand.handle(Touch(*divmod(assassin, 5)), 2.0)
    return assassin


@pytest.mark.parametrize("name", games.SHIPPED)
def test_the_partner_is_told_who_left_the_game(name: str, tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), settings=Settings(game=name))
    stand.boot()
    left = stand.store.game_id
    new_game(stand, "B", 5.0)
    assert stand.store.game_id != left
    a, b = screens.context(stand, Seat.A), screens.context(stand, Seat.B)
    assert a.hint == "partner_new_game" and b.hint is None
    told = stand.game.view(stand.state, Seat.A, a)
    said = told.public.note if name == "classic" else told.hint  # classic: by role
    assert said == {"duet": "partner_new_game", "classic": "new_game_by_operatives"}[name]
    for seat in Seat:  # each screen draws it, in each language
        for lang in ("en", "de", "ru"):
            stand.settings = stand.settings.__class__(
                **{**vars(stand.settings), "lang": (lang, lang)}
            )
            screens.render(stand, seat, SimPanel("epd2in7_V2", rotation=90, speed=0))
    entry = Store.reader(tmp_path).history()[0]
    assert (entry["id"], entry["result"]) == (left, "abandoned")
    stand.tick(5.0 + LEFT_SHOWN - 1)
    assert screens.context(stand, Seat.A).hint == "partner_new_game"
    stand.tick(5.0 + LEFT_SHOWN)
    assert screens.context(stand, Seat.A).hint is None


def test_the_notice_goes_with_the_new_games_first_input(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path))
    stand.boot()
    new_game(stand, "A", 1.0)
    assert screens.context(stand, Seat.B).hint == "partner_new_game"
    stand.handle(Press("B", KeyName.CLUE), 2.0)
    assert screens.context(stand, Seat.B).hint is None


def test_no_notice_for_a_new_game_after_one_that_is_over(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path))
    stand.boot()
    touch_the_assassin(stand)
    stand.tick(2.0 + stand.settings.reveal_delay)
    new_game(stand, "A", 20.0)
    assert screens.context(stand, Seat.B).hint is None


def test_a_new_game_while_the_end_is_held_asks_twice_and_tells_the_partner(
    tmp_path: Path,
) -> None:
    """In the seconds both seats may still undo a stray last touch, one seat's New
    game takes that undo from the partner: it is confirmed as in a game in play,
    and the partner's screen says who left."""
    stand = Stand(Store(tmp_path))
    stand.boot()
    touch_the_assassin(stand)
    ended = stand.store.game_id
    assert not stand.revealed
    stand.handle(Press("A", KeyName.MENU, long=True), 3.0)
    while stand.menus[Seat.A].item is not Item.NEW_GAME:
        stand.handle(Press("A", KeyName.PASS), 3.0)
    stand.handle(Press("A", KeyName.MENU), 3.0)
    assert stand.store.game_id == ended and stand.menus[Seat.A].confirming  # once more
    stand.handle(Press("A", KeyName.MENU), 3.5)
    assert stand.store.game_id != ended
    assert screens.context(stand, Seat.B).hint == "partner_new_game"


def test_a_touch_while_the_end_is_held_changes_nothing(tmp_path: Path) -> None:
    """In the seconds both seats may still undo a stray last touch, another touch
    is no input: the word framed stays the one that ended the game (a refusal
    once moved the frame to the refused word, then framed none)."""
    stand = Stand(Store(tmp_path))
    stand.boot()
    assassin = touch_the_assassin(stand)
    held = stand.game.view(stand.state, Seat.B, screens.context(stand, Seat.B))
    assert held.last is not None and held.last.cell == assassin and held.end.held
    other = next(i for i in range(25) if i != assassin)
    assert not stand.handle(Touch(*divmod(other, 5)), 3.0)  # nothing on any screen changes
    assert stand.game.view(stand.state, Seat.B, screens.context(stand, Seat.B)) == held
    stand.handle(Press("A", KeyName.UNDO), 4.0)  # undo still works while held
    stand.handle(Press("B", KeyName.UNDO), 4.5)
    assert stand.playing
