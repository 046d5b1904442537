"""Panel workers on simulated panels: both panels at once, newest frame wins,
the refresh policy, failures survived. Concurrency is shown with gates and
barriers, never with wall-clock limits."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from keystand.drivers.display import PanelError, Refresh, SimPanel
from keystand.panel_worker import PanelWorker, RefreshPolicy

WAIT = 10.0  # generous: only a broken worker ever reaches it


def frame(n: int, size: tuple[int, int] = (250, 122)) -> Image.Image:
    """A distinct picture for each n (a bar n pixels wide)."""
    im = Image.new("1", size, 1)
    ImageDraw.Draw(im).rectangle([0, 0, n, 10], fill=0)
    return im


def wait_until(pred, timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_both_panels_refresh_at_the_same_time() -> None:
    """Each panel's refresh waits until the other panel is refreshing too; drawn
    one after the other, the barrier would break."""
    barrier = threading.Barrier(2, timeout=WAIT)
    panels = [SimPanel("epd2in13_V4", rotation=90, wait=lambda s: barrier.wait()) for _ in range(2)]
    workers = [PanelWorker(p, name=s).start() for p, s in zip(panels, "AB", strict=True)]
    for w in workers:
        w.show(frame(5, (250, 122)), full=True)
    for w in workers:
        assert w.wait_idle(WAIT)
        w.stop(WAIT)
    assert not barrier.broken
    assert [p.counts[Refresh.FULL] for p in panels] == [1, 1]


def test_a_burst_during_a_refresh_ends_with_the_newest_frame_only() -> None:
    gate = threading.Event()
    panel = SimPanel("epd2in7_V2", wait=lambda s: gate.wait(WAIT), speed=1.0)
    worker = PanelWorker(panel, name="A").start()
    worker.show(frame(1, (176, 264)))
    assert wait_until(lambda: panel.busy)
    for n in range(2, 11):  # nine touches while the panel is refreshing
        worker.show(frame(n, (176, 264)))
    gate.set()
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert len(panel.frames) == 2  # the first, then only the newest
    assert panel.frames[-1].upright.tobytes() == frame(10, (176, 264)).tobytes()
    assert worker.dropped == 8
    assert not worker.busy  # nothing queued behind it


def test_show_never_blocks_on_a_busy_panel() -> None:
    gate = threading.Event()
    panel = SimPanel("epd2in9_V2", rotation=90, wait=lambda s: gate.wait(WAIT))
    worker = PanelWorker(panel, name="A").start()
    worker.show(frame(1, (296, 128)))
    assert wait_until(lambda: panel.busy)
    done = threading.Event()
    threading.Thread(target=lambda: (worker.show(frame(2, (296, 128))), done.set())).start()
    assert done.wait(WAIT)  # returned while the panel is still held busy
    assert panel.busy
    gate.set()
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)


def test_a_wanted_full_refresh_survives_being_replaced() -> None:
    gate = threading.Event()
    panel = SimPanel("epd4in2_V2", wait=lambda s: gate.wait(WAIT))
    worker = PanelWorker(panel, name="A").start()
    size = (400, 300)
    worker.show(frame(1, size))
    assert wait_until(lambda: panel.busy)
    worker.show(frame(2, size), full=True)  # the end screen ...
    worker.show(frame(3, size))  # ... replaced before it was drawn
    gate.set()
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert [f.refresh for f in panel.frames] == [Refresh.FULL, Refresh.FULL]


def test_policy_frames_stay_partial_and_the_clearing_waits_for_a_quiet_moment() -> None:
    policy = RefreshPolicy(max_partials=4, quiet_after=8.0)
    kinds = [policy.decide(full=False, asleep=False, first=i == 0) for i in range(8)]
    # Every frame after the first is partial, past the budget of 4 too (rule 4's
    # ceiling is 8): no frame that carries a result gets a flashing refresh.
    assert kinds == [Refresh.FULL] + [Refresh.PARTIAL] * 7
    assert policy.overrun == 3
    assert policy.clearing(idle_for=7.9, pause=False) is None  # not quiet long enough
    assert policy.clearing_in(7.9) == pytest.approx(0.1)
    assert policy.clearing(idle_for=8.0, pause=False) is Refresh.FAST
    assert policy.decide(full=False, asleep=False, first=False) is Refresh.PARTIAL
    # At the ceiling the frame itself clears (ghosting that deep is worse than a wait).
    assert policy.partials == policy.ceiling == 8
    assert policy.decide(full=False, asleep=False, first=False) is Refresh.FAST
    assert policy.partials == 0


def test_policy_clears_at_a_pause_once_half_the_budget_is_spent() -> None:
    policy = RefreshPolicy(max_partials=5)
    policy.decide(full=True, asleep=False, first=True)
    for _ in range(2):
        policy.decide(full=False, asleep=False, first=False)
    assert policy.clearing(idle_for=0.0, pause=True) is None  # 2 of 5: the next turn fits
    assert policy.clearing_in(0.0) is None
    policy.decide(full=False, asleep=False, first=False)
    assert policy.clearing(idle_for=0.0, pause=True) is Refresh.FAST  # 3 of 5
    # The game is over: the end screen's full refresh comes next, no clearing first.
    assert policy.clearing(idle_for=99.0, pause=True, hold=True) is None
    # ... and none by time either: a worker waiting `clearing_in` must find it due.
    for _ in range(3):
        policy.decide(full=False, asleep=False, first=False)
    assert policy.clearing_in(99.0, hold=True) is None
    assert policy.clearing_in(99.0) == 0.0
    assert policy.clearing(idle_for=99.0, pause=False) is Refresh.FAST
    policy.done(Refresh.FAST)
    assert policy.partials == 0 and policy.clearing(idle_for=99.0, pause=True) is None


def test_policy_full_refreshes_and_its_checks() -> None:
    policy = RefreshPolicy(max_partials=3)
    assert policy.decide(full=True, asleep=False, first=False) is Refresh.FULL
    assert RefreshPolicy(full_after_wake=True).decide(full=False, asleep=True, first=False) is (
        Refresh.FULL
    )
    no_partials = RefreshPolicy(max_partials=0)
    assert [no_partials.decide(full=False, asleep=False, first=False) for _ in range(3)] == [
        Refresh.FAST
    ] * 3
    with pytest.raises(ValueError, match="max_partials -1"):
        RefreshPolicy(max_partials=-1)
    with pytest.raises(ValueError, match="quiet_after 0"):
        RefreshPolicy(quiet_after=0)


def test_policy_draws_full_frames_fast_and_owes_the_full_one_to_a_quiet_moment() -> None:
    """Rule 5: on a panel whose fast waveform is quicker (the 2.7" V2, 4.2" V2),
    the boot frame, a new game and the end screen are drawn FAST and the FULL
    refresh follows at the next quiet moment, never while one is on its way."""
    policy = RefreshPolicy(max_partials=5, fast_full=True)
    assert policy.decide(full=False, asleep=False, first=True) is Refresh.FAST  # the boot frame
    assert policy.owed and policy.clearing(idle_for=0.0, pause=False) is None  # not quiet yet
    assert policy.clearing_in(2.0) == policy.quiet_after - 2.0
    assert policy.clearing(idle_for=0.0, pause=True, hold=True) is None  # a full one comes
    assert policy.clearing(idle_for=0.0, pause=True) is Refresh.FULL  # the clue is thought of
    policy.done(Refresh.FULL)
    assert not policy.owed and policy.clearing_in(99.0) is None
    assert policy.decide(full=True, asleep=False, first=False) is Refresh.FAST  # a new game
    policy.decide(full=False, asleep=False, first=False)  # a touch before the quiet moment
    assert policy.clearing(idle_for=policy.quiet_after, pause=False) is Refresh.FULL
    policy.done(Refresh.FAST)  # a clearing does not pay what is owed
    assert policy.owed
    # Without a quicker fast waveform (the 2.13" V4, 2.9" V2: the same length), as ever.
    plain = RefreshPolicy(max_partials=5)
    assert plain.decide(full=True, asleep=False, first=True) is Refresh.FULL
    assert not plain.owed and plain.clearing(idle_for=99.0, pause=True) is None


def test_a_worker_on_a_fast_panel_shows_the_boot_frame_fast_then_full() -> None:
    panel = SimPanel("epd2in7_V2", rotation=90, speed=0)
    policy = RefreshPolicy(max_partials=4, fast_full=True)
    worker = PanelWorker(panel, name="A", policy=policy).start()
    worker.show(frame(0, (264, 176)), pause=True)  # the boot frame; a clue is awaited
    assert wait_until(lambda: panel.counts.get(Refresh.FULL, 0) == 1)
    worker.stop(WAIT)
    assert [f.refresh for f in panel.frames] == [Refresh.FAST, Refresh.FULL]
    assert panel.frames[1].upright.tobytes() == frame(0, (264, 176)).tobytes()


def test_refresh_counts_of_a_sequence_are_deterministic() -> None:
    panel = SimPanel("epd2in13_V4", rotation=90, speed=0)
    worker = PanelWorker(panel, name="A", policy=RefreshPolicy(max_partials=4)).start()
    for n in range(12):
        worker.show(frame(n, (250, 122)), full=n == 0, pause=n in (3, 9))
        assert worker.wait_idle(WAIT)
    worker.show(frame(11, (250, 122)))  # the same picture again: no refresh
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    # Cleared at the pauses after frames 3 (3 partials) and 9 (6 partials); the
    # clearing redraws the picture already shown, so each frame is drawn once.
    assert panel.counts == {Refresh.FULL: 1, Refresh.FAST: 2, Refresh.PARTIAL: 11}
    assert [f.refresh for f in panel.frames][3:5] == [Refresh.PARTIAL, Refresh.FAST]
    assert panel.frames[4].upright.tobytes() == frame(3, (250, 122)).tobytes()
    assert worker.skipped == 1 and worker.cleared == 2


def test_a_quiet_panel_is_cleared_once_the_budget_is_spent() -> None:
    """Rule 3b on the worker's own clock: once the budget is spent, a panel with no
    new frame for `quiet_after` seconds is cleared, without a pause said."""
    now = [0.0]
    panel = SimPanel("epd2in9_V2", rotation=90, speed=0)
    policy = RefreshPolicy(max_partials=2, quiet_after=5.0)
    worker = PanelWorker(panel, name="A", policy=policy, clock=lambda: now[0]).start()
    for n in range(3):
        worker.show(frame(n, (296, 128)), full=n == 0)
        assert worker.wait_idle(WAIT)
    assert worker.cleared == 0
    now[0] = 5.0
    with worker._cond:  # wake the worker as its timed wait would
        worker._cond.notify_all()
    assert wait_until(lambda: worker.cleared == 1)
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert [f.refresh for f in panel.frames] == [
        Refresh.FULL,
        Refresh.PARTIAL,
        Refresh.PARTIAL,
        Refresh.FAST,
    ]


def test_a_failing_panel_is_retried_and_the_worker_lives_on() -> None:
    class Flaky(SimPanel):
        fails = 2

        def _display(self, frame, refresh):
            if self.fails:
                self.fails -= 1
                raise PanelError("BUSY stuck for 10 s: is the panel's cable in?")
            super()._display(frame, refresh)

    panel = Flaky("epd2in13_V4", rotation=90, speed=0)
    errors: list[Exception] = []
    worker = PanelWorker(
        panel, name="B", retry=(0.001, 0.01), on_error=lambda w, e: errors.append(e)
    ).start()
    worker.show(frame(1, (250, 122)))
    assert worker.wait_idle(WAIT)
    worker.show(frame(2, (250, 122)))
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert [str(e) for e in errors] == ["BUSY stuck for 10 s: is the panel's cable in?"] * 2
    assert [f.refresh for f in panel.frames] == [Refresh.FULL, Refresh.PARTIAL]


def test_an_idle_panel_is_put_to_sleep_and_woken_by_the_next_frame() -> None:
    panel = SimPanel("epd2in9_V2", rotation=90, speed=0)
    worker = PanelWorker(panel, name="A", idle_sleep=0.01).start()
    worker.show(frame(1, (296, 128)))
    assert wait_until(lambda: panel.sleeps == 1)
    worker.show(frame(2, (296, 128)))
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert [f.woke for f in panel.frames] == [True, True]


def test_a_frame_of_the_wrong_size_is_reported_not_fatal() -> None:
    panel = SimPanel("epd2in7_V2", speed=0)
    errors: list[Exception] = []
    worker = PanelWorker(
        panel, name="A", retry=(0.001, 0.001), on_error=lambda w, e: errors.append(e)
    )
    worker.start()
    worker.show(frame(1, (10, 10)))
    assert wait_until(lambda: len(errors) >= 1)
    worker.show(frame(1, (176, 264)))  # a good frame replaces the bad one
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)
    assert "image is 10x10, expected 176x264" in str(errors[0])
    assert panel.counts[Refresh.FULL] == 1


def test_putting_a_panel_to_sleep_never_blocks_show() -> None:
    """A slow sleep (a real panel waits for BUSY) runs outside the worker's lock."""
    entered, release = threading.Event(), threading.Event()

    class SlowSleep(SimPanel):
        def _sleep(self) -> None:
            entered.set()
            release.wait(WAIT)
            super()._sleep()

    panel = SlowSleep("epd2in9_V2", rotation=90, speed=0)
    worker = PanelWorker(panel, name="A", idle_sleep=0.01).start()
    worker.show(frame(1, (296, 128)))
    assert entered.wait(WAIT)  # the worker is inside sleep()
    done = threading.Event()
    threading.Thread(target=lambda: (worker.show(frame(2, (296, 128))), done.set())).start()
    assert done.wait(WAIT)  # show() returned while sleep() is still running
    release.set()
    assert worker.wait_idle(WAIT)
    worker.stop(WAIT)


def test_a_stuck_panel_does_not_hang_stop_or_wait_idle() -> None:
    gate = threading.Event()
    panel = SimPanel("epd2in7_V2", wait=lambda s: gate.wait(WAIT))
    worker = PanelWorker(panel, name="A").start()
    worker.show(frame(1, (176, 264)))
    assert wait_until(lambda: panel.busy)
    worker.show(frame(2, (176, 264)))
    assert worker.stop(0.05) is False  # still inside the refresh: reported, not waited for
    assert worker.alive
    gate.set()
    assert wait_until(lambda: not worker.alive)
    assert worker.wait_idle(None) is False  # stopped with a frame undrawn: no hang


def test_retries_keep_their_pause_while_frames_keep_coming() -> None:
    attempts: list[float] = []

    class Broken(SimPanel):
        def _display(self, frame, refresh):
            attempts.append(time.monotonic())
            raise PanelError("no answer: is the cable in?")

    panel = Broken("epd2in7_V2", speed=0)
    worker = PanelWorker(panel, name="A", retry=(0.2, 0.2)).start()
    worker.show(frame(1, (176, 264)))
    assert wait_until(lambda: len(attempts) == 1)
    for n in range(50):  # a burst of touches during the pause
        worker.show(frame(n + 2, (176, 264)))
    worker.stop(WAIT)
    # One attempt per pause at most: the burst did not cut the pause short.
    assert len(attempts) <= 2


def test_the_simulated_panel_writes_what_it_shows_as_a_png(tmp_path) -> None:
    panel = SimPanel("epd2in13_V4", rotation=90, speed=0)
    blank = panel.save_png(tmp_path / "before.png")
    with Image.open(blank) as im:
        assert im.size == (250, 122)
        assert im.convert("L").getextrema() == (255, 255)  # white before the first frame
    panel.display(frame(7, (250, 122)))
    with Image.open(panel.save_png(tmp_path / "after.png")) as im:
        assert im.convert("1").tobytes() == frame(7, (250, 122)).tobytes()
    assert panel.frames[-1].upright.size == (250, 122)  # kept upright, as the seat reads it


def test_the_simulated_panel_keeps_a_bounded_history() -> None:
    """An evening of frames must not grow the service: the newest `keep` are kept,
    the counts cover them all."""
    panel = SimPanel("epd2in7_V2", rotation=90, speed=0)
    for n in range(100):
        panel.display(frame(n, panel.size), Refresh.PARTIAL)
    assert len(panel.frames) == panel.keep == 32
    assert panel.counts[Refresh.PARTIAL] == panel.frames_shown == 100
    assert panel.frames[-1].upright.tobytes() == frame(99, panel.size).convert("1").tobytes()


def test_a_simulated_panel_starts_with_what_it_last_showed(tmp_path: Path) -> None:
    """E-ink keeps its picture without power: after a restart the simulated panel
    shows its last frame, not a blank one (and no refresh is counted for it)."""
    kept = tmp_path / "A.png"
    first = SimPanel("epd2in7_V2", rotation=90, speed=0, remember=kept)
    assert first.shown is None
    first.display(frame(7, first.size), Refresh.FULL)
    again = SimPanel("epd2in7_V2", rotation=90, speed=0, remember=kept)
    assert again.shown is not None
    assert again.shown.tobytes() == frame(7, first.size).convert("1").tobytes()
    assert again.frames_shown == 0 and again.frames == []
    kept.write_bytes(b"not a png")
    assert SimPanel("epd2in7_V2", rotation=90, remember=kept).shown is None
