"""The grid's firmware (hardware/grid-firmware/) under CPython and under
MicroPython itself: tests/grid_firmware/checks.py, run by each in a process
of its own, must pass and print the same lines, so the board's modules and
its main loop give the same frames, byte for byte, on both.

MicroPython is its WebAssembly port from npm, run by Node.js; `make test`
installs it into .venv/micropython/ (the Makefile's MPY_WASM_VERSION)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ROOT / "tests" / "grid_firmware"
FIRMWARE = ROOT / "hardware" / "grid-firmware"
PORT = ROOT / ".venv" / "micropython" / "node_modules" / "@micropython"
PORT = PORT / "micropython-webassembly-pyscript"
WAIT = 300  # seconds a run may take at most (a bound, never a measurement)


def pinned_version() -> str:
    found = re.search(r"^MPY_WASM_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "the Makefile pins MPY_WASM_VERSION"
    return found.group(1)


def cpython(cwd: Path) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)  # the checks make and remove a `maintenance` file there
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{FIRMWARE}:{CHECKS}"}
    return subprocess.run(
        [sys.executable, str(CHECKS / "checks.py")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )


def micropython(cwd: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not (PORT / "micropython.mjs").is_file():
        pytest.skip(
            "MicroPython's WebAssembly port is not installed (make test installs it; "
            "it needs node and npm)"
        )
    version = json.loads((PORT / "package.json").read_text())["version"]
    assert version == pinned_version(), f"{PORT} is {version}: make test installs the pin"
    cwd.mkdir(exist_ok=True)
    command = [node, str(CHECKS / "mpy_run.mjs"), str(PORT / "micropython.mjs")]
    command += [str(CHECKS / "checks.py"), str(FIRMWARE), str(CHECKS)]
    return subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=WAIT, check=False
    )


def passed(run: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines of a run whose every check passed."""
    lines = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout + run.stderr
    ok = [line for line in lines if line.startswith("ok ")]
    assert len(ok) >= 10 and lines[-1] == f"checks: {len(ok)} ok, 0 failed", run.stdout
    return lines


def test_the_firmware_checks_pass_under_cpython(tmp_path: Path) -> None:
    passed(cpython(tmp_path))


def test_micropython_passes_the_same_checks_with_the_same_frames(tmp_path: Path) -> None:
    on_micropython = passed(micropython(tmp_path / "micropython"))
    assert on_micropython == passed(cpython(tmp_path / "cpython"))
