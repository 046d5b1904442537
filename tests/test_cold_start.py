"""`keystand card new` and `keystand play` load nothing they do not need: no
Pillow, no GPIO or bus library, no layouts (bench/startup.py measures how long
they take against a Python process doing the same work; the modules a command
loads are a count, and asserted here)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import startup  # noqa: E402

from keystand import inputkinds  # noqa: E402
from keystand.profile import load as load_profile  # noqa: E402

PROBE = """
import io, json, sys, contextlib
from keystand.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({args!r})
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}))
"""


def modules_after(args: list[str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    found = json.loads(done.stdout)
    assert found["code"] == 0, done.stderr
    return set(found["modules"])


@pytest.mark.parametrize("command", sorted(startup.COMMANDS))
def test_a_plain_command_loads_no_pillow_no_hardware_and_no_other_command(command: str) -> None:
    loaded = modules_after(startup.COMMANDS[command])
    heavy = sorted(m for m in loaded if m.split(".")[0] in startup.HEAVY or m in startup.HEAVY)
    heavy += sorted(
        m for m in loaded if m.startswith(("keystand.layouts", "keystand.drivers.display"))
    )
    assert heavy == [], f"keystand {command} loads {heavy}"
    # Nor the modules of the other subcommands (the service, the doctor, the renderer).
    others = {"keystand.run", "keystand.doctor", "keystand.render", "keystand.service"}
    assert loaded & others == set(), f"keystand {command} loads {sorted(loaded & others)}"


def test_the_floors_do_the_commands_work() -> None:
    """Each floor prints what its command prints: the ratio compares like with like."""
    keystand = str(Path(sys.executable).with_name("keystand"))
    for name, args in startup.COMMANDS.items():
        ours = subprocess.run([keystand, *args], capture_output=True, text=True, check=True)
        floor = subprocess.run(
            [sys.executable, "-c", startup.WORK[name]], capture_output=True, text=True, check=True
        )
        if name == "play":
            assert json.loads(ours.stdout) == json.loads(floor.stdout)
        else:
            assert ours.stdout == floor.stdout


# What `keystand run` has loaded when it hands its first frame to a panel (a new
# stand on the desktop profile, not under systemd). Each of these cost a cold
# start milliseconds for nothing the first frame needs (BENCHMARKS.md, "Render, start-up, memory").
FIRST_FRAME_PROBE = """
import json, os, sys
from keystand import panel_worker
def first(self, *args, **kwargs):
    print(json.dumps(sorted(sys.modules)), flush=True)
    os._exit(0)
panel_worker.PanelWorker.show = first
from keystand.cli import main
sys.exit(main({args!r}))
"""
NOT_BEFORE_THE_FIRST_FRAME = (
    "secrets",  # hmac and OpenSSL's hashlib, for one random number
    "uuid",  # platform, for one random game id
    "zipfile",  # importlib.resources, for a folder that is never zipped
    "importlib.resources",
    "socket",  # systemd's notify socket, when there is none
    "keystand.layouts.menu",  # screens a stand does not start on
    "keystand.layouts.end",
    "keystand.layouts.classic",
    "keystand.layouts.classic_view",
    "keystand.layouts.neutral",  # the stop's picture: drawn once the frames are handed
    "keystand.doctor",
    "keystand.render",
)


def probed(probe: str, args: list[str], tmp_path: Path) -> Any:
    """What `probe` (a program run with keystand's `args`, an idle script and a
    state dir of its own added) prints last, as JSON."""
    script = tmp_path / "idle.txt"
    script.write_text("wait 100\n")
    args = [*args, "--state-dir", str(tmp_path / "s"), "--script", str(script)]
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    done = subprocess.run(
        [sys.executable, "-c", probe.format(args=args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_run_hands_its_first_frame_before_loading_what_that_frame_does_not_need(
    tmp_path: Path,
) -> None:
    args = ["run", "--profile", "desktop", "--speed", "0"]
    loaded = set(probed(FIRST_FRAME_PROBE, args, tmp_path))
    assert "keystand.layouts.play" in loaded  # the probe saw the game's first frame
    early = sorted(loaded & set(NOT_BEFORE_THE_FIRST_FRAME))
    assert early == [], f"keystand run loads {early} before its first frame"


# The Pi's start path (issue 33): the minimal build's real drivers over --emulate,
# to both seats' first frames, counting the vendor files' whole checks (the
# distribution's RECORD, hashlib) and their compilations.
PI_PATH_PROBE = """
import json, os, sys
from pathlib import Path
from keystand import panel_worker
from keystand.drivers.display import waveshare
waveshare.CHECKED = Path({checked!r})
whole = waveshare.check_vendor_file
checks = []
def counted(model):
    checks.append(model)
    return whole(model)
waveshare.check_vendor_file = counted
seats = set()
def first(self, *args, **kwargs):
    seats.add(id(self))
    if len(seats) == 2:
        print(json.dumps({{"checks": checks, "hashlib": "hashlib" in sys.modules,
                          "compiled": waveshare._vendor_code.cache_info().misses}}), flush=True)
        os._exit(0)
panel_worker.PanelWorker.show = first
from keystand.cli import main
sys.exit(main({args!r}))
"""


def test_the_pi_path_checks_the_vendor_files_once_per_install(tmp_path: Path) -> None:
    script = tmp_path / "idle.txt"
    script.write_text("wait 100\n")
    found = []
    for start in ("first", "next"):
        args = ["run", "--profile", "minimal", "--emulate", str(tmp_path / start), "--no-page"]
        args += ["--speed", "0", "--state-dir", str(tmp_path / start / "s")]
        args += ["--script", str(script)]
        probe = PI_PATH_PROBE.format(args=args, checked=str(tmp_path / "checked.json"))
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120
        )
        assert done.stdout, done.stderr
        found.append(json.loads(done.stdout.splitlines()[-1]))
    # Two 2.7" panels: the file checked whole once at the first start, then
    # remembered; its code made once per process for both seats.
    assert found[0]["checks"] == ["epd2in7_V2"]
    assert found[1] == {"checks": [], "hashlib": False, "compiled": 1}


# The cyclic collector during `keystand run`'s start (issue 33): off while the
# plan and the build make what the stand keeps for its life, those then frozen
# (no later pass walks them) and the collector on again before the first frame.
GC_PROBE = """
import gc, json, os, sys
from keystand import panel_worker, run, run_plan
stage = ["before"]
passes = []
gc.callbacks.append(lambda phase, info: phase == "start" and passes.append(stage[0]))
make = run_plan.make
def making(*args, **kwargs):
    stage[0] = "plan and build"
    return make(*args, **kwargs)
run_plan.make = making
build = run.build
def building(*args, **kwargs):
    built = build(*args, **kwargs)
    stage[0] = "after"
    return built
run.build = building
show = panel_worker.PanelWorker.show
seats = set()
def first(self, *args, **kwargs):
    seats.add(id(self))
    if len(seats) == 2:
        print(json.dumps({{"passes": passes, "enabled": gc.isenabled(),
                          "frozen": gc.get_freeze_count()}}), flush=True)
        os._exit(0)
    return show(self, *args, **kwargs)
panel_worker.PanelWorker.show = first
from keystand.cli import main
sys.exit(main({args!r}))
"""


def test_run_builds_its_stand_with_no_collector_pass_then_freezes_it(tmp_path: Path) -> None:
    args = ["run", "--profile", "minimal", "--emulate", str(tmp_path / "out"), "--no-page"]
    args += ["--speed", "0"]
    found = probed(GC_PROBE, args, tmp_path)
    assert "plan and build" not in found["passes"], found["passes"]
    assert found["enabled"] is True
    assert found["frozen"] > 10_000  # the modules, classes and the stand built


# The console script (keystand.console) loads the command line and the command's
# modules with the collector off; what they made is frozen once the command is
# parsed, and the collector on again. A pass before the freeze would walk them all.
CONSOLE_GC_PROBE = """
import contextlib, gc, io, json, sys
from keystand import console
passes = []
def seen(phase, info):
    if phase == "start":
        passes.append(gc.get_freeze_count())
sys.argv = ["keystand", *{args!r}]
with contextlib.redirect_stdout(io.StringIO()):
    gc.collect()  # the probe's own young objects gone: a pass now would be the console's
    gc.callbacks.append(seen)
    code = console.main()
print(json.dumps({{"code": code, "passes": passes, "enabled": gc.isenabled(),
                  "frozen": gc.get_freeze_count()}}))
"""


@pytest.mark.parametrize("args", [["card", "new", "--seed", "7"], ["render", "--help"]])
def test_the_console_script_loads_the_command_line_with_no_collector_pass(args) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE_GC_PROBE.format(args=args)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["code"] == 0, done.stderr
    assert found["enabled"] is True
    assert found["frozen"] > 5_000  # the modules and classes the command loaded
    before_the_freeze = [p for p in found["passes"] if p == 0]
    assert before_the_freeze == [], found["passes"]


def test_the_command_line_called_in_a_process_freezes_nothing() -> None:
    """Called with the collector on (a test, a program using keystand), main leaves
    it as it was: nothing frozen for the rest of that process."""
    import gc

    from keystand.cli import main

    assert main(["card", "new", "--seed", "7"], out=io.StringIO()) == 0
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_run_turns_the_collector_back_on_after_a_refused_start(tmp_path: Path) -> None:
    """A start refused in its plan (here a state dir that is a file) leaves the
    collector on and nothing frozen, for a caller in the same process."""
    import gc

    from keystand.cli import main

    state_dir = tmp_path / "not-a-dir"
    state_dir.write_text("")
    err = io.StringIO()
    code = main(["run", "--profile", "desktop", "--state-dir", str(state_dir)], err=err)
    assert code != 0, err.getvalue()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


# Every shipped Pi build's start path (the real drivers over --emulate), at both
# seats' first frames: what each has loaded, and whether keystand read any
# distribution's entry points (a scan of every installed one; only a game or input
# kind that is not shipped needs it). importlib.metadata itself is loaded there,
# and with it zipfile, importlib.resources and socket: gpiozero's own modules
# import it (gpiozero/devices.py), whatever pin factory is passed.
PI_MODULES_PROBE = """
import json, os, sys
from keystand import games, inputkinds, panel_worker
seats = set()
def first(self, *args, **kwargs):
    seats.add(id(self))
    if len(seats) == 2:
        scans = games._installed.cache_info().misses + inputkinds._installed.cache_info().misses
        print(json.dumps({{"modules": sorted(sys.modules), "scans": scans}}), flush=True)
        os._exit(0)
panel_worker.PanelWorker.show = first
from keystand.cli import main
sys.exit(main({args!r}))
"""
GPIOZEROS = ("zipfile", "importlib.resources", "socket")
NOT_ON_THE_PI_PATH = (
    *(m for m in NOT_BEFORE_THE_FIRST_FRAME if m not in GPIOZEROS),
    "keystand.drivers.display.sim",  # the desktop's PNG panel
    "keystand.profilecheck",  # the other subcommands' modules
    "keystand.campaign",
    "keystand.games.classic",  # the game not in play
    "keystand.rules.classic",
)


@pytest.mark.parametrize("build", startup.pi_builds())
def test_a_pi_builds_start_loads_only_what_its_first_frames_need(build, tmp_path) -> None:
    args = ["run", "--profile", build, "--emulate", str(tmp_path / "out"), "--no-page"]
    args += ["--speed", "0"]
    found = probed(PI_MODULES_PROBE, args, tmp_path)
    loaded = set(found["modules"])
    assert {"keystand.layouts.play", "keystand.drivers.display.waveshare"} <= loaded
    early = sorted(loaded & set(NOT_ON_THE_PI_PATH))
    assert early == [], f"{build}: loads {early} before both first frames"
    assert found["scans"] == 0, f"{build}: read the installed distributions' entry points"
    # The input kinds' modules: the ones the build lists, no other.
    listed = load_profile(build).input.kinds
    kinds = {m for m in loaded if m.startswith("keystand.inputkinds.")}
    assert kinds == {"keystand.inputkinds.base"} | {
        f"keystand.inputkinds.{inputkinds.SHIPPED[k]}" for k in listed
    }, build
    # The touch filter only where a grid is wired (minimal's keys never touch it).
    grid = any(kind.grid for kind, _ in load_profile(build).input.wired())
    assert ("keystand.drivers.inputs.touchfilter" in loaded) == grid, build


# -- the command line adds only itself ---------------------------------------------------
# (from the bench-floor helper's branch of issue 23)

GAME = ROOT / "tests" / "golden" / "scripts" / "won.txt"  # Duet's
CLASSIC = "clue blue 1\ntouch 0 0\n"  # a refusal if red starts: still played through

# First the command's own work alone (the game's modules, as the bench's floor
# imports them), then the command through `keystand`'s main: what each loaded.
WORK_THEN_COMMAND = """
import io, json, sys
from keystand import games
game = games.get(sys.argv[1])
card = game.generate(1)
if sys.argv[2] == "play":
    state = game.start(game.card_from_code(card.code))
    for step in game.script(open(sys.argv[3], "rb").read()):
        state, _ = state.apply(step.event)
work = set(sys.modules)
from keystand.cli import main
argv = json.loads(sys.argv[4]) + ["--game", sys.argv[1]]
code = main([a.replace("CODE", card.code) for a in argv], out=io.StringIO())
print(json.dumps({"code": code, "work": sorted(work), "all": sorted(sys.modules)}))
"""


def test_card_new_and_play_add_only_the_command_line_to_their_work(tmp_path: Path) -> None:
    """What `keystand card new` and `play` load beyond their own work (Duet's and
    classic's, with and without --json): keystand.cli, keystand.cliutil and the
    standard library's argparse and what it loads, nothing else."""
    classic = tmp_path / "classic.txt"
    classic.write_text(CLASSIC)
    play = ["play", "--card-code", "CODE", "--script"]
    for game, argv, script in [
        ("duet", ["card", "new", "--seed", "1"], None),
        ("duet", ["card", "new", "--seed", "1", "--json"], None),
        ("classic", ["card", "new", "--seed", "1"], None),
        ("duet", [*play, str(GAME)], GAME),
        ("duet", [*play, str(GAME), "--json"], GAME),
        ("classic", [*play, str(classic)], classic),
    ]:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                WORK_THEN_COMMAND,
                game,
                argv[0],
                str(script or ""),
                json.dumps(argv),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        where = (game, argv)
        assert found["code"] == 0, where
        added = set(found["all"]) - set(found["work"])
        ours = {m for m in added if m.split(".")[0] == "keystand"}
        assert ours == {"keystand.cli", "keystand.cliutil"}, where
        others = {m.split(".")[0] for m in added - ours}
        assert others <= set(sys.stdlib_module_names), (where, sorted(others))
        assert "argparse" in others, where
