"""The grid's firmware (hardware/grid-firmware/) under CPython and under
MicroPython itself: tests/grid_firmware/checks.py, run by each in a process
of its own, must pass and print the same lines, so the board's modules and
its main loop give the same frames, byte for byte, on both.

MicroPython is its WebAssembly port from npm, run by Node.js; `make test`
installs it into .venv/micropython/ (the Makefile's MPY_WASM_VERSION)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tty
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace

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
            "it needs Node.js: sudo apt-get install nodejs)"
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


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def firmware(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ModuleType, ModuleType]]:
    """main.py imported as the board does (its folder on the path, `machine`
    and `micropython` stand-ins), and the stand-ins' module; taken away after."""
    board = load("keystand_test_fakeboard", CHECKS / "fakeboard.py")
    machine = board.Machine(board.Clock(), board.Chips())
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "micropython", board.Micropython(machine))
    monkeypatch.syspath_prepend(str(FIRMWARE))
    names = ("gridproto", "gridsense", "main")
    assert not any(name in sys.modules for name in names)
    try:
        yield importlib.import_module("main"), board
    finally:
        for name in names:
            sys.modules.pop(name, None)


class Stdio:
    """sys.stdin or sys.stdout as MicroPython has them: `buffer` unbuffered."""

    def __init__(self, fd: int, mode: str) -> None:
        self.fd = fd
        self.buffer = open(fd, mode, buffering=0, closefd=False)  # noqa: SIM115 (closed by the test)

    def fileno(self) -> int:
        return self.fd


def drain(fd: int) -> bytes:
    got = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return got
        got += chunk


def test_on_a_real_port_that_nobody_reads_the_loop_never_waits(
    firmware: tuple[ModuleType, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """main.py's own usb_serial(), select.poll on sys.stdin and sys.stdout, over
    a pty made non-blocking, so that a write without room fails there instead
    of waiting. The far end reads nothing for 50 s (simulated) while a touch
    changes every pass: the port fills, and every pass runs even so. Then it
    reads: whole frames only, the newest state last."""
    main, board = firmware
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(slave, False)
    os.set_blocking(master, False)
    stdin, stdout = Stdio(slave, "rb"), Stdio(slave, "wb")
    try:
        monkeypatch.setattr(main, "sys", SimpleNamespace(stdin=stdin, stdout=stdout))
        serial = main.usb_serial()
        clock, sensor = board.Clock(), board.Sensor()
        full: list[bool] = []
        got: list[bytes] = []
        room = select.poll()
        room.register(slave, select.POLLOUT)

        def world() -> None:
            if clock.now < 50_000:
                sensor.bits = (sensor.bits + 1) % (1 << 25)
                return
            sensor.bits = 0x1ABCDE
            if not full:
                full.append(not room.poll(0))
            got.append(drain(master))

        clock.listeners.append(world)
        wdt = board.Watchdog(clock)
        main.run(wdt, serial, sensor, sys.modules["machine"].Pin("LED", 1), clock, passes=5100)
    finally:
        for stream in (stdin, stdout):
            stream.buffer.close()
        os.close(master)
        os.close(slave)
    assert len(wdt.fed) == 5101 and full == [True]
    reader = sys.modules["gridproto"].FrameReader()
    bodies = reader.feed(b"".join(got))
    assert reader.dropped == 0 and len(bodies) > 500
    assert bodies[-1].endswith(",01ABCDE")
