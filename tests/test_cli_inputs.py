"""Every file a user names (script, card, profile, settings) is a regular file
or standard input, read with a cap: /dev/zero, a FIFO with no writer or a folder
is one line and exit 2 at once, never memory without end or a wait for ever.
The state dir's own files and an empty --state-dir are one line too.

The commands run as subprocesses with their address space capped, so a reader
without a cap fails here with a MemoryError instead of taking the machine's
memory, and with a time-out, so a read that would hang fails the test."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from keystand.cli import main
from keystand.cliutil import SCRIPT_CAP
from keystand.rules import generate

CODE = generate(1).code
MEMORY = 2 * 1024**3  # far above what keystand needs to refuse a file; far below /dev/zero's


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def keystand(
    *args: str | Path, cwd: Path | None = None, stdin: object = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keystand", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,  # a FIFO read without O_NONBLOCK waits for ever: this fails it
        stdin=stdin,
        cwd=cwd,
        preexec_fn=_capped,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-2000:]
    return lines[0]


@pytest.fixture
def odd(tmp_path: Path) -> dict[str, str]:
    """Things that are not regular files, by what the message must say."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    return {
        "/dev/zero": "is a device, not a regular file",
        str(fifo): "is a pipe (FIFO), not a regular file",
        str(folder): "is a folder, not a file",
    }


# {} is where the odd file goes; "what" is the word the message uses for it.
COMMANDS = [
    ("script", ["play", "--card-code", CODE, "--script", "{}"]),
    ("card file", ["play", "--card-file", "{}", "--script", "-"]),
    ("card file", ["card", "show", "--card-file", "{}"]),
    ("script", ["run", "--no-page", "--script", "{}", "--state-dir", "{state}"]),
    ("card file", ["run", "--no-page", "--card-file", "{}", "--state-dir", "{state}"]),
    ("profile", ["run", "--profile", "{}", "--state-dir", "{state}"]),
    ("config", ["run", "--config", "{}", "--state-dir", "{state}"]),
    ("config", ["doctor", "--config", "{}"]),
    (
        "script",
        [
            "render",
            "--card-code",
            CODE,
            "--script",
            "{}",
            "--seat",
            "A",
            "--panel",
            "epd2in7_V2",
            "--out",
            "{state}.png",
        ],
    ),
]


@pytest.mark.parametrize(("what", "argv"), COMMANDS)
@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "folder"])
def test_a_file_that_is_not_a_regular_file_is_one_line_at_once(
    tmp_path: Path, odd: dict[str, str], what: str, argv: list[str], kind: str
) -> None:
    path = next(p for p in odd if p.endswith(kind))
    if what == "profile" and "/" not in path:
        path = "./" + path
    args = [a.replace("{state}", str(tmp_path / "state")).replace("{}", path) for a in argv]
    line = one_line(keystand(*args))
    assert path in line and what in line and odd[path] in line, line
    assert not list(tmp_path.glob("state*"))  # refused before anything was made


def test_a_pipe_refused_where_stdin_is_taken_says_to_give_a_dash(odd: dict[str, str]) -> None:
    fifo = next(p for p in odd if p.endswith("fifo"))
    line = one_line(keystand("play", "--card-code", CODE, "--script", fifo))
    assert line.endswith("(give - to read standard input)")
    line = one_line(keystand("run", "--config", fifo))
    assert "give -" not in line  # --config takes no stdin: no such advice


def test_standard_input_is_read_with_the_cap() -> None:
    with open("/dev/zero", "rb") as zero:
        line = one_line(keystand("play", "--card-code", CODE, "--script", "-", stdin=zero))
    assert line == (
        f"keystand play: script 'stdin': larger than {SCRIPT_CAP // 1024**2} MiB: not a script"
    )


def test_dev_null_is_read_as_the_empty_file() -> None:
    """The one device every tool takes as a file: `--script /dev/null` runs nothing."""
    done = keystand("play", "--card-code", CODE, "--script", os.devnull)
    assert done.returncode == 0, done.stderr
    assert "0 events" in done.stdout


def test_a_script_over_the_cap_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    with big.open("wb") as f:
        f.truncate(SCRIPT_CAP + 1)  # sparse: no disk spent
    line = one_line(keystand("play", "--card-code", CODE, "--script", big))
    assert f"script {str(big)!r}: larger than 16 MiB" in line


def test_a_100000_line_script_still_loads(tmp_path: Path) -> None:
    script = tmp_path / "long.txt"
    script.write_text("# a long evening\n" + "clue A\ntouch 0 0\nundo\n" * 33_333 + "clue A\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["play", "--card-code", CODE, "--script", str(script)], out=out, err=err) == 0
    assert "100000 events" in out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("command", "name"), [("state", "current.journal"), ("history", "history.jsonl")]
)
def test_a_folder_where_the_state_dir_has_a_file_is_one_line(
    tmp_path: Path, command: str, name: str
) -> None:
    (tmp_path / name).mkdir()
    out, err = io.StringIO(), io.StringIO()
    assert main([command, "--state-dir", str(tmp_path)], out=out, err=err) == 2
    assert err.getvalue() == (
        f"keystand {command}: {str(tmp_path / name)!r} is not a file "
        "(keystand writes it: move it away)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--no-page", "--script", "{script}", "--state-dir", ""],
        ["run", "--no-page", "--script", "{script}", "--emulate", ""],
        ["state", "--state-dir", ""],
        ["history", "--state-dir", ""],
    ],
)
def test_an_empty_state_dir_is_refused(tmp_path: Path, argv: list[str]) -> None:
    """`--state-dir "$UNSET"` would have made the working folder the state dir."""
    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    work = tmp_path / "work"
    work.mkdir()
    args = [a.replace("{script}", str(script)) for a in argv]
    line = one_line(keystand(*args, cwd=work))
    assert "an empty path" in line and ("--state-dir" in line or "--emulate" in line)
    assert list(work.iterdir()) == []  # nothing written where it was run


@pytest.mark.parametrize("command", ["run", "state"])
def test_a_fifo_where_the_journal_should_be_is_one_line_not_a_wait(
    tmp_path: Path, command: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "current.journal")
    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    extra = ["--no-page", "--speed", "0", "--script", str(script)] if command == "run" else []
    line = one_line(keystand(command, "--state-dir", state, *extra))
    assert f"{str(state / 'current.journal')!r} is not a file" in line
