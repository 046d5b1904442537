"""What an idle stand costs: CPU per idle minute of each shipped Pi build on its Pi
path (issue 33 item 5), the emulator's own work left out.

    .venv/bin/python bench/idle.py [--window 15] [--windows 5] [--python PATH]
                                   [--json bench/results.json] [--markdown BENCHMARKS.md]

Each build in turn: `keystand run --profile BUILD --emulate DIR` (the real drivers
over emulated hardware; no script, no page: a stand nobody touches) under the
watchdog the unit gives it (`WatchdogSec=` of systemd/keystand.service, pinged
to a notify socket of ours, as systemd would take it), until both seats' first
frames are in its shown log and both panels' threads have been quiet for
`QUIET_S`; then every thread's CPU time over `WINDOWS` idle windows in a row (the
figure is the median window's, the mean beside it), from the kernel's
per-thread scheduler figures (/proc/PID/task/TID/schedstat: time on a CPU in
nanoseconds, and how many times the thread ran). utime and stime in
/proc/PID/task/TID/stat count 10 ms clock ticks: far coarser than the few
milliseconds a minute the goal allows, so they are not used.

Whose threads: the launcher (`LAUNCH`) gives each thread, as it starts, its
Python name as its kernel name (prctl PR_SET_NAME), marked `emu:` when the code
it runs is the emulator's (`EMULATOR`'s modules: the emulated panels' BUSY
timers, the serial grid's board, the MPR121s' settling timers, the script
player). The emulated MPR121s answer the driver's I2C reads in the driver's own
thread: the time inside the fake bus's calls is counted per thread
(time.thread_time_ns) and moved from the stand to the emulator; on a Pi those
calls are ioctls to i2c-dev, whose kernel time the figure then leaves out (the
driver's reads per idle minute are given beside it). The stand's CPU a minute
times the Python reference's factor (bench/reference.py) is the estimate of a
Zero 2 W core's share; run alone, this script takes the factor from the
results file's last full run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import startup

from keystand.panel_worker import RefreshPolicy

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "keystand.service"

WINDOW_S = 15.0  # one of the watchdog's ping periods (15 s): each periodic wake counted whole
# Consecutive windows per build; the figure is the median window's. This machine is
# shared: another process's burst makes each of the stand's wake-ups cost more (a
# cold cache, a slower clock) without one wake-up more, and the median window is
# the one such a burst did not fall on. Every window holds the same periodic work
# (the windows' wake-ups are given beside it to show it), so the median drops no
# work of the stand's; the mean of all windows is given too.
WINDOWS = 5
WAKEUPS_GOAL = 0.5  # a second, the stand's threads together
# Both panels' threads idle this long: the first frames and what the refresh policy
# owes them in a quiet moment (after `quiet_after` seconds at most) are done.
QUIET_S = RefreshPolicy().quiet_after + 2.0
SHOWN_WITHIN_S = 180.0  # a start slower than this is a failure, not a figure
GOAL_PCT = 0.2  # of one Zero 2 W core

# The modules whose threads are the emulator's, not the stand's.
EMULATOR = (
    "keystand.drivers.display.emulator",
    "keystand.drivers.inputs.emulated",
    "keystand.drivers.inputs.mpr121_emu",
    "keystand.drivers.inputs.serialgrid_emu",
)
# The emulated I2C bus's calls, answered in the calling (driver's) thread.
FAKE_BUS = ("read_byte_data", "write_byte_data", "read_i2c_block_data", "write_i2c_block_data")

# `keystand run` as its console script starts it, with each thread named in the
# kernel as it starts, the fake bus's calls timed per thread, and SIGUSR1 writing
# those times (JSON, {native thread id: ns}) to the file named by argv[2].
LAUNCH = """
import ctypes, json, os, signal, sys, threading, time
emulator, out, bus = set(sys.argv[1].split(",")), sys.argv[2], sys.argv[3].split(",")
del sys.argv[1:4]
prctl = ctypes.CDLL(None).prctl
def name(text):
    prctl(15, text.encode()[:15], 0, 0, 0)  # PR_SET_NAME: this thread's kernel name
run = threading.Thread.run
def named(self):
    code = getattr(self, "_target", None) or getattr(self, "function", None)
    mark = "emu:" if getattr(code, "__module__", None) in emulator else ""
    name(mark + self.name)
    return run(self)
threading.Thread.run = named
name("MainThread")
inside = {}
from keystand.drivers.inputs import mpr121_emu
def timed(call):
    def bus_call(*args, **kwargs):
        started = time.thread_time_ns()
        try:
            return call(*args, **kwargs)
        finally:
            tid = threading.get_native_id()
            inside[tid] = inside.get(tid, 0) + time.thread_time_ns() - started
    return bus_call
for call in bus:
    setattr(mpr121_emu.FakeSMBus, call, timed(getattr(mpr121_emu.FakeSMBus, call)))
def dump(*_):
    with open(out + ".tmp", "w") as f:
        json.dump(inside, f)
    os.replace(out + ".tmp", out)
signal.signal(signal.SIGUSR1, dump)
from keystand.console import main
sys.argv[0] = "keystand"
sys.exit(main())
"""


def watchdog_usec() -> int:
    """The unit's WatchdogSec= in microseconds, as systemd hands it to the stand."""
    found = re.search(r"^WatchdogSec=(\d+)\s*$", UNIT.read_text(), re.M)
    if found is None:
        raise RuntimeError(f"{UNIT}: no WatchdogSec= line")
    return int(found.group(1)) * 1_000_000


def threads(pid: int) -> dict[int, tuple[str, int, int]]:
    """{thread id: (kernel name, ns on a CPU, wake-ups)} of process `pid`. A
    wake-up is a voluntary context switch: the thread waited (a lock, a timeout,
    a read) and ran again; the times the scheduler took the CPU from it are not."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        task = Path(f"/proc/{pid}/task/{tid}")
        try:
            name = (task / "comm").read_text().strip()
            ran = (task / "schedstat").read_text().split()
            status = (task / "status").read_text()
        except OSError:  # it ended meanwhile
            continue
        woke = re.search(r"^voluntary_ctxt_switches:\s*(\d+)", status, re.M)
        out[int(tid)] = (name, int(ran[0]), int(woke.group(1)) if woke else 0)
    return out


def _bus_ns(pid: int, out: Path) -> dict[int, int]:
    """The fake bus's time per thread so far: SIGUSR1, then its file."""
    out.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while not out.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("the stand did not say its emulated bus's time (SIGUSR1)")
        time.sleep(0.05)
    return {int(k): v for k, v in json.loads(out.read_text()).items()}


def _shown_both(shown: Path) -> bool:
    seats = {line.split()[0] for line in shown.read_text().splitlines() if line.strip()}
    return {"A", "B"} <= seats


def _settle(pid: int, shown: Path, process: subprocess.Popen[bytes], quiet: float) -> float:
    """Wait for both first frames, then for the panels' threads to be quiet for
    `quiet` seconds; the seconds from the start."""
    started = time.monotonic()
    while not (shown.exists() and _shown_both(shown)):
        if process.poll() is not None:
            raise RuntimeError(f"the stand ended before its first frames ({process.returncode})")
        if time.monotonic() - started > SHOWN_WITHIN_S:
            raise RuntimeError(f"no two first frames within {SHOWN_WITHIN_S:g} s")
        time.sleep(0.1)
    while True:
        before = threads(pid)
        time.sleep(quiet)
        after = threads(pid)
        panels = [t for t, (name, _, _) in after.items() if name.startswith("panel-")]
        if all(t in before and after[t][1] == before[t][1] for t in panels):
            return time.monotonic() - started
        if time.monotonic() - started > SHOWN_WITHIN_S:
            raise RuntimeError("the panels did not settle")


def idle_minute(
    python: Path, build: str, window: float, windows: int = WINDOWS, quiet: float = QUIET_S
) -> dict[str, Any]:
    """One build's stand at rest for `windows` windows of `window` seconds in a row:
    its threads' CPU per idle minute and how often they ran, the emulator's apart;
    the median window's figures, every window's CPU and wake-ups beside them."""
    with (
        tempfile.TemporaryDirectory() as folder,
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as notify,
    ):
        notify.bind(folder + "/notify")
        notify.setblocking(False)
        shown, bus_file = Path(folder) / "shown", Path(folder) / "bus.json"
        env = {**os.environ, "NOTIFY_SOCKET": folder + "/notify"}
        env["WATCHDOG_USEC"] = str(watchdog_usec())
        args = [str(python), "-c", LAUNCH, ",".join(EMULATOR), str(bus_file), ",".join(FAKE_BUS)]
        args += ["run", "--profile", build, "--emulate", folder + "/out"]
        args += ["--state-dir", folder + "/s", "--no-page", "--shown-log", str(shown)]
        process = subprocess.Popen(
            args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            settled = _settle(process.pid, shown, process, quiet)
            measured = [_window(process.pid, bus_file, window) for _ in range(windows)]
            pings = _pings(notify)
        finally:
            process.kill()  # the stop's blanking is not what is measured
            process.wait()
    return {**median_window(measured), "watchdog_pings": pings, "settled_s": round(settled, 1)}


def _window(pid: int, bus_file: Path, window: float) -> dict[str, Any]:
    """The stand's figures over one window of `window` seconds at rest."""
    bus_before = _bus_ns(pid, bus_file)
    before = threads(pid)
    time.sleep(window)
    after = threads(pid)
    return _figures(before, after, bus_before, _bus_ns(pid, bus_file), window)


def median_window(windows: list[dict[str, Any]]) -> dict[str, Any]:
    """The median window's figures (by the stand's CPU; the upper of the two middle
    ones when they are even), each window's CPU and wake-ups, and their mean."""
    middle = sorted(windows, key=lambda w: w["cpu_ms_per_min"])[len(windows) // 2]
    cpu = [w["cpu_ms_per_min"] for w in windows]
    return {
        **middle,
        "windows": len(windows),
        "windows_cpu_ms_per_min": cpu,
        "windows_wakeups_per_s": [w["wakeups_per_s"] for w in windows],
        "mean_cpu_ms_per_min": round(sum(cpu) / len(cpu), 3),
    }


def _pings(notify: socket.socket) -> int:
    count = 0
    while True:
        try:
            count += notify.recv(4096).count(b"WATCHDOG=1")
        except BlockingIOError:
            return count


def _figures(
    before: dict[int, tuple[str, int, int]],
    after: dict[int, tuple[str, int, int]],
    bus_before: dict[int, int],
    bus_after: dict[int, int],
    window: float,
) -> dict[str, Any]:
    per_minute = 60.0 / window
    stand_ns = emu_ns = 0
    runs = 0
    own: dict[str, dict[str, float]] = {}
    for tid, (name, ns, ran) in after.items():
        _, ns0, ran0 = before.get(tid, (name, 0, 0))
        spent, woke = ns - ns0, ran - ran0
        bus = bus_after.get(tid, 0) - bus_before.get(tid, 0)
        if name.startswith("emu:"):
            emu_ns += spent
            continue
        stand_ns += spent - bus
        emu_ns += bus
        runs += woke
        key = name if name not in own else f"{name} ({tid})"
        own[key] = {
            "cpu_ms_per_min": round((spent - bus) / 1e6 * per_minute, 3),
            "wakeups_per_s": round(woke / window, 2),
        }
    return {
        "cpu_ms_per_min": round(stand_ns / 1e6 * per_minute, 3),
        "wakeups_per_s": round(runs / window, 2),
        "emulator_cpu_ms_per_min": round(emu_ns / 1e6 * per_minute, 1),
        "threads": own,
    }


def idle(
    python: Path, window: float, windows: int = WINDOWS, quiet: float = QUIET_S
) -> dict[str, Any]:
    """Every shipped Pi build at rest (`startup.pi_builds`), `windows` windows of
    `window` seconds each once its panels have been quiet for `quiet` (less only for
    the tests' run)."""
    builds = {}
    for build in startup.pi_builds():
        print(f"bench: {build} at rest for {windows} x {window:g} s ...", file=sys.stderr)
        builds[build] = idle_minute(python, build, window, windows, quiet)
    return {
        "installed": "from its source, not editable",
        "window_s": window,
        "windows": windows,
        "wakeups_goal_per_s": WAKEUPS_GOAL,
        "quiet_s": quiet,
        "watchdog_s": watchdog_usec() / 1e6,
        "goal_pct": GOAL_PCT,
        "builds": builds,
    }


def zero2w_pct(cpu_ms_per_min: float, slower: float) -> float:
    """A Zero 2 W core's share, in %, of `cpu_ms_per_min` here times `slower`."""
    return cpu_ms_per_min * slower / 60_000 * 100


def main(argv: list[str] | None = None) -> int:
    """This part alone: its figures merged into the results file, the goals and
    BENCHMARKS.md written again from it (as `make bench` writes them)."""
    import report

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--window", type=float, default=WINDOW_S, help="seconds per idle window")
    ap.add_argument("--windows", type=int, default=WINDOWS, help="idle windows per build")
    ap.add_argument("--python", type=Path, help="an installed venv's python (default: a fresh one)")
    ap.add_argument("--markdown", type=Path, default=ROOT / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    args = ap.parse_args(argv)
    results = json.loads(args.json.read_text())
    if args.python is not None:
        results["idle"] = idle(args.python, args.window, args.windows)
        results["idle"]["installed"] = f"the venv of {args.python}"
    else:
        print("bench: keystand installed from its source into a fresh venv ...", file=sys.stderr)
        with tempfile.TemporaryDirectory() as folder:
            python = startup.installed_python(Path(folder))
            results["idle"] = idle(python, args.window, args.windows)
    given = argv if argv is not None else sys.argv[1:]
    results["idle"]["command"] = shlex.join([".venv/bin/python", "bench/idle.py", *given])
    results["goals"] = report.goals(results)
    args.json.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n")
    args.markdown.write_text(report.markdown(results))
    print(f"bench: {args.markdown} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
