"""keystand as a Pi gets it: a wheel built from the checkout, installed into a fresh
venv outside it, runs a scripted game on the shipped `desktop` profile and reads
the result back. Nothing of the checkout is on that venv's path."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def bench_startup() -> ModuleType:
    """bench/startup.py, by its path: bench/ is not put on sys.path here, where its
    run.py and report.py would shadow soak/'s for tests/test_soak.py."""
    spec = importlib.util.spec_from_file_location("bench_startup", ROOT / "bench" / "startup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CODE = "5VHK-ZHXC-WE7S"


def sh(*args: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_a_wheel_installed_elsewhere_runs_the_desktop_profile(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    # Built from a copy: pip builds in the tree it is given, and a build/ left in
    # the checkout would outlive the next change (systemd/install.sh skips it).
    src = bench_startup().source_copy(tmp_path)
    built = sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, src, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("keystand-*.whl")
    with zipfile.ZipFile(wheel) as built_wheel:
        assert "keystand/py.typed" in built_wheel.namelist()  # PEP 561: typed

    venv = tmp_path / "venv"
    assert sh(sys.executable, "-m", "venv", venv, cwd=tmp_path).returncode == 0
    installed = sh(venv / "bin" / "pip", "install", "--quiet", wheel, cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr

    where = sh(
        venv / "bin" / "python", "-c", "import keystand; print(keystand.__file__)", cwd=tmp_path
    )
    assert str(venv) in where.stdout and str(ROOT) not in where.stdout

    script = tmp_path / "game.txt"
    script.write_text("clue A\ntouch 0 0\ntouch 1 1\n")
    state = tmp_path / "state"
    ran = sh(
        venv / "bin" / "keystand",
        "run",
        "--profile",
        "desktop",
        "--no-page",
        "--speed",
        "0",
        "--script",
        script,
        "--state-dir",
        state,
        "--card-code",
        CODE,
        cwd=tmp_path,
    )
    assert ran.returncode == 0, ran.stderr
    assert "both screens show the neutral picture" in ran.stderr
    read = sh(venv / "bin" / "keystand", "state", "--state-dir", state, "--json", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    played = sh(
        venv / "bin" / "keystand",
        "play",
        "--card-code",
        CODE,
        "--script",
        script,
        "--json",
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    want = {**json.loads(played.stdout), "rejected": []}
    assert json.loads(read.stdout) == want
    assert want["clue_giver"] or want["covered"]  # the script did something
