"""The refresh policy on the virtual clock: at table pace no touch's result waits
behind a flashing refresh, the clearing still comes within the ghosting budget,
and without quiet moments the same schedule does put touches behind one."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from keystand.drivers.display import Refresh, SimPanel
from keystand.panel_clock import Handover, naive, simulate
from keystand.panel_worker import PanelWorker, RefreshPolicy

# The 2.7" V2's busy seconds as bench/ measures them (timing model, the vendor's
# reset delays, the wire): the slowest clearing of the four models.
COST = {Refresh.FULL: 6.425, Refresh.FAST: 1.925, Refresh.PARTIAL: 0.714}


def table_pace(seed: int, turns: int = 60, *, pauses: bool = True) -> list[Handover]:
    """A game's frames for one panel: the new game (full), then turns of a clue after
    8-30 s of thinking and 1-9 touches 1.5-4 s apart; the frame that ends a turn
    says a clue is awaited (a pause)."""
    rnd = random.Random(seed)
    frames = [Handover(0.0, full=True, pause=pauses)]
    t = 0.0
    for _ in range(turns):
        t += rnd.uniform(8, 30)
        frames.append(Handover(t))  # the clue
        touches = rnd.randint(1, 9)
        for n in range(touches):
            t += rnd.uniform(1.5, 4)
            frames.append(Handover(t, touch=True, pause=pauses and n == touches - 1))
    return frames


@pytest.mark.parametrize("seed", range(5))
def test_at_table_pace_no_touch_waits_behind_a_clearing(seed: int) -> None:
    frames = table_pace(seed)
    policy = RefreshPolicy(max_partials=10)
    timeline = simulate(frames, policy, COST)
    touches = [i for i, f in enumerate(frames) if f.touch]
    assert all(timeline.behind[i] == [] for i in touches)
    # Each touch's result is one partial refresh away: the panel's floor.
    assert max(timeline.waits(frames)[i] for i in touches) == pytest.approx(COST[Refresh.PARTIAL])
    counts = timeline.counts()
    assert counts["full"] == 1  # the new game only
    assert counts["clearing"] >= counts["partial"] // policy.ceiling  # the ghosting is cleared
    assert counts["clearing"] <= counts["partial"] // 5  # once per half budget at most
    runs, run = [], 0
    for drawn in timeline.drawn:
        run = run + 1 if drawn.kind is Refresh.PARTIAL else 0
        runs.append(run)
    assert max(runs) <= policy.ceiling


def test_without_quiet_moments_touches_do_wait() -> None:
    """The control: with no pauses said and a quiet time longer than any gap, the
    ceiling rule clears in front of a touch, and the check above would fail."""
    frames = table_pace(1, pauses=False)
    timeline = simulate(frames, RefreshPolicy(max_partials=10, quiet_after=1000.0), COST)
    assert sum(bool(timeline.behind[i]) for i, f in enumerate(frames) if f.touch) > 0


def test_the_newest_frame_wins_and_a_wanted_full_is_kept() -> None:
    frames = [
        Handover(0.0, full=True),
        Handover(1.0, full=True),  # the end screen ...
        Handover(1.1),  # ... replaced while the first full refresh runs
        Handover(20.0),
    ]
    timeline = simulate(frames, RefreshPolicy(), COST)
    assert [(d.kind, d.frame) for d in timeline.drawn] == [
        (Refresh.FULL, 0),
        (Refresh.FULL, 2),
        (Refresh.PARTIAL, 3),
    ]
    assert timeline.visible[1] == timeline.visible[2] == pytest.approx(2 * COST[Refresh.FULL])
    assert [d.frame for d in timeline.behind[1]] == [0, 2]  # the first, then its own
    assert timeline.behind[3] == []


def test_the_naive_way_draws_every_change_on_both_panels_in_turn() -> None:
    frames = [Handover(0.0), Handover(1.0, touch=True)]
    timeline = naive(frames, COST)
    assert timeline.counts()["full"] == 4
    assert timeline.visible == pytest.approx([2 * COST[Refresh.FULL], 4 * COST[Refresh.FULL]])


def test_the_virtual_clock_decides_as_the_worker_thread_does() -> None:
    """The same frames through the real worker (each drawn before the next, as at
    table pace) and through the virtual clock: the same refreshes, in order."""
    frames = table_pace(2, turns=8)
    panel = SimPanel("epd2in7_V2", rotation=90, speed=0, keep=1000)
    worker = PanelWorker(panel, name="A", policy=RefreshPolicy(max_partials=4)).start()
    for n, handover in enumerate(frames):
        image = Image.new("1", panel.size, 1)
        ImageDraw.Draw(image).rectangle([0, 0, n, 10], fill=0)
        worker.show(image, full=handover.full, pause=handover.pause)
        assert worker.wait_idle(10.0)  # a pause's clearing included
    worker.stop(10.0)
    timeline = simulate(frames, RefreshPolicy(max_partials=4), COST)
    assert [f.refresh for f in panel.frames] == [d.kind for d in timeline.drawn]
    assert worker.cleared == timeline.counts()["clearing"] > 0


def test_no_clearing_between_the_end_of_a_game_and_its_end_screen() -> None:
    """Past the budget and quiet for 10 s, but the game is over: the end screen's
    full refresh starts at once, with no clearing before it."""
    frames = [Handover(0.0, full=True)]
    frames += [Handover(7.0 + 2 * n, touch=True) for n in range(12)]  # 12 partials
    frames.append(Handover(30.0, touch=True, hold=True))  # the touch that ends the game
    frames.append(Handover(40.0, full=True, hold=True))  # the end screen, key revealed
    timeline = simulate(frames, RefreshPolicy(max_partials=10, quiet_after=8.0), COST)
    assert timeline.counts()["clearing"] == 0
    assert timeline.visible[-1] == pytest.approx(40.0 + COST[Refresh.FULL])
    assert all(not timeline.behind[i] for i, f in enumerate(frames) if f.touch)
    unheld = [Handover(f.at, full=f.full, touch=f.touch) for f in frames]
    control = simulate(unheld, RefreshPolicy(max_partials=10, quiet_after=8.0), COST)
    assert control.counts()["clearing"] == 1  # without `hold`, a clearing lands first
    assert control.visible[-1] > 40.0 + COST[Refresh.FULL]
