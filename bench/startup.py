"""Start-up, imports and memory, each from a fresh process.

- cold start: `keystand run` from the process's exec to the first frame handed
  to a panel's worker (the stand booted, both screens rendered);
- import time: `python -X importtime` of what `keystand run` loads;
- peak resident memory of `keystand run` playing a whole game.
"""

from __future__ import annotations

import compileall
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "tests" / "golden" / "scripts" / "won.txt"  # a whole game, won

# Runs `keystand run` as the console script (keystand.console) does, the
# collector off from its first import, and leaves (os._exit) when the first frame
# is handed to a worker (the moment the loop's work for it is done): exec to exit,
# the endpoint its floor is timed to as well (issue 33: the floor was timed to
# its exit, the run to an in-process mark). The worker is patched before the
# console script is called, so the collector is turned off here, as it does.
FIRST_FRAME = """
import gc, os, sys
gc.disable()
from keystand import panel_worker
def first(self, *args, **kwargs):
    os._exit(0)
panel_worker.PanelWorker.show = first
from keystand.console import main
sys.argv[0] = "keystand"
sys.exit(main())
"""


def _run_args(state_dir: str) -> list[str]:
    return ["run", "--profile", "desktop", "--speed", "0", "--state-dir", state_dir]


def first_frame_ms() -> float:
    """Wall time from exec to the first frame handed to a panel (a new stand)."""
    with tempfile.TemporaryDirectory() as state_dir:
        script = Path(state_dir) / "idle.txt"
        script.write_text("wait 100\n")
        args = [sys.executable, "-c", FIRST_FRAME, *_run_args(state_dir + "/s")]
        started = time.perf_counter()
        done = subprocess.run(
            [*args, "--script", str(script)], capture_output=True, text=True, timeout=120
        )
        took = (time.perf_counter() - started) * 1e3
        if done.returncode != 0:
            raise RuntimeError(f"keystand run showed no frame: {done.stderr[-500:]}")
        return took


# The Pi's start path (issue 33): `keystand run` with a shipped Pi profile, its
# real drivers (the vendor's files checked and loaded, our HAL, MockFactory pins)
# over `--emulate`'s controllers, until the last seat's first frame is handed to
# its worker: both boot frames ready. It leaves there (os._exit), so the time is
# exec to exit, the same endpoint as a floor's.
BOTH_FRAMES = """
import gc, os, sys
gc.disable()  # as keystand.console does first (see FIRST_FRAME)
from keystand import panel_worker
show = panel_worker.PanelWorker.show
seats = set()
def first(self, *args, **kwargs):
    seats.add(id(self))
    if len(seats) == 2:
        os._exit(0)
    return show(self, *args, **kwargs)
panel_worker.PanelWorker.show = first
from keystand.console import main
sys.argv[0] = "keystand"
sys.exit(main())
"""


def pi_builds() -> list[str]:
    """The shipped profiles that drive real panels: each a build for the Pi."""
    from keystand.profile import load, shipped

    return sorted(name for name in shipped() if load(name).stand.driver == "waveshare")


# What a copy of the source leaves out: the checkout's venv, git, caches and build
# outputs (pip builds in the tree it is given, and a build/ from before a change
# keeps the files the change deleted).
NOT_SOURCE = (".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")


def source_copy(folder: Path) -> Path:
    """The source as a fresh clone has it, in `folder`/src, to build from."""
    src = folder / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE, ".hypothesis"))
    return src


def installed_python(folder: Path) -> Path:
    """A venv with keystand installed as systemd/install.sh installs it (built from
    the source, not editable, bytecode compiled by pip; the vendor's package
    --no-deps at the Makefile's pin), with pyserial but not the rest of the `pi`
    extra (spidev, lgpio, smbus2: the emulator stands in for them). Its python."""
    venv = folder / "venv"
    pin = re.search(r"^WAVESHARE := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    if pin is None:
        raise RuntimeError("Makefile: no WAVESHARE := line")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    # pyserial: the emulated serial grid talks over a real pty, as the Pi's does
    # over USB (the `pi` extra has it; the rest of that extra is the Pi's own).
    constraints = ["-c", str(ROOT / "constraints.txt")]
    src = source_copy(folder)
    subprocess.run([*pip, *constraints, str(src), "pyserial>=3.5,<4"], check=True)
    subprocess.run([*pip, "--no-deps", pin.group(1)], check=True)
    return venv / "bin" / "python"


def pi_start(python: Path, build: str) -> tuple[float, float]:
    """`keystand run --profile BUILD --emulate` from exec to both first frames
    handed, with `python` (an installed venv's), on a fresh state dir (a new
    stand): its wall time and the process's own CPU time (user and system, all
    its threads), ms. The CPU is what a slower CPU scales, where the wall time
    here also holds the waits for this shared machine's other work."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "idle.txt"
        script.write_text("wait 100\n")
        args = [str(python), "-c", BOTH_FRAMES, "run", "--profile", build]
        args += ["--emulate", folder + "/out", "--state-dir", folder + "/s"]
        args += ["--script", str(script), "--speed", "0", "--no-page"]
        started = time.perf_counter()
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert process.stderr is not None
        errors = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        took = (time.perf_counter() - started) * 1e3
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"{build}: no two first frames: {errors[-500:]!r}")
        return took, (usage.ru_utime + usage.ru_stime) * 1e3


# The Pi path's floor, with the same Python: the interpreter alone, then the
# libraries no first frame there does without (Pillow draws it, gpiozero drives
# the panels' pins; gpiozero's own modules import importlib.metadata, and with it
# email and zipfile, whatever pin factory is passed).
PI_FLOORS = {
    "python": "pass",
    "pillow": "import PIL.Image",
    "pillow_gpiozero": "import PIL.Image, gpiozero",
}


def _cpu_ms(args: list[str]) -> float:
    """The CPU time (user and system) of `args` run to its end."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args}: exit status {os.waitstatus_to_exitcode(status)}")
    return (usage.ru_utime + usage.ru_stime) * 1e3


def pi_starts(python: Path, installed: str, runs: int) -> dict[str, Any]:
    """Every shipped Pi build's start on its Pi path (`pi_start`), how keystand
    was installed, and the path's floor (CPU ms): medians of `runs` rounds, each
    round running every floor and every build in turn, so the machine's other
    work falls on a start and its floor alike (the goal we would set is their
    ratio; run one after the other, they met different loads)."""
    builds = pi_builds()
    walls: dict[str, list[float]] = {build: [] for build in builds}
    cpus: dict[str, list[float]] = {build: [] for build in builds}
    floors: dict[str, list[float]] = {name: [] for name in PI_FLOORS}
    for _ in range(runs):
        for name, code in PI_FLOORS.items():
            floors[name].append(_cpu_ms([str(python), "-c", code]))
        for build in builds:
            wall, cpu = pi_start(python, build)
            walls[build].append(wall)
            cpus[build].append(cpu)
    return {
        "installed": installed,
        "builds": {
            build: {
                "ms": round(_median(walls[build]), 1),
                "cpu_ms": round(_median(cpus[build]), 1),
                "runs_ms": [round(t, 1) for t in walls[build]],
            }
            for build in builds
        },
        "floor_cpu_ms": {name: round(_median(times), 1) for name, times in floors.items()},
    }


# The same start, counting what it builds before the first frame: the dataclasses
# it creates (CPython 3.11 compiles each one's methods at import: __init__,
# __repr__, __eq__, __hash__, and __setattr__/__delattr__ for a frozen one) and
# keystand's own modules. Timing the decorator adds a little to each class.
FIRST_FRAME_COST = """
import dataclasses, json, os, sys, time
spent = [0.0, 0]
process = dataclasses._process_class
def timed(*args, **kwargs):
    started = time.perf_counter()
    try:
        return process(*args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - started
        spent[1] += 1
dataclasses._process_class = timed
from keystand import panel_worker
def first(self, *args, **kwargs):
    ours = [m for m in sys.modules if m == "keystand" or m.startswith("keystand.")]
    print(json.dumps({"dataclasses": spent[1], "dataclass_ms": round(spent[0] * 1e3, 1),
                      "keystand_modules": len(ours), "modules": len(sys.modules)}), flush=True)
    os._exit(0)
panel_worker.PanelWorker.show = first
from keystand.cli import main
sys.exit(main(sys.argv[1:]))
"""


def first_frame_cost(runs: int = 5) -> dict[str, float]:
    """What `keystand run` builds before its first frame (median of the runs'
    decorator time; the counts are the same every run)."""
    found = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as state_dir:
            script = Path(state_dir) / "idle.txt"
            script.write_text("wait 100\n")
            args = [*_run_args(state_dir + "/s"), "--script", str(script)]
            done = subprocess.run(
                [sys.executable, "-c", FIRST_FRAME_COST, *args],
                capture_output=True,
                text=True,
                timeout=120,
            )
            if not done.stdout:
                raise RuntimeError(f"keystand run showed no frame: {done.stderr[-500:]}")
            found.append(json.loads(done.stdout.splitlines()[-1]))
    out = dict(found[0])
    out["dataclass_ms"] = sorted(f["dataclass_ms"] for f in found)[len(found) // 2]
    return out


def peak_rss_mb() -> float:
    """Peak resident memory of `keystand run` playing a whole recorded game."""
    keystand = Path(sys.executable).with_name("keystand")
    with tempfile.TemporaryDirectory() as state_dir:
        kib, code = _peak_kib([str(keystand), *_run_args(state_dir), "--script", str(GAME)])
        if code != 0:
            raise RuntimeError(f"keystand run {GAME.name} ended with {code}")
        return kib / 1024


# A process's peak (ru_maxrss) counts the memory of the one it was forked from,
# up to its exec (Linux keeps the larger of the two), and the bench's own grows:
# a fresh Python (a few MB) starts the command and reports its one child's peak.
_LAUNCH = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(min(abs(os.waitstatus_to_exitcode(status)), 255))
"""


def _peak_kib(argv: list[str]) -> tuple[int, int]:
    """The peak resident memory (KiB, Linux) of `argv` run to its end, and its
    exit status; its output thrown away."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "maxrss"
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCH, str(out), *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return int(out.read_text()), done.returncode


# The worst script the cap lets in (cliutil.SCRIPT_CAP): `wait 0` over and over,
# the most steps a script can hold (issue 35: 515 MB when each line was parsed
# at once; a 512 MB Pi Zero 2 W's out-of-memory killer).
WORST_LINE = b"wait 0\n"


def worst_script_rss_mb(size: int) -> float:
    """Peak resident memory of `keystand run` playing a script of `size` bytes of
    `wait 0` lines to its end (the cap, 16 MiB, for the figure; less for --tiny)."""
    keystand = Path(sys.executable).with_name("keystand")
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "worst.txt"
        script.write_bytes(WORST_LINE * (size // len(WORST_LINE)))
        kib, code = _peak_kib(
            [str(keystand), *_run_args(folder + "/s"), "--no-page", "--script", str(script)]
        )
        if code != 0:
            raise RuntimeError(f"keystand run of the worst script ended with {code}")
        return kib / 1024


def import_ms() -> dict[str, float]:
    """Cumulative import time of the modules `keystand run` loads, from `-X importtime`."""
    modules = ("keystand.cli", "keystand.service", "keystand.screens", "keystand.drivers.factory")
    code = "; ".join(f"import {m}" for m in modules)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, float] = {}
    total = 0.0
    for line in done.stderr.splitlines():
        parts = [p.strip() for p in line.removeprefix("import time:").split("|")]
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        cumulative, name = int(parts[1]) / 1e3, parts[2]
        if not name.startswith(" ") and not line.split("|")[2].startswith("  "):
            total += cumulative  # a top-level import: the sum is the whole start
        if name in modules:
            found[name] = cumulative
    found["all"] = total
    return found


# Cold start against its floor (issue 23): each command's wall time from exec to
# exit (`run`: to its first frame), beside a Python process doing only the same
# work through the library. The ratio is the command line's own overhead: the
# imports the job does not need, argparse, the stand around it. Ratios travel
# between machines; milliseconds do not.
CODE = "YAKM-S9ED-D1RD"  # the goldens' card
WORK = {
    # `keystand run`'s essential work: Pillow, one frame of the panel's size (the
    # desktop profile's 2.7", 264 x 176) drawn to a 1-bit image.
    "run": (
        "from PIL import Image, ImageDraw\n"
        "im = Image.new('1', (264, 176), 1)\n"
        "d = ImageDraw.Draw(im)\n"
        "d.rectangle((2, 2, 150, 150), outline=0)\n"
        "d.text((160, 10), 'You guess', fill=0)\n"
        "im.tobytes()\n"
    ),
    "card new": (
        "from keystand import games\n"
        "game = games.get('duet')\n"
        "print(games.key_card_text(game, game.generate(7)))\n"
    ),
    "play": (
        "import json\n"
        "from keystand import games\n"
        "game = games.get('duet')\n"
        f"state = game.start(game.card_from_code({CODE!r}), games.Options())\n"
        f"for step in game.script(open({str(GAME)!r}, 'rb').read()):\n"
        "    state, _ = state.apply(step.event)\n"
        "print(json.dumps(game.summary(state, [])))\n"
    ),
}
COMMANDS = {
    "card new": ["card", "new", "--seed", "7"],
    "play": ["play", "--card-code", CODE, "--script", str(GAME), "--json"],
}
# What `card new` and `play` must not load (tests/test_cold_start.py checks it).
HEAVY = ("PIL", "gpiozero", "lgpio", "spidev", "smbus2", "serial", "keystand.layouts")


def compile_bytecode() -> None:
    """keystand's modules compiled to bytecode, as pip's install leaves them: a
    shell with PYTHONDONTWRITEBYTECODE set (as here) would otherwise time the
    compiler at every start (found by a helper's run of the bench)."""
    for folder in ("firmware_host", "drivers", "layouts"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def _wall_ms(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1e3


def _median(times: list[float]) -> float:
    return sorted(times)[len(times) // 2]


def cold_starts(runs: int = 9) -> dict[str, dict[str, Any]]:
    """Each command's time, its floor's and the ratio (`run`: to its first frame,
    against Pillow's floor), and bare `python -c pass`'s beside them: medians of
    `runs` rounds, each round timing every one of them in turn, so the machine's
    other work falls on a command and its floor alike."""
    keystand = str(Path(sys.executable).with_name("keystand"))
    bare: list[float] = []
    floors: dict[str, list[float]] = {name: [] for name in WORK}
    took: dict[str, list[float]] = {name: [] for name in WORK}
    for _ in range(runs):
        bare.append(_wall_ms([sys.executable, "-c", "pass"]))
        for name, work in WORK.items():
            floors[name].append(_wall_ms([sys.executable, "-c", work]))
            ours = first_frame_ms() if name == "run" else _wall_ms([keystand, *COMMANDS[name]])
            took[name].append(ours)
    out: dict[str, dict[str, Any]] = {}
    for name in WORK:
        ms, floor = round(_median(took[name]), 1), round(_median(floors[name]), 1)
        out[name] = {
            "ms": ms,
            "floor_ms": floor,
            "python_ms": round(_median(bare), 1),
            "ratio": round(ms / floor, 2),
            "runs_ms": [round(t, 1) for t in took[name]],
        }
    return out
