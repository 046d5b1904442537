"""Touch to visible on both panels, our way and the naive way, in one run.

A session of recorded games is played through the real stand (rules, journal
with fsync, views, render) and two real panels (vendor code over our HAL, or
over the vendor's stock path for the naive way) on counting SPI devices: that
is our software time, in wall time, per touch. Every frame handed to a panel
is noted with its moment, and the panel time and queueing come from the
virtual clock (`keystand.panel_clock`): the worker's policy, or the naive loop,
with each refresh's busy seconds from `panels.seconds`.

The journal lives on a tmpfs (/dev/shm) when there is one, so the software time
is the processor's work: the same fsync on this machine's disk came at random
moments and decided which model had the best p99, and a disk is no guide to a
Pi's SD card anyway. `journal_fsync` times the append on the disk, apart.
"""

from __future__ import annotations

import gc
import itertools
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from games import Step
from gpiozero.pins.mock import MockFactory
from panels import counting_panels
from PIL import Image

from keystand import games as registry
from keystand import profile, screens
from keystand.drivers.display import TIMINGS, Refresh
from keystand.drivers.display.hal import PanelHal, StockPathHal
from keystand.drivers.inputs import Touch
from keystand.panel_clock import Handover, Timeline, naive, simulate
from keystand.panel_worker import RefreshPolicy, already_shows
from keystand.rules import Seat
from keystand.service import awaiting_clue, game_over
from keystand.stand import Settings, Stand
from keystand.store import Store

TICK = 0.5  # the service's tick (the end screen's reveal, refusals going away)
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


def journal_fsync(records: int = 200) -> list[float]:
    """Seconds per journal append (written and fsynced) on this machine's disk."""
    from keystand.journal import Journal

    times = []
    with tempfile.TemporaryDirectory() as folder:
        journal, _, _ = Journal.open(Path(folder) / "current.journal")
        with journal:
            for n in range(records):
                started = time.perf_counter()
                journal.append({"event": "guess", "seat": "A", "cell": n % 25})
                times.append(time.perf_counter() - started)
    return times


@dataclass
class TouchRecord:
    at: float
    frames: dict[Seat, int]  # the frame each seat's panel got for it
    change: int  # its index among the changes (the naive loop draws each change)
    software: float  # wall seconds: input to both frames prepared for the SPI bus
    burst_end: bool


@dataclass
class Played:
    handovers: dict[Seat, list[Handover]] = field(default_factory=lambda: {s: [] for s in Seat})
    changes: list[Handover] = field(default_factory=list)
    touches: list[TouchRecord] = field(default_factory=list)
    render: list[float] = field(default_factory=list)  # wall seconds per seat's frame
    games: int = 0
    model: str = ""


def play(
    model: str, steps: list[Step], games: int, seed: int, *, stock: bool, game: str = "duet"
) -> Played:
    """Play `steps` (a session of `games` games of `game` from `seed`) on two panels
    of `model`. `stock`: the naive way (a full refresh of each panel in turn, stock HAL)."""
    # The stand's process holds its own objects only; the bench holds every earlier
    # model's timelines too, and the collector's full passes over them (25-30 ms,
    # at moments that differ from run to run) decided which model had the worst p99.
    gc.collect()
    gc.freeze()
    try:
        return _play(model, steps, games, seed, stock=stock, game=game)
    finally:
        gc.unfreeze()


def key_places(model: str) -> screens.Places:
    """Where a shipped build with `model` puts each seat's keys: its screens are drawn
    with their labels beside them, as on the stand (none: a model no build ships)."""
    for name in sorted(profile.shipped()):
        build = profile.load(name)
        if build.panels["A"].model == model and screens.places(build):
            return screens.places(build)
    return {}


def _play(
    model: str, steps: list[Step], games: int, seed: int, *, stock: bool, game: str
) -> Played:
    factory = MockFactory()
    hals = StockPathHal if stock else PanelHal
    panels = dict(zip(Seat, counting_panels(model, factory, hals), strict=True))
    deal = registry.get(game).generate
    cards = (deal(seed + n) for n in itertools.count())
    played = Played(games=games, model=model)
    fast_full = TIMINGS[model].fast_is_quicker  # as the stand's policy has it (run.py)
    policies = {seat: RefreshPolicy(fast_full=fast_full) for seat in Seat}
    last: dict[Seat, Image.Image | None] = {seat: None for seat in Seat}
    places = key_places(model)
    drawn = [-1]

    def emit(at: float, touch: bool) -> dict[Seat, int]:
        if stand.version == drawn[0]:
            return {}
        drawn[0] = stand.version
        full, pause, hold = stand.redraw.full, awaiting_clue(stand), game_over(stand)
        frames: dict[Seat, int] = {}
        for seat, panel in panels.items():
            started = time.perf_counter()
            image = screens.render(stand, seat, panel, places)
            played.render.append(time.perf_counter() - started)
            if not full and already_shows(last[seat], image):
                continue  # the worker skips a frame the panel already shows, the same way
            first = last[seat] is None
            kind = (
                Refresh.FULL
                if stock
                else policies[seat].decide(full=full, asleep=False, first=first)
            )
            panel.display(image, kind)
            last[seat] = image
            frames[seat] = len(played.handovers[seat])
            played.handovers[seat].append(
                Handover(at, full=full, pause=pause, hold=hold, touch=touch)
            )
        stand.redraw.drawn()
        if frames:
            played.changes.append(Handover(at, full=full, touch=touch))
        return frames

    with tempfile.TemporaryDirectory(dir=SCRATCH) as state_dir:
        # The turn timer off: a turn takes what the bot's pace makes it.
        settings = Settings(game=game)
        stand = Stand(Store(Path(state_dir)), settings=settings, new_card=lambda: next(cards))
        stand.boot()
        emit(0.0, False)
        tick = TICK
        for step in steps:
            while tick < step.at:
                if stand.tick(tick):
                    emit(tick, False)
                tick += TICK
            if step.deal:
                stand.new_game()
                emit(step.at, False)
                continue
            assert step.event is not None
            started = time.perf_counter()
            stand.handle(step.event, step.at)
            frames = emit(step.at, isinstance(step.event, Touch))
            software = time.perf_counter() - started
            if isinstance(step.event, Touch) and frames:
                played.touches.append(
                    TouchRecord(step.at, frames, len(played.changes) - 1, software, step.burst_end)
                )
        end = tick + stand.settings.reveal_delay + 2 * TICK
        while tick < end:  # the last game's end screen
            if stand.tick(tick):
                emit(tick, False)
            tick += TICK
        stand.store.close()
    for panel in panels.values():
        panel.close()
    factory.reset()
    return played


@dataclass
class Latency:
    """Per touch: seconds on the virtual clock, software seconds, their sum."""

    panel: list[float]
    software: list[float]
    behind: int  # touches whose result waited behind a full, fast or clearing refresh
    behind_clearing: int
    burst_last: list[float]
    timelines: dict[Seat, Timeline] | Timeline
    clearing_quiet: int = 0  # clearings in a quiet moment, both panels together
    clearing_wasted: int = 0  # clearings right before a full refresh, both panels together

    @property
    def total(self) -> list[float]:
        return [p + s for p, s in zip(self.panel, self.software, strict=True)]


def ours(played: Played, cost: dict[Refresh, float], max_partials: int) -> Latency:
    timelines = {
        seat: simulate(
            hand,
            RefreshPolicy(
                max_partials=max_partials, fast_full=TIMINGS[played.model].fast_is_quicker
            ),
            cost,
        )
        for seat, hand in played.handovers.items()
    }
    panel, behind, clearing, burst = [], 0, 0, []
    for touch in played.touches:
        wait = max(timelines[s].visible[i] - touch.at for s, i in touch.frames.items())
        panel.append(wait)
        waited = [d for s, i in touch.frames.items() for d in timelines[s].behind[i]]
        behind += bool(waited)
        clearing += any(d.frame is None for d in waited)
        if touch.burst_end:
            burst.append(wait + touch.software)
    software = [t.software for t in played.touches]
    found = [_clearings(timelines[s], hand) for s, hand in played.handovers.items()]
    quiet, wasted = sum(q for q, _ in found), sum(w for _, w in found)
    return Latency(panel, software, behind, clearing, burst, timelines, quiet, wasted)


def _clearings(timeline: Timeline, handovers: list[Handover]) -> tuple[int, int]:
    """One panel's clearings: those in a quiet moment (the frame on the glass said a
    pause follows: a turn over, the next clue awaited), and those wasted right
    before a full refresh (the end screen's, which wipes the ghosting anyway)."""
    quiet = wasted = 0
    shown: int | None = None
    drawn = timeline.drawn
    for d, after in zip(drawn, [*drawn[1:], None], strict=True):
        if d.frame is not None:
            shown = d.frame
            continue
        quiet += shown is not None and handovers[shown].pause
        wasted += after is not None and after.frame is not None and handovers[after.frame].full
    return quiet, wasted


def the_naive_way(played: Played, cost: dict[Refresh, float]) -> tuple[Latency, list[float]]:
    """The naive way on the same touches: as played (each change waits for the ones
    queued before it) and, second, each touch as if the panels were idle when it
    came (its own full refreshes only: the best the naive way can do)."""
    timeline = naive(played.changes, cost)
    panel = [timeline.visible[t.change] - t.at for t in played.touches]
    software = [t.software for t in played.touches]
    burst = [p + t.software for p, t in zip(panel, played.touches, strict=True) if t.burst_end]
    own: dict[int, list[float]] = {}
    for d in timeline.drawn:
        if d.frame is not None:
            own.setdefault(d.frame, []).append(d.end - d.start)
    idle = [sum(own[t.change]) + t.software for t in played.touches]
    return Latency(panel, software, len(panel), 0, burst, timeline), idle


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p99(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
