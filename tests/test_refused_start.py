"""A refused start writes nothing (issue 35): every refusal of `keystand run` on a
fresh state dir (one that does not exist yet, and an empty folder) leaves it as
it was: no state dir made, no `stand.lock`, no `games/` or `screens/`, and no
`--shown-log` file. The lock is taken only once the start is decided; a state dir
another run holds is refused before any driver is made."""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from command import TIMEOUT

from keystand.cli import main
from keystand.store import LOCK

NO_INPUT = '[stand]\ndriver = "sim"\n[input]\nkinds = []\n'

# name: (the arguments after `run --state-dir S --shown-log L --speed 0`, exit status,
# what the one line says). {tmp}: the test's folder; {busy}: a port in use.
REFUSALS: dict[str, tuple[list[str], int, str]] = {
    "no settings file": (["--config", "{tmp}/none.toml"], 2, "config: no such file"),
    "no such profile": (["--profile", "nowhere"], 2, "profile: no such profile"),
    "a profile nobody can play": (["--profile", "{tmp}/no-input.toml"], 2, "input.kinds"),
    "a bad speed": (["--speed", "11"], 2, "--speed 11"),
    "a bad port": (["--port", "70000"], 2, "--port 70000"),
    "a bad card code": (["--card-code", "XXXX-XXXX-XXXX"], 2, "XXXX"),
    "a bad card": (["--card", "GG / GG"], 2, "card"),
    "no card file": (["--card-file", "{tmp}/none.txt"], 2, "cannot read card file"),
    "no script": (["--script", "{tmp}/none.txt"], 2, "cannot read script"),
    "a bad script line": (["--script", "{tmp}/bad.txt"], 2, "line 2"),
    "a script of another game": (["--game", "chess"], 2, "game 'chess'"),
    "a shown log in no folder": (
        ["--shown-log", "{tmp}/no-folder/shown.log"],
        2,
        "does not exist",
    ),
    "the page's port in use": (["--port", "{busy}"], 2, "port"),
    "emulating simulated panels": (["--emulate", "{tmp}/emu"], 2, "simulated panels"),
    "a fault without --emulate": (["--emulate-fault", "A:busy-stuck"], 2, "needs --emulate"),
    "an unknown fault": (
        ["--profile", "minimal", "--emulate", "{tmp}/emu", "--emulate-fault", "A:melted"],
        2,
        "A:melted",
    ),
    "grid noise with no grid": (
        ["--profile", "minimal", "--emulate", "{tmp}/emu", "--emulate-fault", "grid:noise"],
        2,
        "has no touch grid",
    ),
    # Off a Pi: no GPIO chip (exit 6); issue 35 found stand.lock left behind.
    "a Pi build off a Pi": (["--profile", "minimal"], 6, "cannot claim GPIO17"),
}


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def left_in(folder: Path) -> list[str]:
    """Everything under `folder`, as relative paths (folders with a slash)."""
    if not folder.exists():
        return []
    return sorted(
        str(p.relative_to(folder)) + ("/" if p.is_dir() else "") for p in folder.rglob("*")
    )


def refuse(tmp_path: Path, state: Path, name: str, port: int) -> tuple[int, list[str]]:
    args, _, _ = REFUSALS[name]
    argv = ["run", "--state-dir", str(state), "--shown-log", str(tmp_path / "shown.log")]
    argv += ["--speed", "0"] + [a.format(tmp=tmp_path, busy=port) for a in args]
    if "--port" not in args and "--emulate" not in args:
        argv.append("--no-page")  # the refusal named, not another program on 8027
    err = io.StringIO()
    code = main(argv, out=io.StringIO(), err=err)
    return code, err.getvalue().splitlines()


def test_every_refusal_of_run_leaves_a_fresh_state_dir_as_it_was(
    tmp_path: Path, busy_port: int
) -> None:
    if Path("/dev/gpiochip0").exists():
        pytest.skip("a machine with a GPIO chip: the Pi build may start here")
    (tmp_path / "no-input.toml").write_text(NO_INPUT)
    (tmp_path / "bad.txt").write_text("clue A\ntouch 9 9\n")
    left: dict[str, list[str]] = {}
    for name, (_, status, says) in REFUSALS.items():
        for fresh in ("missing", "empty"):
            state = tmp_path / f"state-{fresh}"
            if fresh == "empty":
                state.mkdir(exist_ok=True)
            code, said = refuse(tmp_path, state, name, busy_port)
            assert code == status, (name, said)
            assert len(said) == 1 and says in said[0], (name, said)
            found = left_in(state)
            if fresh == "missing" and state.exists():
                found.insert(0, "the state dir itself")
            if (tmp_path / "shown.log").exists():
                found.append("--shown-log's file")
            if found:
                left[f"{name} ({fresh} state dir)"] = found
            if state.exists() and fresh == "missing":  # the next case's fresh one
                shutil.rmtree(state)
            (tmp_path / "shown.log").unlink(missing_ok=True)
    assert left == {}, "\n".join(f"{k}: {', '.join(v)}" for k, v in left.items())


def test_a_start_that_is_not_refused_makes_the_state_dir_it_plays_in(tmp_path: Path) -> None:
    """The other side of it: the start decided, the state dir, its lock and its
    folders are made, and the shown log is written."""
    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    state = tmp_path / "a" / "b" / "state"
    err = io.StringIO()
    code = main(
        [
            *("run", "--state-dir", str(state), "--shown-log", str(tmp_path / "shown.log")),
            *("--speed", "0", "--no-page", "--script", str(script)),
        ],
        out=io.StringIO(),
        err=err,
    )
    said = err.getvalue().splitlines()
    assert code == 0, said
    assert {"current.journal", "games/", "screens/", LOCK} <= set(left_in(state))
    assert (state.stat().st_mode & 0o777) == 0o700
    assert (tmp_path / "shown.log").read_text().startswith(("A ", "B "))


def test_a_state_dir_in_use_is_refused_before_any_driver_and_keeps_its_lock(
    tmp_path: Path,
) -> None:
    """Another run holds the state dir: refused at once (exit 1), the lock file as
    it was (the holder's pid), nothing else made."""
    state = tmp_path / "state"
    state.mkdir()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(state / LOCK)!r}, os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "os.write(fd, b'4242\\n')\n"
            "print('held', flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        before = (state / LOCK).read_bytes()
        started = time.monotonic()
        err = io.StringIO()
        code = main(
            ["run", "--state-dir", str(state), "--profile", "minimal", "--no-page"],
            out=io.StringIO(),
            err=err,
        )
        assert time.monotonic() - started < TIMEOUT
        assert code == 1, err.getvalue()
        assert "is in use by another keystand run (pid 4242)" in err.getvalue()
        # Refused before the Pi build's panels were tried (off a Pi: exit 6).
        assert "GPIO" not in err.getvalue()
        assert (state / LOCK).read_bytes() == before
        assert left_in(state) == [LOCK]
    finally:
        holder.kill()
        holder.wait(TIMEOUT)
