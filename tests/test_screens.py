"""The stand's screens beyond the game: the menu shows nothing of the game, an
undo request shows on both seats, history is read once per visit."""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import layouts, screens, views
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.rules import Seat, generate
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
