"""How much slower a Raspberry Pi Zero 2 W is than this machine, from a CPU
reference measured here and the same reference's published figure for a Pi.

Two references, each compared with its own published figure:

- sysbench 1.0's CPU test, one thread (primes up to 10,000), when sysbench is
  installed (`make bench` installs Debian's as root);
- a fixed Python workload it can always run: one pass is the pass of Alex
  Dedyura's "Python CPU Benchmark" (github.com/alexdedyura/cpu-benchmark),
  999 products of pi by a power of two, then 2 x 9,999 float divisions.

The estimate uses the Python workload (`used`): keystand is Python, and on the
in-order Cortex-A53 Python loses more than a C prime sieve does (sysbench said
8.8x here on a quiet machine, 4.8x on a loaded one, where the Python workload
said about 17x: issue 33). sysbench's figure is kept beside it. Both Pi figures
are for the Pi 3 B+, whose Cortex-A53 cores the Zero 2 W has at 1.0 GHz instead of
1.4 GHz: its figure is scaled by the clock.
Standard library only (the tests load it on its own).
"""

from __future__ import annotations

import re
import shutil
import statistics
import subprocess
import time
from typing import Any

# Published: sysbench 1.0.20 `cpu --threads=1` on a Raspberry Pi 3 Model B+,
# 687.45 events/s (leoncode.co.uk, "Raspberry Pi CPU Benchmarks").
PI3BPLUS_EVENTS = 687.45
A53_CLOCK = 1.0 / 1.4  # the Zero 2 W's clock over the Pi 3 B+'s, the same cores
ZERO2W_EVENTS = PI3BPLUS_EVENTS * A53_CLOCK

# Published: the Python workload's 10,000 passes took 245 s on average on a
# Raspberry Pi 3 Model B+ under CPython 3.11.2 (Linux 6.6.20+rpt-rpi-v8), a
# user's run in github.com/alexdedyura/cpu-benchmark issue 20 ("Benchmark
# review", 2024-04-20); the loops are the same since 2021, run at module level
# in the script of that date (`PASS` below). The project README's Raspberry Pi 4
# figure is 79.216 s (Ubuntu 22.04.3): 3.1x the 3 B+'s speed, where sysbench's
# figures say 2.15x.
PI3BPLUS_PASS_MS = 245e3 / 10_000
ZERO2W_PASS_MS = PI3BPLUS_PASS_MS / A53_CLOCK
PYTHON_SOURCE = (
    "github.com/alexdedyura/cpu-benchmark issue 20: a Pi 3 B+, CPython 3.11.2, "
    "245 s for 10,000 passes"
)


def sysbench_events(seconds: int = 10) -> float | None:
    """sysbench's CPU test on one thread for `seconds`, events per second; None
    when sysbench is not installed."""
    sysbench = shutil.which("sysbench")
    if sysbench is None:
        return None
    done = subprocess.run(
        [sysbench, "cpu", "--threads=1", f"--time={seconds}", "run"],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"events per second:\s*([0-9.]+)", done.stdout)
    return float(found.group(1)) if found else None


# One pass of the workload as the published run had it (cpu-benchmark.py at
# commit 1d19ded, 2024-03-30, the version of the date): at module level,
# so every `x` is a global name. The same loops in a function, with `x` a local,
# run about 1.6x faster here, which would make the Pi look that much slower.
PASS = """
for x in range(1,1000):
  3.141592 * 2**x
for x in range(1,10000):
  float(x) / 3.141592
for x in range(1,10000):
  float(3.141592) / x
"""
PASS_CODE = compile(PASS, "cpu-benchmark.py", "exec")


def one_pass() -> None:
    """One pass of the published Python workload, run as module-level code (its
    results are thrown away there too: only the time counts)."""
    exec(PASS_CODE, {})


def python_pass_ms(passes: int = 200) -> float:
    """The median time of one pass of the Python workload here, in ms."""
    times = []
    for _ in range(passes):
        started = time.perf_counter()
        one_pass()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1e3, 3)


def zero2w_touch(models: dict[str, Any], slower: float) -> dict[str, float]:
    """Touch to visible at p99 on a Pi Zero 2 W, per panel: the software part here
    times how much slower that board is, plus the panel's own part (its refresh
    and the queue in front of it, the same on any host)."""
    return {
        model: round(m["panel_and_queue"]["p99_ms"] + m["software"]["p99_ms"] * slower, 1)
        for model, m in models.items()
    }


def cpu_reference(events: float | None, pass_ms: float, models: dict[str, Any]) -> dict[str, Any]:
    """Both references' figures, and the Zero 2 W's estimate from the Python
    workload's; sysbench's (`events`, when it ran) beside it."""
    by_sysbench = round(events / ZERO2W_EVENTS, 1) if events else None
    by_python = round(ZERO2W_PASS_MS / pass_ms, 1)
    slower = by_python
    return {
        "used": "python",
        "sysbench_events_per_s": events,
        "pi3bplus_published": PI3BPLUS_EVENTS,
        "zero2w_estimated": round(ZERO2W_EVENTS, 1),
        "slower_by_sysbench": by_sysbench,
        "sysbench_touch_to_visible_p99_ms": (
            zero2w_touch(models, by_sysbench) if by_sysbench is not None else None
        ),
        "python_workload": {
            "pass_ms": pass_ms,
            "pi3bplus_published_pass_ms": PI3BPLUS_PASS_MS,
            "zero2w_estimated_pass_ms": round(ZERO2W_PASS_MS, 2),
            "published": PYTHON_SOURCE,
            "slower_on_zero2w": by_python,
            "zero2w_touch_to_visible_p99_ms": zero2w_touch(models, by_python),
        },
        "slower_on_zero2w": slower,
        "zero2w_touch_to_visible_p99_ms": zero2w_touch(models, slower),
    }
