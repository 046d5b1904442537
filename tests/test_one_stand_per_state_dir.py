"""One `keystand run` per state dir: a second one on the same journal is refused in
one line naming the first (its records would interleave with the first's, and the
next start would cut them as damage), and it may start once the first has gone."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from command import TIMEOUT, run_script

from keystand.rules import generate
from keystand.store import CURRENT, LOCK

CODE = generate(5).code


def test_a_second_run_on_a_state_dir_in_use_is_refused_and_loses_nothing(
    tmp_path: Path,
) -> None:
    state, shown = tmp_path / "state", tmp_path / "shown.log"
    first_script = tmp_path / "first.txt"
    first_script.write_text("clue A\nwait 3600000\n")  # then idles until stopped
    first = subprocess.Popen(
        [sys.executable, "-m", "keystand", "run", "--profile", "desktop", "--state-dir",
         str(state), "--speed", "0", "--no-page", "--card-code", CODE, "--script",
         str(first_script), "--shown-log", str(shown)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        # The clue shown: the first run holds the state dir and has journaled it.
        deadline = time.monotonic() + TIMEOUT
        while not any(  # 'SEAT GAME RECORDS': the start and the clue
            line.startswith("A ") and line.endswith(" 2")
            for line in (shown.read_text() if shown.exists() else "").splitlines()
        ):
            assert first.poll() is None and time.monotonic() < deadline, first.stderr
            time.sleep(0.02)
        journal = (state / CURRENT).read_bytes()
        second_script = tmp_path / "second.txt"
        second_script.write_text("touch 0 0\n")
        refused = run_script(state, second_script)
        assert refused.returncode == 1  # worth retrying: the first may stop
        assert refused.stderr.splitlines() == [
            f"keystand run: state dir {str(state)!r} is in use by another keystand run "
            f"(pid {first.pid}): stop it first (sudo systemctl stop keystand, for the "
            "service's), or give another --state-dir"
        ]
        assert (state / CURRENT).read_bytes() == journal  # nothing written
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=TIMEOUT)
    assert first.returncode == 0
    # The first gone (its lock with it, though the file stays), the second plays on.
    assert (state / LOCK).exists()
    done = run_script(state, second_script)
    assert done.returncode == 0, done.stderr
    journal_text = (state / CURRENT).read_text()
    events = [line.split('"e":"')[1].split('"')[0] for line in journal_text.splitlines()[1:]]
    assert events == ["clue A", "touch 0 0"]


def test_a_lock_that_is_no_file_is_refused_and_a_link_is_never_followed(tmp_path: Path) -> None:
    """A folder, a FIFO or a link at stand.lock cannot hold the state dir: the run is
    refused in one line, before anything is written, and a link's target is untouched."""
    import os

    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    makers = {
        "folder": lambda lock: lock.mkdir(),
        "fifo": lambda lock: os.mkfifo(lock),
        "link": lambda lock: lock.symlink_to(target),
    }
    for name, make in makers.items():
        state = tmp_path / name
        state.mkdir()
        make(state / LOCK)
        done = run_script(state, script)
        assert done.returncode == 2, (name, done.stderr)
        assert done.stderr.splitlines() == [
            f"keystand run: {str(state / LOCK)!r} is not a file: move it away, keystand writes it"
        ], name
        assert not (state / CURRENT).exists(), name
    assert target.read_text() == "keep me\n"
