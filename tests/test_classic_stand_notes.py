"""What a classic stand tells each screen about a press: the key that is not this
side's, one side's undo request, the end held back for undo, then how to deal the
next game. Through the stand and its screens' views, as the service draws them."""

from __future__ import annotations

from pathlib import Path

from clue_keys import give_clue

from keystand import games, screens
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.rules import Seat
from keystand.rules.classic import Phase
from keystand.rules.classic_card import ClassicCard
from keystand.rules.classic_events import parse_event
from keystand.stand import REFUSAL_SHOWN, Settings, Stand
from keystand.store import Store

CARD = ClassicCard.from_code("9CY-EPF-ZXQ")  # UU.UU RRUXR ..R.R .URU. .UURR: blue starts
SPYMASTERS, OPERATIVES = Seat.A, Seat.B


def stand_of(root: Path) -> Stand:
    stand = Stand(Store(root), settings=Settings(game="classic"), new_card=lambda: CARD)
    stand.boot()
    return stand


def public(stand: Stand, seat: Seat):  # type: ignore[no-untyped-def]
    return stand.game.view(stand.state, seat, screens.context(stand, seat)).public


def press(stand: Stand, seat: Seat, key: KeyName, now: float) -> bool:
    return stand.handle(Press(seat.value, key), now)


def test_a_key_that_is_not_this_sides_says_whose_it_is(tmp_path: Path) -> None:
    stand = stand_of(tmp_path)
    assert press(stand, OPERATIVES, KeyName.CLUE, 0.0)  # the screen changes
    assert public(stand, OPERATIVES).note == "hint_useless_clue"
    assert public(stand, SPYMASTERS).note is None  # the other side is not told
    assert stand.state.phase is Phase.AWAITING_CLUE  # and nothing happened
    give_clue(stand, SPYMASTERS.value, 1.0)  # the clue: the hint goes
    assert stand.state.phase is Phase.GUESSING
    assert public(stand, OPERATIVES).note is None
    press(stand, SPYMASTERS, KeyName.PASS, 2.0)
    assert public(stand, SPYMASTERS).note == "hint_useless_pass"
    assert stand.state.phase is Phase.GUESSING
    stand.tick(2.0 + REFUSAL_SHOWN)  # a hint lasts as long as a refusal
    assert public(stand, SPYMASTERS).note is None


def test_one_sides_undo_request_is_on_both_screens(tmp_path: Path) -> None:
    stand = stand_of(tmp_path)
    stand.handle(games.Played(parse_event("clue blue 2")), 0.0)
    press(stand, OPERATIVES, KeyName.UNDO, 1.0)
    assert public(stand, OPERATIVES).note == "undo_wait_spymasters"
    assert public(stand, SPYMASTERS).note == "undo_asked_operatives"
    press(stand, SPYMASTERS, KeyName.UNDO, 2.0)  # both: the clue is taken back
    assert stand.state.phase is Phase.AWAITING_CLUE
    assert public(stand, SPYMASTERS).note is None
    press(stand, SPYMASTERS, KeyName.UNDO, 3.0)
    assert public(stand, SPYMASTERS).note == "undo_wait_operatives"
    assert public(stand, OPERATIVES).note == "undo_asked_spymasters"


def test_the_end_is_held_for_undo_then_clue_deals_the_next_game(tmp_path: Path) -> None:
    stand = stand_of(tmp_path)
    stand.handle(games.Played(parse_event("clue blue 2")), 0.0)
    stand.handle(Touch(1, 3), 1.0)  # the assassin: red wins
    assert not stand.playing
    for seat in Seat:
        assert public(stand, seat).end == "hold"
    stand.tick(1.0 + stand.settings.reveal_delay)
    for seat in Seat:
        assert public(stand, seat).end == "new_game"
    first = stand.store.game_id
    press(stand, OPERATIVES, KeyName.CLUE, 20.0)  # what the end screen says deals it
    assert stand.playing and stand.store.game_id != first


def test_a_refusal_shows_for_a_few_seconds_then_the_result_before_it(tmp_path: Path) -> None:
    """As in Duet: a clue while the operatives guess is refused on both screens,
    then, after REFUSAL_SHOWN, each shows again what the word touched before it was."""
    stand = stand_of(tmp_path)
    stand.handle(games.Played(parse_event("clue blue 2")), 0.0)
    blue = min(CARD.agents(CARD.starting))
    stand.handle(Touch(*divmod(blue, 5)), 1.0)
    found = {seat: public(stand, seat).last for seat in Seat}
    assert all(last is not None and last.reject is None for last in found.values())
    stand.handle(games.Played(parse_event("clue blue 1")), 2.0)  # not now: guessing
    assert all(public(stand, seat).last.reject is not None for seat in Seat)
    stand.tick(2.0 + REFUSAL_SHOWN)
    assert {seat: public(stand, seat).last for seat in Seat} == found
