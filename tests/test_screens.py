"""The stand's screens beyond the game: the menu shows nothing of the game, an
undo request shows on both seats, history is read once per visit."""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import layouts, screens, views
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.rules import Seat, Status, generate
from keystand.stand import Item, Menu, Settings, Stand
from keystand.store import Store

PANELS = [SimPanel(m, rotation=r, speed=0) for m in layouts.MODELS for r in (0, 90)]


def stand(tmp_path: Path, seed: int) -> Stand:
    s = Stand(Store(tmp_path / f"s{seed}"), new_card=lambda: generate(seed))
    s.boot()
    return s


def test_the_menu_shows_nothing_of_the_game(tmp_path: Path) -> None:
    one, two = stand(tmp_path, 1), stand(tmp_path, 2)
    two.handle(Act("clue", "B"), 0.0)
    two.handle(Touch(*divmod(min(two.state.card.agents(Seat.B)), 5)), 0.1)
    assert one.state.card != two.state.card
    for s in (one, two):
        s.menus[Seat.A] = Menu(Seat.A, index=2)
    for lang in layouts.languages():
        for s in (one, two):
            s.settings = Settings(lang=(lang, lang))
        for panel in PANELS:
            a = screens.render(one, Seat.A, panel)
            b = screens.render(two, Seat.A, panel)
            assert a.tobytes() == b.tobytes(), (panel.model.name, panel.rotation, lang)


def test_an_undo_request_shows_on_both_screens(tmp_path: Path) -> None:
    s = stand(tmp_path, 3)
    s.handle(Act("clue", "A"), 0.0)
    s.handle(Touch(*divmod(min(s.state.card.agents(Seat.A)), 5)), 0.1)
    panel = PANELS[0]
    spec = screens.spec(panel)
    before = {seat: screens.render(s, seat, panel).tobytes() for seat in Seat}
    s.handle(Press("B", KeyName.UNDO), 1.0)
    for seat in Seat:
        shown = screens.render(s, seat, panel)
        want = layouts.render(views.for_seat(s.state, seat, undo_asked=Seat.B), spec)
        assert shown.tobytes() == want.tobytes()
        assert shown.tobytes() != before[seat]
    s.tick(1.0 + s.settings.undo_window + 0.5)  # the request lapses: the note goes
    assert {seat: screens.render(s, seat, panel).tobytes() for seat in Seat} == before


def test_history_is_read_once_per_visit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = stand(tmp_path, 4)
    s.handle(Act("clue", "A"), 0.0)
    s.new_game()  # the first game is abandoned: one history line
    reads = []
    real = s.store.history
    monkeypatch.setattr(s.store, "history", lambda limit=None: reads.append(1) or real(limit))
    s.menus[Seat.B] = Menu(Seat.B, index=list(Item).index(Item.HISTORY))
    s.handle(Press("B", KeyName.MENU), 1.0)
    for _ in range(3):
        view = screens.menu_view(s, Seat.B)
        s.handle(Touch(0, 0), 2.0)  # the other seat plays on: redraws
    assert len(reads) == 1
    assert view.history is not None and [g.result for g in view.history] == ["abandoned"]
    s.handle(Press("B", KeyName.PASS), 3.0)  # any key: back to the menu
    assert screens.menu_view(s, Seat.B).history is None


def test_a_stray_last_touch_can_be_undone_before_the_key_is_shown(tmp_path: Path) -> None:
    """The end screen holds back the partner's side and the card code for a few
    seconds; both seats' undo then reopens the game, no key having been shown.
    Once the key is shown, undo is refused: the players have seen the whole card."""
    s = stand(tmp_path, 5)
    card = s.state.card
    assassin = min(i for i, k in enumerate(card.a) if k.value == "X")
    s.handle(Act("clue", "A"), 0.0)
    s.handle(Touch(*divmod(assassin, 5)), 1.0)
    assert s.state.status is Status.LOST and not s.revealed
    for seat in Seat:
        view = views.for_seat(s.state, seat, reveal=s.revealed)
        assert view.end is not None and view.end.held
        assert view.end.card_code is None and view.end.partner_side is None
        shown = screens.render(s, seat, PANELS[0])
        assert shown.tobytes() == layouts.render(view, screens.spec(PANELS[0])).tobytes()
    s.handle(Press("A", KeyName.UNDO), 2.0)
    s.handle(Press("B", KeyName.UNDO), 3.0)
    assert s.state.status is Status.PLAYING  # the stray touch taken back
    s.handle(Touch(*divmod(assassin, 5)), 4.0)  # touched again, for real this time
    assert s.tick(4.0 + s.settings.reveal_delay)
    assert s.revealed
    full = views.for_seat(s.state, Seat.A, reveal=s.revealed)
    assert full.end.card_code == card.code and full.end.partner_side is not None
    s.handle(Press("A", KeyName.UNDO), 20.0)
    s.handle(Press("B", KeyName.UNDO), 21.0)
    assert s.state.status is Status.LOST  # refused: the whole card has been seen


def test_the_menu_opens_on_close_and_leaving_a_game_needs_a_second_press(tmp_path: Path):
    s = stand(tmp_path, 6)
    first = s.state
    s.handle(Press("A", KeyName.MENU, long=True), 0.0)
    s.handle(Press("A", KeyName.MENU), 0.1)  # a double press: closes, nothing else
    assert Seat.A not in s.menus and s.state is first
    s.handle(Press("A", KeyName.MENU, long=True), 0.2)
    s.handle(Press("A", KeyName.PASS), 0.3)  # down to New game
    s.handle(Press("A", KeyName.MENU), 0.4)
    assert s.state is first  # a game in play: asks once more
    assert screens.menu_view(s, Seat.A).lines[1].value_key == "confirm"
    s.handle(Press("A", KeyName.MENU), 0.5)
    assert s.state is not first and s.state.agents_found == 0
