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
    """Which refresh a frame gets (docs/design.md "Refresh policy").

    Partial for in-game changes; full when the caller asks (a new game, the end
    screen); after `max_partials` partials in a row, one fast refresh (a full one
    on panels without a fast waveform) clears the ghosting."""

    max_partials: int = 10
    full_after_wake: bool = False
    partials: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.max_partials < 0:
            raise ValueError(f"max_partials {self.max_partials}: expected 0 or more")

    def decide(self, *, full: bool, asleep: bool, first: bool) -> Refresh:
        if full or first or (asleep and self.full_after_wake):
            kind = Refresh.FULL
        elif self.partials >= self.max_partials:
            kind = Refresh.FAST
        else:
            kind = Refresh.PARTIAL
        self.partials = self.partials + 1 if kind is Refresh.PARTIAL else 0
        return kind


@dataclass
class _Pending:
    image: Image.Image
    full: bool
    tag: object = None


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

    def show(self, image: Image.Image, *, full: bool = False, tag: object = None) -> None:
        """Queue `image` to be drawn; replaces any frame not yet drawn. Never blocks
        on the panel. A wanted full refresh is kept even if the frame is replaced.
        `tag` comes back with the frame in `on_shown` (what the frame shows)."""
        with self._cond:
            if self._sealed:
                return
            if self._pending is not None:
                self.dropped += 1
                full = full or self._pending.full
            self._pending = _Pending(image, full, tag)
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

    def _next_job(self) -> _Pending | None:
        """Wait for a frame (putting the panel to sleep when idle); None: stop."""
        while True:
            with self._cond:
                if self._stopping:
                    return None
                if self._pending is not None:
                    job, self._pending = self._pending, None
                    self._busy = True
                    return job
                idle = not self._cond.wait(self.idle_sleep)
            if idle:  # outside the lock: show() must never wait for a panel
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
                    self._shown = None
                    self._busy = False
                    # The whole pause, however many frames arrive meanwhile.
                    retry_at = time.monotonic() + pause
                    while not self._stopping and (left := retry_at - time.monotonic()) > 0:
                        self._cond.wait(left)
                pause = min(pause * 2, self.retry[1])
                continue
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def _draw(self, job: _Pending) -> None:
        if (
            not job.full
            and self._shown is not None
            and job.image.size == self._shown.size
            and ImageChops.difference(job.image.convert("1"), self._shown).getbbox() is None
        ):
            self.skipped += 1
            return
        refresh = self.policy.decide(
            full=job.full, asleep=self.panel.asleep, first=self._shown is None
        )
        self.panel.display(job.image, refresh)
        self._shown = job.image.convert("1")
        if self.on_shown:
            self.on_shown(self, self._shown, refresh, job.tag)

    def _sleep_panel(self) -> None:
        try:
            self.panel.sleep()
        except Exception as exc:
            log.warning("panel %s: cannot sleep: %s", self.name, exc)
