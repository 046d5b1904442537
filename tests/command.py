"""`keystand` run as a user runs it, a child process, for the tests of its
commands: what it printed and its exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Seconds: generous, for the emulated panels' runs on a loaded machine; a bound
# that stops a hung run, never a measurement.
TIMEOUT = 300


def keystand(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keystand", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def run_script(state: Path, script: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`keystand run` on the desktop profile, the script its only input: no page,
    the panels at full speed."""
    return keystand(
        "run", "--profile", "desktop", "--state-dir", state, "--speed", "0", "--no-page",
        "--script", script, *extra,
    )  # fmt: skip
