"""Screens and the service: how long a frame takes to draw, how long from a touch
to both panels showing its result, how long a restart takes, how much memory.

    .venv/bin/python bench/service_bench.py [--touches N]

Panels are simulated: with speed 0 the figures are the software alone (input,
rules, journal fsync, views, layouts, hand-over to the panel); the panel's own
refresh time comes on top (the timing model, printed beside them).
"""

from __future__ import annotations

import argparse
import platform
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

from keystand import layouts, screens
from keystand.drivers.display import TIMINGS, SimPanel
from keystand.drivers.inputs import Act, Touch
from keystand.games.duet import views
from keystand.rules import Clue, Pass, Seat, generate
from keystand.rules import Touch as RTouch
from keystand.rules.duet import Duet
from keystand.service import Service
from keystand.stand import Stand
from keystand.store import Store


def midgame() -> Duet:
    state = Duet.start(generate(5))
    events = [Clue(Seat.A), *(RTouch.at(i) for i in sorted(state.card.agents(Seat.A))[:3])]
    return Duet.replay(state.card, state.mission, [*events, Pass(Seat.B)])


def bench_render(repeat: int) -> None:
    state = midgame()
    for model in layouts.MODELS:
        spec = layouts.panel(model)
        view = views.for_seat(state, Seat.B)
        layouts.render(view, spec)  # fonts loaded, caches warm
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            layouts.render(views.for_seat(state, Seat.B), spec)
            times.append(time.perf_counter() - t0)
        print(
            f"render {model:12s} {spec.size[0]}x{spec.size[1]}: "
            f"median {statistics.median(times) * 1e3:.1f} ms, "
            f"p95 {sorted(times)[int(0.95 * len(times))] * 1e3:.1f} ms"
        )


def bench_latency(touches: int, model: str) -> None:
    """Touch -> both panels have the frame (speed 0: the software path only)."""
    with tempfile.TemporaryDirectory() as d:
        stand = Stand(Store(Path(d)), new_card=lambda: generate(9))
        stand.boot()
        shown = threading.Condition()
        count = {"n": 0}

        def on_shown(*_: object) -> None:
            with shown:
                count["n"] += 1
                shown.notify_all()

        panels = {s: SimPanel(model, rotation=90, speed=0) for s in Seat}
        service = Service(
            stand, panels, render=screens.render, blank=screens.blank, on_shown=on_shown
        ).start()
        service.drain(30)
        times = []
        for k in range(touches):
            # Alternate a clue and a touch that is always accepted or refused cleanly.
            event = Act("clue", "A") if k % 2 == 0 else Touch(*divmod(k % 25, 5))
            with shown:
                target = count["n"] + 2
                t0 = time.perf_counter()
                service.submit(event)
                while count["n"] < target:
                    if not shown.wait(10):
                        break
                times.append(time.perf_counter() - t0)
            if stand.state.status.value != "playing":  # an assassin: deal again
                service.submit_then(stand.new_game)
                service.drain(30)
        service.shutdown(30)
        t = TIMINGS[model]
        print(
            f"touch -> both {model} panels have the frame (software, {touches} inputs): "
            f"median {statistics.median(times) * 1e3:.1f} ms, "
            f"p95 {sorted(times)[int(0.95 * len(times))] * 1e3:.1f} ms; "
            f"then the panel: partial {t.partial} s, full {t.full} s"
        )


def bench_restart(events: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d))
        state = Duet.start(generate(3))
        store.start_game(state)
        for k in range(events):
            event = Clue(Seat.A) if k % 3 == 0 else RTouch.at(k % 25)
            state, _ = state.apply(event)
            store.record(event, state)
        store.close()
        times = []
        for _ in range(10):
            t0 = time.perf_counter()
            s = Stand(Store(Path(d)))
            s.boot()
            s.store.close()
            times.append(time.perf_counter() - t0)
        print(
            f"restart: resume a journal of {events} records: "
            f"median {statistics.median(times) * 1e3:.1f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--touches", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=100)
    args = ap.parse_args()
    print(
        f"machine: {platform.machine()} {platform.python_implementation()} "
        f"{platform.python_version()}, {platform.platform()}"
    )
    bench_render(args.repeat)
    for model in ("epd2in13_V4", "epd4in2_V2"):
        bench_latency(args.touches, model)
    bench_restart(300)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (all of the above): {rss:.0f} MiB")


if __name__ == "__main__":
    main()
