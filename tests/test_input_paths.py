"""docs/input-paths.md kept true: every row of its `keystand run` options table
runs through the real process and gets exit 2, the one line the table says, no
traceback, and nothing started or written."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "input-paths.md").read_text()


def option_rows() -> list[tuple[str, str]]:
    section = DOC.split("## `keystand run` options", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`--"):
            rows.append((cells[1].strip("`"), cells[2].strip("`")))
    return rows


ROWS = option_rows()


def test_the_table_has_its_rows() -> None:
    assert len(ROWS) >= 15


@pytest.fixture
def busy_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.parametrize(("args", "says"), ROWS, ids=[a for a, _ in ROWS])
def test_each_bad_option_gets_one_line_and_exit_2(
    tmp_path: Path, busy_port: int, args: str, says: str
) -> None:
    state = tmp_path / "state"
    file = tmp_path / "a-file"
    file.write_text("x")
    dirjournal = tmp_path / "dirjournal"
    (dirjournal / "current.journal").mkdir(parents=True)
    script = tmp_path / "one.txt"
    script.write_text("clue A\n")
    filled = args.format(
        file=file,
        missing=tmp_path / "no-such-folder" / "x.txt",
        busy=busy_port,
        dirjournal=dirjournal,
        state=tmp_path,
    )
    base = ["--profile", "desktop", "--speed", "0", "--script", str(script)]
    if not filled.startswith("--state-dir"):
        base += ["--state-dir", str(state)]
    if filled.startswith("--port"):
        base.remove("--script")
        base.remove(str(script))
    argv = [*base, *filled.split(" ", 1)] if " " in filled else [*base, filled]
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "run", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert says.split("{")[0] in lines[0], f"{lines[0]!r} does not say {says!r}"
    assert not state.exists() or filled.startswith("--state-dir")  # nothing written


def test_a_read_only_state_dir_is_refused(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(ro)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.strip()}")
    try:
        script = tmp_path / "one.txt"
        script.write_text("clue A\n")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "keystand",
                "run",
                "--state-dir",
                str(ro),
                "--script",
                str(script),
                "--no-page",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        subprocess.run(["umount", "-l", str(ro)], check=False)
    assert done.returncode == 2
    assert re.search(r"cannot be written: Read-only file system", done.stderr), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
