"""One worker thread per panel: the newest frame wins, the loop never waits on a panel.

The service hands each worker the frame its seat should show now (`show`), and
returns at once. A worker busy refreshing keeps only the newest frame handed to
it meanwhile and draws that one when the panel is free, so a burst of touches
during a 6-second refresh ends in one more refresh, not six.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, ImageChops

from keystand.drivers.display import Panel, Refresh

log = logging.getLogger(__name__)

NEUTRAL = "neutral"  # the tag of the neutral picture a worker is sealed with


@dataclass
class RefreshPolicy:
    """Which refresh a frame gets, and when the ghosting is cleared.

    The rules (docs/design.md "Refresh policy"; `bench/` measures them):

    1. A frame the caller marks full (a new game as soon as it is dealt, the end
       screen), the first frame and the first after a wake (with
       `full_after_wake`) get a FULL refresh, started as soon as the panel is
       free: no clearing is ever queued before it, and it resets the count.
    2. Every other frame is a PARTIAL refresh, however many partials came
       before it (up to rule 4's ceiling): a frame that carries a result (a
       touch, a clue) never waits for a flashing refresh.
    3. The ghosting is cleared by redrawing the picture already on the glass
       with the FAST waveform (the 2.7" V2's and 4.2" V2's fast mode, 1.5 s
       instead of 6 s and 4 s; the same length as FULL on the 2.13" and 2.9"),
       only while the panel is idle and the moment is quiet for its seat:
       a. at a pause: the frame just drawn said the next input is slow (a turn
          has ended and a clue is being thought of), and at least half the
          budget (`max_partials`) is spent, so the next turn's changes fit in
          what is left;
       b. once the whole budget is spent, after `quiet_after` seconds with no
          new frame (a turn's touches come a few seconds apart at most).
       A frame that arrives while the panel is clearing waits for it; rule a
       starts the clearing at the start of the clue-giver's thinking, so at
       table pace no touch's result does. No clearing while a full refresh is
       on its way (`hold`: the game is over, the end screen comes next).
    4. Past the budget, frames stay partial until a quiet moment; only a frame
       at twice the budget (`ceiling`) gets the clearing refresh itself, since
       ghosting that deep is worse than one wait. `max_partials = 0` means no
       partials at all: every change is a fast refresh.
    5. On a panel whose FAST waveform is quicker than its FULL one (`fast_full`:
       the 2.7" V2, 1.5 s against 6 s; the 4.2" V2, 1.5 s against 4 s), rule 1's
       frames (the boot frame, a new game, the end screen) get FAST, readable
       sooner, and the FULL refresh they would have had is owed: it redraws the
       picture on the glass at the next quiet moment (a pause, or `quiet_after`
       seconds with no new frame), as rule 3 clears, and never while a full
       refresh is on its way (`hold`).
    """

    max_partials: int = 10
    full_after_wake: bool = False
    quiet_after: float = 8.0
    fast_full: bool = False
    partials: int = field(default=0, init=False)
    owed: bool = field(default=False, init=False)  # rule 5's FULL, not yet drawn
    overrun: int = field(default=0, init=False)  # partials drawn past the budget, all told

    def __post_init__(self) -> None:
        if self.max_partials < 0:
            raise ValueError(f"max_partials {self.max_partials}: expected 0 or more")
        if not self.quiet_after > 0:
            raise ValueError(f"quiet_after {self.quiet_after}: expected more than 0 seconds")

    @property
    def ceiling(self) -> int:
        """The partials after which a new frame itself gets the clearing refresh."""
        return 2 * self.max_partials

    def decide(self, *, full: bool, asleep: bool, first: bool) -> Refresh:
        """The refresh for a new frame (rules 1, 2 and 4); counts it."""
        if full or first or (asleep and self.full_after_wake):
            kind = Refresh.FAST if self.fast_full else Refresh.FULL
            self.owed = self.fast_full
        elif self.partials >= self.ceiling:
            kind = Refresh.FAST
        else:
            kind = Refresh.PARTIAL
        self.done(kind)
        return kind

    def clearing(self, *, idle_for: float, pause: bool, hold: bool = False) -> Refresh | None:
        """The clearing refresh to do now on an idle panel (rules 3 and 5), or None."""
        if hold:
            return None
        if self.owed and (pause or idle_for >= self.quiet_after):
            return Refresh.FULL
        if self.partials == 0:
            return None
        if pause and self.partials >= -(-self.max_partials // 2):
            return Refresh.FAST
        if self.partials >= self.max_partials and idle_for >= self.quiet_after:
            return Refresh.FAST
        return None

    def clearing_in(self, idle_for: float, *, hold: bool = False) -> float | None:
        """Seconds of more idleness after which rule 3b clears or rule 5's FULL is
        drawn (None: neither will); consistent with `clearing`, so a caller that
        waits this long finds it due."""
        if hold:
            return None
        if not self.owed and (self.partials == 0 or self.partials < self.max_partials):
            return None
        return max(0.0, self.quiet_after - idle_for)

    def done(self, kind: Refresh) -> None:
        """Count a refresh that was drawn (a new frame or a clearing)."""
        if kind is Refresh.PARTIAL:
            self.partials += 1
            if self.partials > self.max_partials:
                self.overrun += 1
        else:
            self.partials = 0
        if kind is Refresh.FULL:
            self.owed = False


@dataclass
class _Pending:
    image: Image.Image
    full: bool
    tag: object = None
    pause: bool = False  # a quiet moment follows this frame (the policy's rule 3a)
    hold: bool = False  # a full refresh follows soon: no clearing
    clear: Refresh | None = None  # a clearing refresh of the picture already shown


def already_shows(shown: Image.Image | None, image: Image.Image) -> bool:
    """Whether a panel showing `shown` (1-bit) already shows `image`: the frame a
    worker skips. Compared pixel by pixel in Pillow, not through the frame's bytes."""
    return (
        shown is not None
        and image.size == shown.size
        and ImageChops.difference(image.convert("1"), shown).getbbox() is None
    )


class PanelWorker:
    """Draws frames on one panel from its own thread.

    `on_error(worker, exc)` is told when the panel fails (stuck BUSY, unplugged);
    the worker keeps the frame and tries again after a growing pause, and the
    first frame after a failure is a full refresh (the panel's state is unknown).
    """

    def __init__(
        self,
        panel: Panel,
        *,
        name: str,
        policy: RefreshPolicy | None = None,
        idle_sleep: float = 120.0,
        retry: tuple[float, float] = (1.0, 30.0),
        on_error: Callable[[PanelWorker, Exception], None] | None = None,
        on_shown: Callable[[PanelWorker, Image.Image, Refresh, object], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.panel = panel
        self.name = name
        self.policy = policy or RefreshPolicy()
        self.idle_sleep = idle_sleep
        self.retry = retry
        self.on_error = on_error
        self.on_shown = on_shown
        self.failing = False  # the last attempt failed (retrying with a growing pause)
        self._failed_at: float | None = None  # when the current run of failures began
        self.dropped = 0  # frames replaced by a newer one before they were drawn
        self.skipped = 0  # frames identical to what the panel already shows
        self.cleared = 0  # clearing refreshes done in quiet moments
        self._clock = clock
        self._last: _Pending | None = None  # the frame on the glass (for a clearing)
        self._idle_since = clock()
        self._slept = False
        self._cond = threading.Condition()
        self._pending: _Pending | None = None
        self._shown: Image.Image | None = None
        self._busy = False
        self._stopping = False
        self._sealed = False
        self._exited = False
        self._thread = threading.Thread(target=self._run, name=f"panel-{name}", daemon=True)

    def start(self) -> PanelWorker:
        self._thread.start()
        return self

    def show(
        self,
        image: Image.Image,
        *,
        full: bool = False,
        tag: object = None,
        pause: bool = False,
        hold: bool = False,
    ) -> None:
        """Queue `image` to be drawn; replaces any frame not yet drawn. Never blocks
        on the panel. A wanted full refresh is kept even if the frame is replaced.
        `tag` comes back with the frame in `on_shown` (what the frame shows);
        `pause` says the next input is slow to come (the ghosting may be cleared),
        `hold` that a full refresh follows soon (it will not be)."""
        with self._cond:
            if self._sealed:
                return
            if self._pending is not None:
                self.dropped += 1
                full = full or self._pending.full
            self._pending = _Pending(image, full, tag, pause, hold)
            self._cond.notify_all()

    def seal(self, image: Image.Image, *, tag: object = NEUTRAL) -> None:
        """Make `image` the last frame this panel will ever be handed: it replaces
        any frame not yet drawn (a refresh in progress finishes first), and every
        later `show` is ignored. The service seals each panel with the neutral
        picture when it stops, so no game frame can come after it."""
        with self._cond:
            if self._pending is not None:
                self.dropped += 1
            self._pending = _Pending(image, True, tag)
            self._sealed = True
            self._cond.notify_all()

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._busy or self._pending is not None

    @property
    def failing_since(self) -> float | None:
        """When (time.monotonic) the panel's current run of failures began; None
        while it draws."""
        with self._cond:
            return self._failed_at

    def wait_idle(self, timeout: float | None = None, *, if_failing: float | None = None) -> bool:
        """Block until every frame handed over has been drawn (tests, shutdown);
        False if `timeout` passed first or the worker stopped with frames undrawn.
        With `if_failing`, give up that many seconds after the panel fails (a
        stuck panel is not worth the whole timeout)."""
        started = time.monotonic()
        deadline = None if timeout is None else started + timeout
        with self._cond:
            while self._busy or self._pending is not None:
                if self._exited:
                    return False
                if if_failing is not None and self._failed_at is not None:
                    give_up = max(self._failed_at, started) + if_failing
                    deadline = give_up if deadline is None else min(deadline, give_up)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
            return True

    @property
    def alive(self) -> bool:
        """Whether the worker thread runs (False once stopped, or stuck: see stop)."""
        return self._thread.is_alive()

    def stop(self, timeout: float | None = None) -> bool:
        """Ask the worker to end after the refresh in progress; True if it has."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            with self._cond:
                self._exited = True
                self._cond.notify_all()

    def _clearing_due(self) -> Refresh | None:
        """The clearing refresh the policy wants now (called with the lock held)."""
        if self._last is None or self._sealed or self._stopping or self._pending is not None:
            return None
        idle_for = self._clock() - self._idle_since
        last = self._last
        return self.policy.clearing(idle_for=idle_for, pause=last.pause, hold=last.hold)

    def _next_job(self) -> _Pending | None:
        """Wait for a frame or a quiet moment's clearing (putting the panel to sleep
        when idle); None: stop."""
        while True:
            with self._cond:
                if self._stopping:
                    return None
                if self._pending is not None:
                    job, self._pending = self._pending, None
                    self._busy = True
                    return job
                shown = self._last
                if shown is not None and (kind := self._clearing_due()) is not None:
                    self._busy = True
                    return _Pending(shown.image, False, shown.tag, clear=kind)
                idle_for = self._clock() - self._idle_since
                timeout = None if self._slept else max(0.0, self.idle_sleep - idle_for)
                clear_in = (
                    self.policy.clearing_in(idle_for, hold=shown.hold)
                    if shown is not None and not self._sealed
                    else None
                )
                if clear_in is not None:
                    timeout = clear_in if timeout is None else min(timeout, clear_in)
                self._cond.wait(timeout)
                sleep = not self._slept and self._clock() - self._idle_since >= self.idle_sleep
                sleep = sleep and self._pending is None and self._clearing_due() is None
                if sleep:
                    self._slept = True
            if sleep:  # outside the lock: show() must never wait for a panel
                self._sleep_panel()

    def _loop(self) -> None:
        pause = self.retry[0]
        while (job := self._next_job()) is not None:
            try:
                self._draw(job)
                pause = self.retry[0]
                self.failing = False
                self._failed_at = None
            except Exception as exc:  # a driver failing must not end the worker
                self.failing = True
                log.warning("panel %s: %s", self.name, exc)
                if self.on_error:
                    self.on_error(self, exc)
                with self._cond:
                    if self._failed_at is None:
                        self._failed_at = time.monotonic()
                    self._cond.notify_all()
                    if self._pending is None:  # keep it unless a newer frame came
                        self._pending = _Pending(job.image, True, job.tag)
                    else:
                        self._pending.full = True
                    self._shown = self._last = None
                    self._busy = False
                    # The whole pause, however many frames arrive meanwhile.
                    retry_at = time.monotonic() + pause
                    while not self._stopping and (left := retry_at - time.monotonic()) > 0:
                        self._cond.wait(left)
                pause = min(pause * 2, self.retry[1])
                continue
            with self._cond:
                self._idle_since = self._clock()
                # Still busy if the quiet moment's clearing starts now: whoever waits
                # for the worker to be idle waits for that too.
                self._busy = self._clearing_due() is not None
                self._cond.notify_all()

    def _draw(self, job: _Pending) -> None:
        self._slept = False
        if job.clear is not None:
            self.panel.display(job.image, job.clear)
            self.policy.done(job.clear)
            self.cleared += 1
            return
        if not job.full and already_shows(self._shown, job.image):
            self.skipped += 1
            self._last = (
                _Pending(self._last.image, False, job.tag, job.pause, job.hold)
                if self._last
                else job
            )
            return
        refresh = self.policy.decide(
            full=job.full, asleep=self.panel.asleep, first=self._shown is None
        )
        self.panel.display(job.image, refresh)
        self._shown = job.image.convert("1")
        self._last = job
        if self.on_shown:
            self.on_shown(self, self._shown, refresh, job.tag)

    def _sleep_panel(self) -> None:
        try:
            self.panel.sleep()
        except Exception as exc:
            log.warning("panel %s: cannot sleep: %s", self.name, exc)
