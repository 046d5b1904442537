"""The stand as systemd runs it: the unit's own ExecStart, Environment= and
WorkingDirectory= (with this machine's keystand and a settings file in a
temporary folder), `$STATE_DIRECTORY`, `$NOTIFY_SOCKET` and `$WATCHDOG_USEC`.
It says READY with a STATUS line, pings the watchdog, and on SIGTERM mid-game
(`systemctl stop`, a shutdown) says STOPPING, leaves the neutral picture as
each panel's last frame and exits 0; the next start resumes the same turn."""

from __future__ import annotations

import itertools
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from sdnotify_listener import Listener
from test_systemd_unit import INSTALLED_EXEC, values

from keystand.rules import Seat, generate
from keystand.rules.card import row_col

CARD = generate(23)
CODE = CARD.code
CONFIG = "/etc/keystand/keystand.toml"
# Seat A's clue, then two of A's agents: three events, all accepted (4 records).
_first, _second = (row_col(i) for i in sorted(CARD.agents(Seat.A))[:2])
MOVES = f"clue A\ntouch {_first[0]} {_first[1]}\ntouch {_second[0]} {_second[1]}\n"
WATCHDOG_USEC = 1_000_000  # pings every 0.5 s


def unit_command(tmp_path: Path, *extra: str) -> tuple[list[str], dict[str, str], Path]:
    """ExecStart's argv, the environment systemd gives it, and its working dir."""
    runtime = tmp_path / "run"  # %t/keystand (RuntimeDirectory=)
    runtime.mkdir(exist_ok=True, mode=0o700)
    (state := tmp_path / "state").mkdir(exist_ok=True, mode=0o700)  # StateDirectory=
    settings = tmp_path / "keystand.toml"
    settings.write_text('[service]\nprofile = "desktop"\n')
    [exec_start] = values("ExecStart")
    argv = shlex.split(exec_start)
    assert argv[0] == INSTALLED_EXEC and CONFIG in argv
    argv = [str(Path(sys.executable).parent / "keystand")] + [
        str(settings) if a == CONFIG else a for a in argv[1:]
    ]
    env = dict(os.environ)
    for line in values("Environment"):
        for assignment in shlex.split(line.replace("%t/keystand", str(runtime))):
            key, _, value = assignment.partition("=")
            env[key] = value
    env.update(
        STATE_DIRECTORY=str(state),
        NOTIFY_SOCKET=str(tmp_path / "notify"),
        WATCHDOG_USEC=str(WATCHDOG_USEC),
    )
    env.pop("WATCHDOG_PID", None)
    [workdir] = values("WorkingDirectory")
    assert workdir == "%t/keystand"
    return [*argv, *extra], env, runtime


def start(tmp_path: Path, script: str, shown: Path, *extra: str) -> subprocess.Popen[str]:
    path = tmp_path / f"{shown.stem}.txt"
    path.write_text(script + "wait 600000\n")  # then idle, as a stand at a table
    argv, env, cwd = unit_command(
        tmp_path, "--speed", "0.01", "--script", str(path), "--shown-log", str(shown), *extra
    )
    return subprocess.Popen(argv, env=env, cwd=cwd, stderr=subprocess.PIPE, text=True)


def wait_for(check, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def shown_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def finished(lines: list[str]) -> set[str]:
    """The seats whose panel has shown the frame of the game's fourth record."""
    return {ln.split()[0] for ln in lines if ln.split()[2:] == ["4"]}


def state_json(tmp_path: Path) -> dict[str, object]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "keystand",
            "state",
            "--json",
            "--state-dir",
            str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def stop(proc: subprocess.Popen[str], listener: Listener) -> str:
    proc.send_signal(signal.SIGTERM)  # what systemctl stop sends (KillMode=mixed: main first)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert listener.wait_for(lambda m: any(f.get("STOPPING") == "1" for _, f in m))
    return err


def test_sigterm_mid_game_blanks_both_screens_and_the_next_start_resumes_the_turn(
    tmp_path: Path,
) -> None:
    listener = Listener(str(tmp_path / "notify"))
    try:
        first = tmp_path / "first.log"
        proc = start(tmp_path, MOVES, first, "--card-code", CODE)
        try:
            assert listener.wait_for(lambda m: any(f.get("READY") == "1" for _, f in m))
            # The game's last frame (record 4) has reached both panels.
            assert wait_for(lambda: len(finished(shown_lines(first))) == 2)
            # A turning loop pings at the interval asked, never more often.
            assert listener.wait_for(lambda m: len(listener.pings()) >= 3)
            pings = listener.pings()
            gaps = [b - a for a, b in itertools.pairwise(pings)]
            assert min(gaps) >= WATCHDOG_USEC / 2e6 * 0.95
            before = state_json(tmp_path)
        finally:
            if proc.poll() is None:
                err = stop(proc, listener)
        assert "stopped; both screens show the neutral picture" in err
        lines = shown_lines(first)
        game = lines[0].split()[1]
        for seat in "AB":
            mine = [ln for ln in lines if ln.startswith(f"{seat} ")]
            assert mine[-1] == f"{seat} neutral", mine[-3:]
            assert mine[-2] == f"{seat} {game} 4"
        said = [f for _, f in listener.all()]
        statuses = [f["STATUS"] for f in said if "STATUS" in f]
        turns = f"turns left {before['turns_left']}"
        assert any(s.startswith(f"running: game {game}") and turns in s for s in statuses)
        assert statuses[-1] == "stopped: both screens show the neutral picture"
        assert state_json(tmp_path) == before  # the stop kept the game

        # The next start (the same command) comes back to the same turn.
        second = tmp_path / "second.log"
        proc = start(tmp_path, "", second)
        try:
            assert wait_for(lambda: len(shown_lines(second)) >= 2)
            assert sorted(shown_lines(second)[:2]) == [f"A {game} 4", f"B {game} 4"]
            assert state_json(tmp_path) == before
        finally:
            stop(proc, listener)
        neutral = [ln for ln in shown_lines(second) if "neutral" in ln]
        assert sorted(neutral) == ["A neutral", "B neutral"]
    finally:
        listener.close()
