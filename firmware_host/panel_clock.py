"""Panel workers on a virtual clock: when each frame becomes visible, deterministically.

`bench/` and the policy's tests hand `simulate` the frames one panel is given
(when, and whether full or followed by a pause) and the seconds each refresh
kind keeps the panel busy; it runs the same `RefreshPolicy` the worker thread
runs, with the worker's rules (newest frame wins, a wanted full refresh is
kept, clearing only while idle), and says when each frame's picture (or a newer
one) finished showing and which flashing refreshes it waited for.
`naive` is the vendor examples' way for comparison: every change a full
refresh of each panel in turn, nothing dropped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from keystand.drivers.display import Refresh

from .panel_worker import RefreshPolicy

EPSILON = 1e-9  # virtual seconds: rounding in sums of refresh times


@dataclass(frozen=True)
class Handover:
    """One frame handed to a panel's worker at `at` (virtual seconds)."""

    at: float
    full: bool = False
    pause: bool = False  # a quiet moment follows (rule 3a)
    hold: bool = False  # a full refresh follows soon: no clearing
    touch: bool = False  # the frame carries a touch's result


@dataclass(frozen=True)
class Drawn:
    """One refresh on the virtual panel: the frame drawn (None: a clearing)."""

    kind: Refresh
    start: float
    end: float
    frame: int | None


@dataclass
class Timeline:
    """What one panel did with its frames."""

    drawn: list[Drawn]
    visible: list[float]  # per frame: when it, or a newer frame, was on the glass
    # Per frame: the full, fast or clearing refreshes it waited for, the one that
    # showed it included (a result drawn with a flashing refresh waited for it too).
    behind: list[list[Drawn]]

    def waits(self, handovers: Sequence[Handover]) -> list[float]:
        """Seconds from each hand-over to visible."""
        return [v - h.at for v, h in zip(self.visible, handovers, strict=True)]

    def counts(self) -> dict[str, int]:
        kinds = {kind.value: 0 for kind in Refresh}
        for d in self.drawn:
            kinds[d.kind.value] += 1
        kinds["clearing"] = sum(d.frame is None for d in self.drawn)
        return kinds

    def busy(self) -> float:
        return sum(d.end - d.start for d in self.drawn)


def _timeline(handovers: Sequence[Handover], drawn: list[Drawn]) -> Timeline:
    visible = [math.inf] * len(handovers)
    behind: list[list[Drawn]] = [[] for _ in handovers]
    for index, h in enumerate(handovers):
        shows = next((d for d in drawn if d.frame is not None and d.frame >= index), None)
        if shows is None:
            continue
        visible[index] = shows.end
        behind[index] = [
            d
            for d in drawn
            if d.kind is not Refresh.PARTIAL and d.end > h.at + EPSILON and d.start <= shows.start
        ]
    return Timeline(drawn, visible, behind)


def simulate(
    handovers: Sequence[Handover], policy: RefreshPolicy, cost: Mapping[Refresh, float]
) -> Timeline:
    """One panel's worker and policy over `handovers` (sorted by time); `cost` is
    the seconds each refresh kind keeps the panel busy."""
    drawn: list[Drawn] = []
    now, i, n = 0.0, 0, len(handovers)
    pending: int | None = None
    pending_full = False
    last: int | None = None  # the frame on the glass
    idle_since = 0.0
    while True:
        while i < n and handovers[i].at <= now + EPSILON:
            pending, pending_full = i, pending_full or handovers[i].full
            i += 1
        if pending is not None:
            kind = policy.decide(full=pending_full, asleep=False, first=last is None)
            drawn.append(Drawn(kind, now, now + cost[kind], pending))
            last, pending, pending_full = pending, None, False
            now = idle_since = drawn[-1].end
            continue
        if last is not None:
            idle_for = now - idle_since + EPSILON
            h = handovers[last]
            clear = policy.clearing(idle_for=idle_for, pause=h.pause, hold=h.hold)
            if clear is not None:
                drawn.append(Drawn(clear, now, now + cost[clear], None))
                policy.done(clear)
                now = idle_since = drawn[-1].end
                continue
        wake = [handovers[i].at] if i < n else []
        clear_in = (
            policy.clearing_in(now - idle_since, hold=handovers[last].hold)
            if last is not None
            else None
        )
        if clear_in is not None:
            if clear_in <= EPSILON:  # `clearing` said no just now: waiting would not change it
                raise RuntimeError(f"{policy!r}: clearing_in says now, clearing says no")
            wake.append(now + clear_in)
        if not wake:
            break
        now = max(now, min(wake))
    return _timeline(handovers, drawn)


def naive(
    handovers: Sequence[Handover], cost: Mapping[Refresh, float], panels: int = 2
) -> Timeline:
    """The vendor examples' way: one loop, each change drawn on every panel in turn
    with a full refresh, each change in order (nothing dropped). `visible` is when
    the last panel shows the change."""
    drawn: list[Drawn] = []
    now = 0.0
    for index, h in enumerate(handovers):
        now = max(now, h.at)
        for _ in range(panels):
            drawn.append(Drawn(Refresh.FULL, now, now + cost[Refresh.FULL], index))
            now = drawn[-1].end
    visible = [0.0] * len(handovers)
    for d in drawn:
        if d.frame is not None:
            visible[d.frame] = d.end
    return Timeline(drawn, visible, [[] for _ in handovers])
