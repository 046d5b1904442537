"""The refresh policy over every game, through the same code: the ghosting is
cleared in the quiet moment after a turn ends (never while a team guesses), and
nothing is cleared while the end is held back before the end screen. The game
says what its quiet moment is (`Game.quiet`) and when it is over (`playing`);
the service asks only that. Classic once got neither (the service compared its
state with Duet's phases)."""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand import games, screens
from keystand.drivers.display import Refresh, SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.panel_worker import PanelWorker, RefreshPolicy
from keystand.rules import Seat
from keystand.rules.classic import Classic
from keystand.service import Service
from keystand.stand import Settings, Stand
from keystand.store import Store

WAIT = 30.0


def good_cells(state: object) -> list[int]:
    """Words the guessers may touch and stay on turn, in either game."""
    if isinstance(state, Classic):
        return sorted(state.card.agents(state.team) - state.covered)
    giver = state.clue_giver
    return sorted(state.card.agents(giver) - state.agents)


def assassin(state: object) -> int:
    if isinstance(state, Classic):
        return next(i for i in range(25) if state.card.key(i).value == "X")
    side = state.card.a if state.clue_giver is Seat.A else state.card.b
    return next(i for i, k in enumerate(side) if k.value == "X")


def clue_giver(stand: Stand) -> str:
    """The seat whose clue key the game takes now (Duet's givers alternate)."""
    for seat in Seat:
        event = stand.game.key_event(stand.state, seat, "clue")
        if event is not None and not games.refused(stand.state.apply(event)[1]):
            return seat.value
    raise AssertionError("no seat may give a clue now")


def clue_presses(stand: Stand, seat: str) -> list[Press]:
    """The keys that give a clue for 2 as their labels say: classic's spymasters
    choose its number first (Clue…, +1, then Clue 2), a Duet clue is one press."""
    if stand.game.clue_numbers is None:
        return [Press(seat, KeyName.CLUE)]
    return [Press(seat, KeyName.CLUE), Press(seat, KeyName.CLUE), Press(seat, KeyName.MENU)]


@pytest.mark.parametrize("name", games.SHIPPED)
def test_every_game_gets_the_clearing_in_its_quiet_moment_and_the_hold(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[tuple[bool, bool]] = []  # (pause, hold) of each frame given to seat A
    show = PanelWorker.show

    def spy(self: PanelWorker, image: object, **kw: object) -> None:
        if self.panel is panels[Seat.A]:
            said.append((bool(kw.get("pause")), bool(kw.get("hold"))))
        show(self, image, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(PanelWorker, "show", spy)
    cards = iter(range(9, 1000))
    stand = Stand(
        Store(tmp_path),
        settings=Settings(game=name),
        new_card=lambda: games.get(name).generate(next(cards)),
    )
    stand.boot()
    panels = {seat: SimPanel("epd2in7_V2", rotation=90, speed=0, keep=100) for seat in Seat}
    service = Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        policy=lambda: RefreshPolicy(max_partials=2),
        idle_sleep=3600,
    )
    service.start_workers()
    try:
        service.redraw()
        assert service.drain(WAIT)
        for press in clue_presses(stand, "A"):  # the clue (A gives it, in either game)
            service.step(press)
            assert service.drain(WAIT)
        for _ in range(2):  # two good guesses spend the budget: no clearing while guessing
            service.step(Touch(*divmod(good_cells(stand.state)[0], 5)))
            assert service.drain(WAIT)
        assert all(w.cleared == 0 for w in service.workers.values())
        service.step(Press("B", KeyName.PASS))  # the turn ends: the next clue is awaited
        assert service.drain(WAIT)
        for worker in service.workers.values():
            assert worker.cleared == 1
            assert [f.refresh for f in worker.panel.frames][-2:] == [
                Refresh.PARTIAL,  # the pass
                Refresh.FAST,  # the clearing, in the quiet moment
            ]
        for press in clue_presses(stand, clue_giver(stand)):  # the next clue, whoever gives it
            service.step(press)
            assert service.drain(WAIT)
        service.step(Touch(*divmod(assassin(stand.state), 5)))  # the game ends, held back
        assert service.drain(WAIT)
        assert not stand.game.playing(stand.state) and not stand.revealed
    finally:
        service.shutdown(WAIT)
    # Classic's spymasters choose the clue's number on seat A's screen: two frames
    # while the clue is still awaited (Clue…, +1), no quiet moment (their next
    # press comes at once: no clearing may make it wait).
    choosing = [(False, False)] * 2 if name == "classic" else []
    assert said == [
        (True, False),  # a new game: a clue is awaited
        *choosing,
        (False, False),  # the clue
        (False, False),  # a guess
        (False, False),  # a guess
        (True, False),  # the pass: quiet
        *choosing,
        (False, False),  # the next clue
        (False, True),  # the end, held back: no clearing before the end screen
    ]
