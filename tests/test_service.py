"""The service on simulated panels: random inputs and restarts never crash it, and
after every input both screens show exactly what the state says."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from keystand import screens
from keystand.drivers.display import Refresh, SimPanel
from keystand.drivers.inputs import Act, KeyName, Press, Touch
from keystand.panel_worker import RefreshPolicy
from keystand.rules import Seat, generate
from keystand.rules.classic import Classic
from keystand.rules.duet import Status
from keystand.service import Service
from keystand.stand import Item, Stand
from keystand.store import Store

WAIT = 30.0

touches = st.builds(Touch, st.integers(0, 4), st.integers(0, 4))
presses = st.builds(Press, st.sampled_from("AB"), st.sampled_from(list(KeyName)), st.booleans())
acts = st.one_of(
    st.builds(Act, st.sampled_from(["clue", "pass"]), st.sampled_from("AB")),
    st.sampled_from([Act("undo"), Act("penalty")]),
)


def make_service(root: Path, seed: int) -> Service:
    cards = iter(range(seed, seed + 1000))
    stand = Stand(Store(root), new_card=lambda: generate(next(cards)))
    stand.boot()
    panels = {
        Seat.A: SimPanel("epd2in13_V4", rotation=90, speed=0),
        Seat.B: SimPanel("epd4in2_V2", rotation=0, speed=0),
    }
    service = Service(stand, panels, render=screens.render, blank=screens.blank, idle_sleep=3600)
    service.start_workers()
    service.redraw()
    return service


class StandMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)
        self.service = make_service(self.root, 0)
        self.restarts = 0

    def teardown(self) -> None:
        self.service.shutdown(WAIT)
        self.dir.cleanup()

    @rule(event=st.one_of(touches, presses, acts))
    def input(self, event) -> None:
        self.service.step(event)

    @rule(agent=st.integers(0, 14))
    def good_guess(self, agent: int) -> None:
        """A touch likely to be an agent for the current guesser (so games progress)."""
        state = self.service.stand.state
        # The menu can switch the game to classic: each game has its own agents.
        if isinstance(state, Classic):
            cells = sorted(state.card.agents(state.team) - state.covered)
        else:
            guesser = state.guesser or Seat.B
            cells = sorted(state.card.agents(guesser.partner) - state.agents)
        if cells:
            self.service.step(Touch(*divmod(cells[agent % len(cells)], 5)))

    @precondition(lambda self: self.restarts < 3)
    @rule()
    def power_cut_and_restart(self) -> None:
        before = self.service.stand.state
        self.service.drain(WAIT)
        for w in self.service.workers.values():
            w.stop(WAIT)
        self.service.stand.store.close()
        self.restarts += 1
        self.service = make_service(self.root, 1000 * self.restarts)
        assert self.service.stand.state == before

    @invariant()
    def never_died(self) -> None:
        assert self.service.stats.failed_inputs == 0, self.service.stats.last_error

    @invariant()
    def screens_match_the_state(self) -> None:
        assert self.service.drain(WAIT)
        stand = self.service.stand
        for seat, worker in self.service.workers.items():
            panel = worker.panel
            want = screens.render(stand, seat, panel).convert("1")
            assert panel.shown is not None
            assert panel.shown.tobytes() == want.tobytes(), f"seat {seat.value} is stale"


TestStand = StandMachine.TestCase
TestStand.settings = settings(max_examples=25, stateful_step_count=40, deadline=None)


def test_every_input_kind_redraws_both_screens_once(tmp_path: Path) -> None:
    service = make_service(tmp_path, 5)
    try:
        assert service.drain(WAIT)
        before = {s: sum(w.panel.counts.values()) for s, w in service.workers.items()}
        service.step(Act("clue", "A"))
        assert service.drain(WAIT)
        after = {s: sum(w.panel.counts.values()) for s, w in service.workers.items()}
        assert {s: after[s] - before[s] for s in after} == {Seat.A: 1, Seat.B: 1}
    finally:
        service.shutdown(WAIT)


def test_an_input_that_raises_is_dropped_and_the_loop_goes_on(tmp_path: Path) -> None:
    service = make_service(tmp_path, 6)
    try:
        state = service.stand.state
        service.step(object())  # not an input any driver emits: the stand raises
        assert service.stats.failed_inputs == 1
        assert "not an input" in service.stats.last_error
        assert service.stand.state == state
        service.step(Act("clue", "B"))
        assert service.stand.state.clue_giver is Seat.B
    finally:
        service.shutdown(WAIT)


def test_shutdown_leaves_a_neutral_picture(tmp_path: Path) -> None:
    service = make_service(tmp_path, 7)
    service.step(Act("clue", "A"))
    service.shutdown(WAIT)
    for seat, worker in service.workers.items():
        blank = screens.blank(service.stand, seat, worker.panel).convert("1")
        assert worker.panel.shown.tobytes() == blank.tobytes()
        assert worker.panel.asleep


def test_the_end_screen_and_a_new_game_get_full_refreshes(tmp_path: Path) -> None:
    service = make_service(tmp_path, 8)
    try:
        stand = service.stand
        card = stand.state.card
        assassin = min(i for i, k in enumerate(card.a) if k.value == "X")
        assert service.drain(WAIT)
        service.step(Act("clue", "A"))
        assert service.drain(WAIT)  # each frame drawn before the next (none coalesced)
        service.step(Touch(*divmod(assassin, 5)))
        assert service.drain(WAIT)
        assert stand.state.status is Status.LOST
        assert not stand.revealed  # the key held back: undo is still possible
        assert stand.tick(service.clock() + stand.settings.reveal_delay + 1)
        service.redraw()
        assert service.drain(WAIT)
        for worker in service.workers.values():
            assert [f.refresh for f in worker.panel.frames] == [
                Refresh.FULL,  # the new game
                Refresh.PARTIAL,  # the clue
                Refresh.PARTIAL,  # lost: the key held back a few seconds
                Refresh.FULL,  # the end screen with both sides
            ]
        service.step(Press("B", KeyName.CLUE))  # the next game
        assert service.drain(WAIT)
        for worker in service.workers.values():
            assert worker.panel.frames[-1].refresh is Refresh.FULL
    finally:
        service.shutdown(WAIT)


def test_the_ghosting_is_cleared_when_a_turn_ends_not_while_guessing(tmp_path: Path) -> None:
    """With a budget of 2, the clue and two good guesses spend it; the clearing
    waits for the pass that ends the turn (a clue is then awaited), and every
    touch's own frame is a partial refresh."""
    cards = iter(range(9, 1000))
    stand = Stand(Store(tmp_path), new_card=lambda: generate(next(cards)))
    stand.boot()
    panels = {seat: SimPanel("epd2in7_V2", rotation=90, speed=0, keep=100) for seat in Seat}
    service = Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        policy=lambda panel: RefreshPolicy(max_partials=2),
        idle_sleep=3600,
    )
    service.start_workers()
    try:
        service.redraw()
        assert service.drain(WAIT)
        agents = sorted(stand.state.card.agents(Seat.A))
        for event in (Act("clue", "A"), Touch(*divmod(agents[0], 5))):
            service.step(event)
            assert service.drain(WAIT)
        service.step(Touch(*divmod(agents[1], 5)))  # the budget is spent: no clearing yet
        assert service.drain(WAIT)
        assert all(w.cleared == 0 for w in service.workers.values())
        service.step(Act("pass", "B"))  # the turn ends: a clue is awaited
        assert service.drain(WAIT)
        for worker in service.workers.values():
            assert worker.cleared == 1
            assert [f.refresh for f in worker.panel.frames] == [
                Refresh.FULL,  # the new game
                Refresh.PARTIAL,  # the clue
                Refresh.PARTIAL,  # a touch
                Refresh.PARTIAL,  # a touch, the budget spent
                Refresh.PARTIAL,  # the pass
                Refresh.FAST,  # the clearing, in the pause
            ]
    finally:
        service.shutdown(WAIT)


def test_the_machine_guesses_in_classic_after_the_menu_switched_game() -> None:
    """The menu can switch the game to classic (a seed found it): good_guess then
    touches one of the team on turn's words, not Duet's guesser."""
    machine = StandMachine()
    try:
        machine.input(Press("A", KeyName.MENU, long=True))
        menu = machine.service.stand.menus[Seat.A]
        while menu.item is not Item.GAME:
            machine.input(Press("A", KeyName.PASS))
        while not isinstance(machine.service.stand.state, Classic):
            machine.input(Press("A", KeyName.MENU))  # choose (and confirm)
        machine.input(Act("clue", "A"))
        state = machine.service.stand.state
        machine.good_guess(0)
        after = machine.service.stand.state
        assert isinstance(after, Classic)
        assert after.covered - state.covered <= state.card.agents(state.team)
        assert len(after.covered) == len(state.covered) + 1
        machine.screens_match_the_state()
    finally:
        machine.teardown()
