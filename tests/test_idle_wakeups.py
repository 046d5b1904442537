"""An idle stand sleeps (issue 33): the service loop waits for an input, not a
tick, once nothing time does can change the stand (`Stand.still`), and wakes
for systemd's watchdog only when a ping is due. Counts and states, no timing:
each clock here is a fake one. (The keys' driver keeps no thread at rest:
tests/test_keys.py; the CPU an idle stand costs is a bench figure, BENCHMARKS.md.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.games.classic.settings import TIMER
from keystand.notify import Heartbeat, Notifier
from keystand.rules import Card, Key, Seat, generate
from keystand.service import Service
from keystand.stand import Settings, Stand
from keystand.stand.timer import IDLE_TIMEOUTS
from keystand.store import Store


def dealt(root: Path, settings: Settings | None = None) -> Stand:
    stand = Stand(Store(root), settings=settings or Settings(), new_card=lambda: generate(5))
    stand.boot()
    return stand


def agent(card: Card, judge: Seat) -> Touch:
    i = next(i for i in range(25) if card.side(judge)[i] is Key.AGENT)
    return Touch(*divmod(i, 5))


def settles(stand: Stand, now: float) -> None:
    """Still, and a tick however late changes nothing: the loop may sleep."""
    assert stand.still()
    version = stand.version
    assert not stand.tick(now + 86_400.0)
    assert stand.version == version and stand.still()


def test_a_dealt_stand_is_still_and_no_tick_changes_it(tmp_path: Path) -> None:
    stand = dealt(tmp_path)
    settles(stand, 0.0)


def test_an_undo_request_keeps_the_stand_ticking_until_it_lapses(tmp_path: Path) -> None:
    stand = dealt(tmp_path)
    stand.handle(Press("A", KeyName.CLUE), 0.0)
    stand.handle(agent(stand.state.card, Seat.A), 1.0)
    stand.handle(Press("B", KeyName.UNDO), 2.0)
    assert not stand.still()
    assert not stand.tick(2.5)  # within the window: still asked
    assert not stand.still()
    assert stand.tick(2.0 + stand.settings.undo_window + 0.1)  # it lapses: redrawn
    settles(stand, 100.0)


def test_a_refusal_keeps_the_stand_ticking_until_the_outcome_is_back(tmp_path: Path) -> None:
    stand = dealt(tmp_path)
    stand.handle(agent(stand.state.card, Seat.A), 0.0)  # a touch before any clue: refused
    assert stand.refusal.at is not None and not stand.still()
    assert stand.tick(100.0)
    settles(stand, 100.0)


def test_a_timed_classic_stand_ticks_until_the_empty_table_settles(tmp_path: Path) -> None:
    """The turn timer runs by the loop's ticks; a table left alone (a timeout a
    team) waits, drawn full, for the next input: still, so its loop sleeps too."""
    stand = dealt(tmp_path, Settings(game="classic").choosing(TIMER, 60))
    assert not stand.still()  # the first tick starts the clock
    now = 0.0
    for _ in range(IDLE_TIMEOUTS + 1):
        stand.tick(now)
        if stand.still():
            break
        assert stand.timer.left is not None
        now += 60.0
    assert stand.timer.idle_timeouts == IDLE_TIMEOUTS
    settles(stand, now)
    stand.handle(Press("A", KeyName.CLUE), now + 5.0)  # somebody is back: it runs again
    assert not stand.still()


def test_settings_the_disk_refused_keep_it_ticking(tmp_path: Path) -> None:
    stand = dealt(tmp_path)
    stand.saved.unsaved.seats.add(Seat.A)  # as a save the disk refused leaves it
    assert not stand.still()


def _service(stand: Stand, heartbeat: Heartbeat | None = None) -> Service:
    panels = {seat: SimPanel("epd2in13_V4", rotation=90, speed=0) for seat in Seat}
    return Service(
        stand, panels, render=screens.render, blank=screens.blank, tick=0.5, heartbeat=heartbeat
    )


def test_the_loop_of_a_still_stand_waits_for_an_input_and_otherwise_ticks(
    tmp_path: Path,
) -> None:
    stand = dealt(tmp_path)
    service = _service(stand)
    assert service.wait() is None  # no watchdog: only an input wakes it
    stand.handle(agent(stand.state.card, Seat.A), 0.0)  # a refusal on the screens
    assert service.wait() == 0.5
    stand.tick(100.0)
    assert service.wait() is None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("interval", [15.0, 0.2])
def test_under_a_watchdog_a_still_stand_s_loop_wakes_when_a_ping_is_due(
    tmp_path: Path, interval: float
) -> None:
    clock = Clock()
    beat = Heartbeat(Notifier(None), interval, clock=clock)
    service = _service(dealt(tmp_path), beat)
    assert service.wait() == 0.0  # never pinged: at once
    beat()
    assert service.wait() == pytest.approx(interval)
    clock.now += interval / 3
    assert service.wait() == pytest.approx(interval * 2 / 3)
    clock.now += interval
    assert service.wait() == 0.0  # overdue: at once


def test_every_shipped_build_with_an_mpr121_waits_on_its_irq() -> None:
    """Polled, an MPR121 is read 100 times a second for ever (the 4.26" build had
    no `irq` and its idle stand cost 15% of a Zero 2 W core in the bench)."""
    from keystand.profile import load, shipped

    grids = [
        (name, settings)
        for name in shipped()
        for kind, settings in load(name).input.wired()
        if kind.name == "mpr121"
    ]
    assert len(grids) >= 2
    assert [name for name, s in grids if s.irq < 0] == []
