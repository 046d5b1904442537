"""A failed panel holds the game (issue 31, item 7): before the seat whose panel
fails would need its side (its clue, or an undo it must confirm) nothing is
taken, the working screen says which panel and what to check and keeps the last
input, and play goes on by itself once the panel shows frames again. In the
stand, and end to end on emulated Waveshare panels through the service."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from clue_keys import give_clue

from keystand import screens
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.layouts import Stage, Who
from keystand.rules import Card, Key, Seat, generate
from keystand.rules.classic import Phase as ClassicPhase
from keystand.rules.duet import Phase
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store

A, B = Seat.A, Seat.B
FAULT = "seat B (epd2in7_V2): BUSY on GPIO13 never went high: unplugged?"


def cells(card: Card, judge: Seat, key: Key) -> list[int]:
    return [i for i, k in enumerate(card.side(judge)) if k is key]


def touch(i: int) -> Touch:
    return Touch(*divmod(i, 5))


def records(stand: Stand) -> int:
    return len((stand.store.root / "current.journal").read_bytes().splitlines())


@pytest.fixture
def stand(tmp_path: Path) -> Stand:
    s = Stand(Store(tmp_path / "state"), new_card=lambda: generate(3))
    s.boot()
    return s


def b_gives_next(stand: Stand) -> None:
    """A's clue, B finds an agent and passes: B gives the next clue, A guesses."""
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(touch(cells(card, A, Key.AGENT)[0]), 1.0)
    stand.handle(Press("B", KeyName.PASS), 2.0)
    assert (stand.state.phase, stand.state.clue_giver) == (Phase.AWAITING_CLUE, B)


def view_of(stand: Stand, seat: Seat):
    return stand.game.view(stand.state, seat, screens.context(stand, seat))


def test_the_failed_seats_clue_is_held_and_the_working_screen_says_so(stand: Stand) -> None:
    b_gives_next(stand)
    stand.panel_health(B, FAULT)
    held = view_of(stand, A)
    assert held.partner_panel_failed and held.held
    assert held.last is not None and held.last.kind.value == "pass"  # the last input stays
    before, journaled = stand.state, records(stand)
    card = stand.state.card
    stand.handle(Press("B", KeyName.CLUE), 3.0)  # B would need its side for its clue
    stand.handle(touch(cells(card, B, Key.AGENT)[1]), 4.0)  # A's guess would give it too
    stand.handle(Act("clue", "B"), 5.0)  # a script's clue line: the same key
    assert stand.state == before and records(stand) == journaled
    assert view_of(stand, A) == held  # nothing else to say: the screen already says it
    # The panel shows frames again: play goes on, nothing to press first.
    stand.panel_health(B, None)
    assert not view_of(stand, A).partner_panel_failed and not view_of(stand, A).held
    stand.handle(touch(cells(card, B, Key.AGENT)[1]), 6.0)
    assert stand.state.phase is Phase.GUESSING and stand.state.giver is B


def test_guessing_goes_on_while_the_guessers_panel_fails(stand: Stand) -> None:
    """B guesses on A's clue: it needs no side of its own for that, so its touches
    count; the game holds only at B's own clue."""
    card = stand.state.card
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.panel_health(B, FAULT)
    view = view_of(stand, A)
    assert view.partner_panel_failed and not view.held and view.stage is Stage.GUESSING
    stand.handle(touch(cells(card, A, Key.AGENT)[0]), 1.0)
    assert stand.state.agents_found == 1
    stand.handle(Press("B", KeyName.PASS), 2.0)
    assert stand.state.clue_giver is B and view_of(stand, A).held


def test_a_clue_either_seat_may_give_is_held_only_for_the_failed_seat(stand: Stand) -> None:
    stand.panel_health(B, FAULT)
    assert not view_of(stand, A).held  # A may give the first clue
    stand.handle(Press("B", KeyName.CLUE), 0.0)
    assert stand.state.phase is Phase.AWAITING_CLUE
    stand.handle(Press("A", KeyName.CLUE), 1.0)
    assert stand.state.phase is Phase.GUESSING and stand.state.giver is A


def test_an_undo_the_failed_seat_must_confirm_is_held(stand: Stand) -> None:
    """One seat's undo asks the partner to press undo too, on its screen: not while
    that screen fails. A request already made is dropped when it fails. The failed
    seat's own request (pressed blind) the working seat may still confirm."""
    b_gives_next(stand)
    stand.handle(Press("A", KeyName.UNDO), 3.0)
    assert stand.undo.request is not None
    stand.panel_health(B, FAULT)
    assert stand.undo.request is None  # B cannot see it is asked
    stand.handle(Press("A", KeyName.UNDO), 4.0)
    assert stand.undo.request is None and view_of(stand, A).undo_asked is None
    stand.handle(Press("B", KeyName.UNDO), 5.0)  # B asks: A sees it and may confirm
    assert view_of(stand, A).undo_asked is Who.PARTNER
    stand.handle(Press("A", KeyName.UNDO), 6.0)
    assert stand.state.phase is Phase.GUESSING  # B's pass taken back


def test_classic_holds_the_spymasters_clue_while_their_panel_fails(tmp_path: Path) -> None:
    stand = Stand(Store(tmp_path), settings=Settings(game="classic"))
    stand.boot()
    stand.panel_health(A, "seat A: BUSY stuck")  # seat A faces the spymasters
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    assert stand.state.phase is ClassicPhase.AWAITING_CLUE
    assert not stand.choosing.numbering  # not even its number: the spymasters cannot see it
    stand.panel_health(A, None)
    give_clue(stand, "A", 1.0)
    assert stand.state.phase is ClassicPhase.GUESSING


# ----- end to end: the service, the real driver, emulated panels ---------------------------

gpiozero = pytest.importorskip("gpiozero", reason="gpiozero is needed for emulated panels")


def test_an_unplugged_panel_holds_the_game_until_it_is_plugged_back(tmp_path: Path) -> None:
    """Seat B's 2.7" unplugged: the service finds it, seat A's panel shows the held
    screen (which panel, what to check, the last input), B's clue is not taken;
    plugged back, B's panel shows the game again by itself and B's clue is taken."""
    from keystand.drivers import factory
    from keystand.drivers.display import waveshare
    from keystand.service import Service

    try:
        waveshare.vendor_file("epd2in7_V2")
    except waveshare.VendorMissing as missing:
        pytest.skip(str(missing))
    pins = factory.emulated_pins()
    wiring = {
        A: {"rst": 17, "dc": 25, "busy": 24, "pwr": 18, "spi_device": 0},
        B: {"rst": 5, "dc": 6, "busy": 13, "pwr": 26, "spi_device": 1},
    }
    panels, hardware = {}, {}
    for seat in Seat:
        panels[seat], hardware[seat] = factory.make_emulated_panel(
            "waveshare",
            "epd2in7_V2",
            rotation=90,
            seat=seat.value,
            pin_factory=pins,
            speed=0,
            fault="unplugged" if seat is B else None,
            busy_timeout=2.0,
            rise_timeout=0.1,
            record=False,
            wiring=wiring[seat],
        )
    stand = Stand(Store(tmp_path / "state"), new_card=lambda: generate(3))
    stand.boot()
    service = Service(stand, panels, render=screens.render, blank=screens.blank, idle_sleep=3600)
    for worker in service.workers.values():
        worker.retry = (0.05, 0.2)  # the test need not wait the stand's whole pause
    service.start()
    card = stand.state.card

    def settled(check, timeout: float = 60.0) -> bool:
        """`check` holds once the loop has handled everything submitted before."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done: list[bool] = []
            service.submit_then(lambda done=done: done.append(check()))
            while not done and time.monotonic() < deadline:
                time.sleep(0.01)
            if done and done[0]:
                return True
        return False

    try:
        for event in (
            Press("A", KeyName.CLUE),
            touch(cells(card, A, Key.AGENT)[0]),
            Press("B", KeyName.PASS),
        ):
            service.submit(event)
        assert settled(lambda: B in stand.faults.panels and stand.state.clue_giver is B)
        service.submit(Press("B", KeyName.CLUE))
        service.submit(touch(cells(card, B, Key.AGENT)[1]))
        assert settled(lambda: stand.state.phase is Phase.AWAITING_CLUE)
        assert service.workers[A].wait_idle(30)
        shown = hardware[A].shown.rotate(90, expand=True).convert("1")
        want = screens.render(stand, A, panels[A]).convert("1")
        assert shown.tobytes() == want.tobytes()  # the controller shows the held screen
        assert view_of(stand, A).held
        hardware[B].fault = None  # plugged back in
        assert settled(lambda: B not in stand.faults.panels)
        assert service.workers[B].wait_idle(30)
        shown = hardware[B].shown.rotate(90, expand=True).convert("1")
        assert shown.tobytes() == screens.render(stand, B, panels[B]).convert("1").tobytes()
        service.submit(Press("B", KeyName.CLUE))
        assert settled(lambda: stand.state.phase is Phase.GUESSING and stand.state.giver is B)
    finally:
        service.shutdown(30)
        for seat in Seat:
            hardware[seat].close()
        pins.reset()
