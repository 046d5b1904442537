"""The service loop: inputs -> stand (rules, journal) -> screens -> panel workers.

One thread runs the loop; input drivers call `submit` from theirs. The loop never
waits on a panel (each has a worker) and never dies on an input: an input that
raises is logged and dropped, the game as it was. Frames for both seats are
built after the stand has journaled the event (fsync), so no screen shows a
result a power cut could take back.

Stopping is the loop's own last act (`_finish`): it takes no more input, lets
the frames already handed over be drawn, seals each worker with the
neutral picture (a sealed worker takes no more frames, so no game frame can
follow it), waits for the panels, puts them to sleep, closes the store and stops the input
drivers (the page last says "stopping"). Other
threads only ask (`stop`) and wait (`wait_stopped`). What other threads may
read of the running stand is the `Snapshot` the loop publishes after each
change; they never touch `stand` or `store`.
"""

from __future__ import annotations

import enum
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from PIL import Image

from keystand.drivers.display import Panel, Refresh
from keystand.drivers.inputs import Health, HealthReport, InputDriver, InputEvent

from .panel_worker import NEUTRAL, PanelWorker, RefreshPolicy
from .rules import Seat
from .stand import Stand

log = logging.getLogger(__name__)

FAILING_WAIT = 5.0  # seconds a failing panel gets to show the neutral picture at stop
SEAL_POLL = 0.05  # seconds between looks at the panels still drawing the neutral picture
STOP_GRACE = 1.0  # seconds a panel that has drawn it gets for its worker to end

Renderer = Callable[[Stand, Seat, Panel], Image.Image]
Blank = Callable[[Stand, Seat, Panel], Image.Image]
Shown = Callable[[Seat, Image.Image, Refresh, object], None]
Describe = Callable[[Stand], dict[str, Any]]


class Beat(Protocol):
    """Called on each turn of the loop (systemd's watchdog ping: a hung loop stops
    it); says when it wants the next turn (`notify.Heartbeat`)."""

    def __call__(self) -> None: ...

    def due_in(self) -> float | None:
        """Seconds until it must be called again; None: only when something happens."""


class Phase(enum.Enum):
    """Where the service is in its life, as the page and the terminal say it."""

    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Snapshot:
    """What other threads may know of the running stand, as of `version`.

    Published whole by the loop (one attribute assignment), never changed after."""

    phase: Phase = Phase.STARTING
    version: int = -1
    game: str | None = None
    public: dict[str, Any] = field(default_factory=dict)  # describe(stand): public record only
    error: str | None = None  # the last input or panel that failed, in words
    health: tuple[HealthReport, ...] = ()  # the last report of each input device


@dataclass
class ServiceStats:
    failed_inputs: int = 0
    last_error: str | None = None


@dataclass(frozen=True)
class _Call:
    """A callable the loop runs in order with the inputs (tests, the script's end)."""

    call: Callable[[], None]


def _nothing(stand: Stand) -> dict[str, Any]:
    return {}


def awaiting_clue(stand: Stand) -> bool:
    """A quiet moment for both panels, as the game in play says (its `quiet`): the
    refresh policy may clear the ghosting now. Not while a seat chooses its clue's
    number on its keys: its next press comes at once, and must not wait behind a
    clearing."""
    return (
        stand.state is not None and stand.game.quiet(stand.state) and not stand.choosing.numbering
    )


def game_over(stand: Stand) -> bool:
    """The game in play is over: the end screen's full refresh comes next, so no
    clearing before it."""
    return stand.state is not None and not stand.game.playing(stand.state)


class Service:
    """The stand running: its panels' workers, the input drivers, the loop."""

    def __init__(
        self,
        stand: Stand,
        panels: dict[Seat, Panel],
        *,
        render: Renderer,
        blank: Blank,
        describe: Describe = _nothing,
        policy: Callable[[Panel], RefreshPolicy] = lambda panel: RefreshPolicy(),
        quiet: Callable[[Stand], bool] = awaiting_clue,
        idle_sleep: float = 120.0,
        tick: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        on_shown: Shown | None = None,
        heartbeat: Beat | None = None,
        on_stopped: Callable[[], None] | None = None,
    ) -> None:
        self.stand = stand
        self.panels = panels
        self.render = render
        self.blank = blank
        self.describe = describe
        self.tick = tick
        self.clock = clock
        self.on_shown = on_shown
        # Called by the loop on each turn (systemd's watchdog ping): a hung loop stops it.
        self.heartbeat = heartbeat
        self.on_stopped = on_stopped  # told once the loop has finished (see `_finish`)
        self.quiet = quiet
        self.stats = ServiceStats()
        self.drivers: list[InputDriver] = []
        self.workers = {
            seat: PanelWorker(
                panel,
                name=seat.value,
                policy=policy(panel),
                idle_sleep=idle_sleep,
                on_error=self._panel_error,
                on_shown=self._shown,
            )
            for seat, panel in panels.items()
        }
        self._queue: queue.Queue[InputEvent | HealthReport | _Call | None] = queue.Queue()
        self._health: dict[str, HealthReport] = {}
        self._failed: set[str] = set()  # panels whose worker is retrying after a failure
        self._drawn_version = -1
        self._neutral: dict[Seat, tuple[str, Image.Image]] = {}
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._accepting = True
        self._loop: threading.Thread | None = None
        self._inputs_started = False
        self._finished = False
        self.unblanked: list[str] = []  # panels that did not show the neutral picture at stop
        self.failed: str | None = None  # why the loop stopped by itself (the journal lost)
        self.snapshot = Snapshot()

    # ----- from any thread --------------------------------------------------------------

    def submit(self, event: InputEvent) -> None:
        """Hand an input to the loop; returns at once. Once stopping, inputs are
        not taken (the event in hand is finished, nothing after it)."""
        if self._accepting:
            self._queue.put(event)

    def report(self, health: HealthReport) -> None:
        """An input device's health changed (drivers call this from their threads)."""
        self._queue.put(health)

    def submit_then(self, call: Callable[[], None]) -> None:
        """Run `call` in the loop once every input submitted before it is handled."""
        self._queue.put(_Call(call))

    def stop(self) -> None:
        """Ask the loop to stop after the input in hand; returns at once."""
        self._stop.set()
        self._queue.put(None)

    def wait_stopped(self, timeout: float | None = None) -> bool:
        """True once the loop has blanked the screens and closed the store."""
        return self._stopped.wait(timeout)

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    # ----- life -------------------------------------------------------------------------

    def add_input(self, driver: InputDriver) -> None:
        """An input driver the service starts once the loop runs, and stops first."""
        self.drivers.append(driver)

    def start_workers(self) -> None:
        for worker in self.workers.values():
            worker.start()

    def start_inputs(self) -> None:
        """Start the input drivers: each claims its pins, bus, port or page now.
        If one cannot, those started are stopped and its error raised, so a
        stand that cannot take input is refused before it deals or resumes
        anything (`keystand run` calls this before the stand boots). What they
        send waits in the queue until the loop runs."""
        if self._inputs_started:
            return
        started: list[InputDriver] = []
        try:
            for driver in self.drivers:
                driver.start(self.submit, self.report)
                started.append(driver)
        except BaseException:
            for driver in reversed(started):
                driver.stop()
            raise
        self._inputs_started = True

    def start(self, *, stop_timeout: float = 30.0) -> Service:
        """Start the workers, the loop thread, then the input drivers (unless
        `start_inputs` already did)."""
        self.start_workers()
        self._loop = threading.Thread(
            target=self.run, kwargs={"stop_timeout": stop_timeout}, name="service-loop"
        )
        self._loop.daemon = True  # a stuck panel driver must not keep the process
        self._loop.start()
        self.start_inputs()
        return self

    def run(self, *, stop_timeout: float = 30.0) -> None:
        """The loop: until `stop()`, then `_finish` (in this thread)."""
        try:
            self.redraw()
            self._publish(Phase.RUNNING)
            while not self._stop.is_set():
                if self.heartbeat is not None:
                    self.heartbeat()
                try:
                    item = self._queue.get(timeout=self.wait())
                except queue.Empty:
                    item = None
                if self._stop.is_set():
                    break
                if item is None and self.stand.still():
                    continue  # woken for the watchdog's ping alone: a tick would do nothing
                self._take(item)
                self._publish(Phase.RUNNING)
                if self.stand.store.given_up is not None:
                    # The journal cannot be trusted again in this run: stop, the
                    # screens blanked (none left showing what may not be on disk),
                    # for the start's repair (`keystand run` exits to be restarted).
                    self.failed = self.stand.store.given_up
                    log.error("%s: stopping, to be started again", self.failed)
                    break
        finally:
            self._finish(stop_timeout)

    def wait(self) -> float | None:
        """How long the loop waits for an input: a `tick` while time can change
        what the stand shows; once it is still (`Stand.still`), until the
        heartbeat's next ping is due, or (no watchdog) until an input comes. An
        idle stand's loop sleeps (issue 33: it woke twice a second for nothing)."""
        if not self.stand.still():
            return self.tick
        return None if self.heartbeat is None else self.heartbeat.due_in()

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Stop and wait (tests, and `keystand run` on a signal). Without a loop
        thread (tests that call `step`), this thread is the owner and finishes.
        If the loop does not finish in `timeout`, the panels are sealed with the
        neutral picture from here (the store is left to the process's end)."""
        if self._loop is None:
            if not self._finished:
                self._finish(timeout)
            return True
        self.stop()
        if self.wait_stopped(timeout):
            return True
        log.error("the service loop did not stop in %.0f s; blanking the screens anyway", timeout)
        for seat, worker in self.workers.items():
            if seat in self._neutral:
                worker.seal(self._neutral[seat][1])
        return False

    # ----- the loop's own work ----------------------------------------------------------

    def _take(self, item: InputEvent | HealthReport | _Call | None) -> None:
        if isinstance(item, _Call):
            item.call()
            self.redraw()
        elif isinstance(item, HealthReport):
            self._health[item.source] = item
            log.info("input %s: %s %s", item.source, item.health.value, item.detail)
            self.stand.input_health(item.source, lost=item.health is Health.LOST, now=self.clock())
            self.redraw()
        elif item is not None:
            self.step(item)
        elif self.stand.tick(self.clock()):
            self.redraw()

    def step(self, event: InputEvent) -> None:
        """Handle one input and redraw; any error is logged, the loop goes on."""
        try:
            self.stand.handle(event, self.clock())
        except Exception as exc:
            self.stats.failed_inputs += 1
            self.stats.last_error = f"{event}: {exc}"
            log.exception("input %s failed; the game is as it was", event)
        self.redraw()

    def redraw(self) -> None:
        """Give each worker its seat's frame, if anything changed since the last one."""
        if self.stand.version == self._drawn_version:
            return
        full = self.stand.redraw.full
        tag = (self.stand.store.game_id, self.stand.store.records)
        pause, hold = self.quiet(self.stand), game_over(self.stand)
        for seat, worker in self.workers.items():
            try:
                image = self.render(self.stand, seat, worker.panel)
            except Exception:
                log.exception("cannot draw seat %s's screen", seat.value)
                continue
            worker.show(image, full=full, tag=tag, pause=pause, hold=hold)
        self.stand.redraw.drawn()
        self._drawn_version = self.stand.version
        # After both frames are handed: their panels start no later for a picture
        # only the stop shows (at a start, a whole render per seat).
        for seat, worker in self.workers.items():
            try:
                self._keep_neutral(seat, worker.panel)
            except Exception:
                log.exception("cannot draw seat %s's neutral picture", seat.value)

    def _keep_neutral(self, seat: Seat, panel: Panel) -> None:
        """The seat's neutral picture in its language, ready before it is needed."""
        lang = self.stand.settings.lang_of(seat)
        if self._neutral.get(seat, ("",))[0] != lang:
            self._neutral[seat] = (lang, self.blank(self.stand, seat, panel))

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until both panels show the newest frames (`timeout` for all of them)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        done = [
            w.wait_idle(None if deadline is None else max(0.0, deadline - time.monotonic()))
            for w in self.workers.values()
        ]
        return all(done)

    def _wait_workers(self, timeout: float, workers: list[PanelWorker] | None = None) -> bool:
        """Like `drain`, but a panel that is failing gets one more try
        (`FAILING_WAIT`), not the whole timeout: a stuck panel must not hold up
        the other one's neutral picture, nor the stop."""
        deadline = time.monotonic() + timeout
        done = True
        for worker in workers if workers is not None else list(self.workers.values()):
            left = max(0.0, deadline - time.monotonic())
            done = worker.wait_idle(left, if_failing=FAILING_WAIT) and done
        return done

    def _publish(self, phase: Phase) -> None:
        if (
            self.snapshot.phase is phase
            and self.snapshot.version == self.stand.version
            and self.snapshot.error == self.stats.last_error
            and self.snapshot.health == tuple(self._health.values())
        ):
            return
        try:
            public = self.describe(self.stand)
        except Exception:
            log.exception("cannot describe the stand for the page")
            public = {}
        self.snapshot = Snapshot(
            phase=phase,
            version=self.stand.version,
            game=self.stand.store.game_id,
            public=public,
            error=self.stats.last_error,
            health=tuple(self._health.values()),
        )

    def _finish(self, timeout: float) -> None:
        """Inputs off, the last frames drawn, then the neutral picture sealed on
        each panel, the panels asleep, the store closed: in that order."""
        if self._finished:
            return
        self._finished = True
        deadline = time.monotonic() + timeout
        self._accepting = False  # from here no input is taken, whoever sends it
        self._publish(Phase.STOPPING)
        try:
            self._wait_workers(timeout / 2)  # the frames already handed over are shown first
            for seat, worker in self.workers.items():
                try:
                    self._keep_neutral(seat, worker.panel)
                    worker.seal(self._neutral[seat][1], tag=NEUTRAL)
                except Exception:
                    log.exception("cannot blank seat %s's screen", seat.value)
            # Each panel is put to sleep as soon as it shows the neutral picture,
            # so one stuck panel does not hold up (or get blamed on) the other.
            # A failing panel gets FAILING_WAIT more, not the whole timeout.
            sealed_at = time.monotonic()
            pending = list(self.workers.values())
            while pending:
                left = deadline - time.monotonic()
                for worker in list(pending):
                    if worker.wait_idle(min(SEAL_POLL, max(0.0, left))):
                        pending.remove(worker)
                        self._close_worker(worker, max(STOP_GRACE, deadline - time.monotonic()))
                failing = [w.failing_since for w in pending]
                given_up = all(
                    f is not None and time.monotonic() > max(f, sealed_at) + FAILING_WAIT
                    for f in failing
                )
                if left <= 0 or (pending and given_up):
                    break
            for worker in pending:
                self.unblanked.append(worker.name)
                log.warning("panel %s did not show the neutral picture", worker.name)
                self._close_worker(worker, 0.0)
            self.stand.store.close()
        finally:
            self._publish(Phase.STOPPED)
            # Last, so the page says "stopping" while the panels are blanked.
            for driver in self.drivers:
                try:
                    driver.stop()
                except Exception:
                    log.exception("input %s did not stop cleanly", driver.name)
            self._stopped.set()
            if self.on_stopped is not None:
                self.on_stopped()

    def _close_worker(self, worker: PanelWorker, timeout: float) -> None:
        if not worker.stop(timeout):
            log.warning("panel %s is stuck; not putting it to sleep", worker.name)
            return
        try:
            worker.panel.sleep()
            worker.panel.close()
        except Exception:
            log.exception("panel %s did not close cleanly", worker.name)

    def _shown(
        self, worker: PanelWorker, image: Image.Image, refresh: Refresh, tag: object
    ) -> None:
        if worker.name in self._failed:  # answering again: the other screen stops saying so
            self._failed.discard(worker.name)
            self._queue.put(_Call(lambda: self.stand.panel_health(Seat(worker.name), None)))
        if self.on_shown:
            self.on_shown(Seat(worker.name), image, refresh, tag)

    def _panel_error(self, worker: PanelWorker, exc: Exception) -> None:
        """From the worker's thread: the loop tells the stand (the other screen says it)."""
        self.stats.last_error = f"panel {worker.name}: {exc}"
        if worker.name not in self._failed:
            self._failed.add(worker.name)
            message = str(exc)
            self._queue.put(_Call(lambda: self.stand.panel_health(Seat(worker.name), message)))
