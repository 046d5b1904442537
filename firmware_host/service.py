"""The service loop: inputs -> stand (rules, journal) -> screens -> panel workers.

One thread runs the loop (`run`); input drivers call `submit` from theirs. The
loop never waits on a panel (each has a worker) and never dies on an input: an
input that raises is logged and dropped, the game as it was. Frames for both
seats are built after the stand has journaled the event (fsync), so no screen
shows a result a power cut could take back.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image

from keystand.drivers.display import Panel, Refresh
from keystand.drivers.inputs import InputEvent

from .panel_worker import PanelWorker, RefreshPolicy
from .rules import Seat
from .stand import Stand

log = logging.getLogger(__name__)

Renderer = Callable[[Stand, Seat, Panel], Image.Image]
Blank = Callable[[Stand, Seat, Panel], Image.Image]
Shown = Callable[[Seat, Image.Image, Refresh, object], None]


@dataclass
class ServiceStats:
    inputs: int = 0
    failed_inputs: int = 0
    last_error: str | None = None


class Service:
    """The stand running: its panels' workers, the input queue, the loop."""

    def __init__(
        self,
        stand: Stand,
        panels: dict[Seat, Panel],
        *,
        render: Renderer,
        blank: Blank,
        policy: Callable[[], RefreshPolicy] = RefreshPolicy,
        idle_sleep: float = 120.0,
        tick: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        on_shown: Shown | None = None,
    ) -> None:
        self.stand = stand
        self.panels = panels
        self.render = render
        self.blank = blank
        self.tick = tick
        self.clock = clock
        self.inputs: queue.Queue[InputEvent | Callable[[], None] | None] = queue.Queue()
        self.on_shown = on_shown
        self.stats = ServiceStats()
        self.workers = {
            seat: PanelWorker(
                panel,
                name=seat.value,
                policy=policy(),
                idle_sleep=idle_sleep,
                on_error=self._panel_error,
                on_shown=self._shown,
            )
            for seat, panel in panels.items()
        }
        self._drawn_version = -1
        self._stop = threading.Event()

    def submit(self, event: InputEvent) -> None:
        """Hand an input to the loop (any thread); returns at once."""
        self.inputs.put(event)

    def submit_then(self, call: Callable[[], None]) -> None:
        """Run `call` in the loop once every input submitted before it is handled."""
        self.inputs.put(call)

    def start_workers(self) -> None:
        for worker in self.workers.values():
            worker.start()

    def run(self) -> None:
        """The loop: until `stop()`; redraws after every change."""
        self.redraw()
        while not self._stop.is_set():
            try:
                event = self.inputs.get(timeout=self.tick)
            except queue.Empty:
                event = None
            if self._stop.is_set():
                break
            if callable(event):
                event()
                self.redraw()
            elif event is not None:
                self.step(event)
            elif self.stand.tick(self.clock()):
                self.redraw()

    def step(self, event: InputEvent) -> None:
        """Handle one input and redraw; any error is logged, the loop goes on."""
        self.stats.inputs += 1
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
        full = self.stand.full_refresh
        tag = (self.stand.store.game_id, self.stand.store.records)
        for seat, worker in self.workers.items():
            try:
                image = self.render(self.stand, seat, worker.panel)
            except Exception:
                log.exception("cannot draw seat %s's screen", seat.value)
                continue
            worker.show(image, full=full, tag=tag)
        self.stand.full_refresh = False
        self._drawn_version = self.stand.version

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until both panels show the newest frames (`timeout` for all of them)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        done = [
            w.wait_idle(None if deadline is None else max(0.0, deadline - time.monotonic()))
            for w in self.workers.values()
        ]
        return all(done)

    def stop(self) -> None:
        self._stop.set()
        self.inputs.put(None)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Blank both screens to a neutral picture (e-ink keeps its last image
        without power), let the panels finish, put them to sleep; all within
        `timeout` seconds. A panel still stuck then is left alone (its worker
        thread holds it), so shutdown never hangs on one."""
        deadline = time.monotonic() + timeout
        self.drain(timeout / 2)  # the frames already handed over are shown first
        for seat, worker in self.workers.items():
            try:
                worker.show(self.blank(self.stand, seat, worker.panel), full=True)
            except Exception:
                log.exception("cannot blank seat %s's screen", seat.value)
        self.drain(max(0.0, deadline - time.monotonic()))
        for worker in self.workers.values():
            if not worker.stop(max(0.0, deadline - time.monotonic())):
                log.warning("panel %s is stuck; not putting it to sleep", worker.name)
                continue
            try:
                worker.panel.sleep()
                worker.panel.close()
            except Exception:
                log.exception("panel %s did not close cleanly", worker.name)
        self.stand.store.close()

    def _shown(
        self, worker: PanelWorker, image: Image.Image, refresh: Refresh, tag: object
    ) -> None:
        if self.on_shown:
            self.on_shown(Seat(worker.name), image, refresh, tag)

    def _panel_error(self, worker: PanelWorker, exc: Exception) -> None:
        self.stats.last_error = f"panel {worker.name}: {exc}"
