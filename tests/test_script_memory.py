"""Memory bounded for the smallest Pi (issue 35): a script is read and played one
line at a time, so the worst script the 16 MiB cap lets in stays under 64 MB
resident in `keystand run` (it was 515 MB: every line a parsed object at once,
the out-of-memory killer on a 512 MB Pi Zero 2 W); and `keystand play` reads a
16 MiB script of empty lines without holding a line object each."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from command import TIMEOUT

from keystand.cliutil import SCRIPT_CAP
from keystand.rules import generate

LIMIT_MB = 64
CODE = generate(5).code


def worst(path: Path, line: bytes) -> Path:
    """A script of `line` over and over, as close under the cap as whole lines go."""
    path.write_bytes(line * (SCRIPT_CAP // len(line)))
    assert SCRIPT_CAP - len(line) < path.stat().st_size <= SCRIPT_CAP
    return path


# A process's peak (ru_maxrss) counts the memory of the one it was forked from,
# up to its exec (Linux keeps the larger of the two), and pytest's own grows past
# 300 MB over the whole suite: keystand is started by a fresh Python (a few MB),
# which reports the peak of its one child.
LAUNCH = """
import os, sys
out, args = sys.argv[1], [sys.executable, "-m", "keystand", *sys.argv[2:]]
pid = os.posix_spawn(sys.executable, args, os.environ)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(min(abs(os.waitstatus_to_exitcode(status)), 255))
"""


def peak_mb(*args: str | Path) -> tuple[float, int, str]:
    """Peak resident memory of `keystand ARGS` (its whole life), its exit status
    and what it said."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "maxrss"
        with open(os.devnull, "wb") as null:
            process = subprocess.Popen(
                [sys.executable, "-c", LAUNCH, out, *map(str, args)],
                stdout=null,
                stderr=subprocess.PIPE,
                start_new_session=True,  # a hung run is killed with its launcher
            )
            assert process.stderr is not None
            stop = threading.Timer(TIMEOUT, os.killpg, (process.pid, signal.SIGKILL))
            stop.start()  # a bound on a hung run, not a measure
            try:
                said = process.stderr.read().decode(errors="replace")
                status = process.wait()
            finally:
                stop.cancel()
        return int(out.read_text()) / 1024, status, said  # KiB on Linux


def test_the_worst_script_for_run_stays_under_64_mb(tmp_path: Path) -> None:
    """16 MiB of `wait 0` (2.4 million lines, each a step: the most steps a
    script can hold) played through the stand to its end."""
    script = worst(tmp_path / "waits.txt", b"wait 0\n")
    mb, status, said = peak_mb(
        "run", "--profile", "desktop", "--no-page", "--speed", "0",
        "--state-dir", tmp_path / "state", "--card-code", CODE, "--script", script,
    )  # fmt: skip
    assert status == 0, said
    assert mb < LIMIT_MB, f"keystand run peaked at {mb:.0f} MB"
    assert "stopped; both screens show the neutral picture" in said


def test_a_bad_last_line_of_a_big_script_still_stops_the_start(tmp_path: Path) -> None:
    """Read one line at a time, the script is still checked whole before anything
    starts: its last line's mistake is exit 2 and nothing is journaled."""
    script = tmp_path / "late.txt"
    script.write_bytes(b"wait 0\n" * 300_000 + b"touch 9 9\n")
    mb, status, said = peak_mb(
        "run", "--profile", "desktop", "--no-page", "--speed", "0",
        "--state-dir", tmp_path / "state", "--script", script,
    )  # fmt: skip
    assert status == 2
    assert said.splitlines() == [
        f"keystand run: {script} line 300001: 'touch 9 9': rows and columns are 0..4"
    ]
    assert not (tmp_path / "state").exists()
    assert mb < LIMIT_MB


def test_play_reads_a_script_of_empty_lines_without_a_line_object_each(tmp_path: Path) -> None:
    """16 MiB of line ends: 16.7 million lines, no step (the most lines a script
    can hold), through the referee alone."""
    script = worst(tmp_path / "empty.txt", b"\n")
    mb, status, said = peak_mb("play", "--card-code", CODE, "--script", script, "--json")
    assert status == 0, said
    assert mb < LIMIT_MB, f"keystand play peaked at {mb:.0f} MB"
