"""The serial grid emulated: the firmware's own logic on the far end of a real pty.

`EmulatedBoard` loads `gridproto.py` (and `gridsense.py` when asked) from
hardware/grid-firmware/ as they are, runs them in a thread the way the
board's `main.py` does, and speaks through a pseudo-terminal whose slave end
a symlink names, as /dev/serial/by-id/ names the real board: `unplug` closes
the pty and removes the link, `plug` makes a new pty (a new /dev/pts name)
and points the link at it, as a replug does; `reboot` starts the firmware
again on the same port (a watchdog reset), `silent` hangs it. `press` and
`lift` put a finger on cells and take it off: it rests there, across any of
those, until lifted. `noise` mixes random bytes and broken frames into what it
sends: garbage between frames, a byte dropped or changed, a frame cut short,
an overlong line; `send_garbage`, `send_partial` and `send_long_line` put one
of each into the stream on demand, `inject` any bytes. For tests, the soak
harness and `--emulate`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import sys
import threading
import time
import tty
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from .touchfilter import Cell

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "hardware" / "grid-firmware"


def load_firmware(name: str, directory: Path | None = None) -> ModuleType:
    """One of the firmware's pure modules, loaded from its file, unchanged."""
    path = (directory or FIRMWARE_DIR) / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"grid firmware module {path} is missing (a source checkout?)")
    spec = importlib.util.spec_from_file_location(f"keystand_grid_firmware_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclass-free, but keep imports inside it working
    spec.loader.exec_module(module)
    return module


class Fingers:
    """A sensor that reports what the test puts on it (grid cells)."""

    def __init__(self, cols: int = 5) -> None:
        self.cols = cols  # bit row * cols + col, as the firmware numbers a cell
        self.cells: set[Cell] = set()
        self.fault = ""
        self.lock = threading.Lock()

    def press(self, cells: Iterable[Cell]) -> None:
        with self.lock:
            self.cells |= set(cells)

    def lift(self) -> None:
        with self.lock:
            self.cells.clear()

    def read(self, now_ms: int) -> tuple[int, str]:
        with self.lock:
            return sum(1 << (r * self.cols + c) for r, c in self.cells), self.fault


class EmulatedBoard:
    """The grid controller: firmware logic, a sensor, a pty named by `link`."""

    def __init__(
        self,
        link: str | Path,
        *,
        sensor: Any = None,
        noise: float = 0.0,
        seed: int = 0,
        interval: float = 0.01,
        period_ms: int | None = None,
        rest_ms: int | None = None,
        firmware: str = "emulated",
        firmware_dir: Path | None = None,
        rows: int = 5,
        cols: int = 5,
    ) -> None:
        self.link = Path(link)
        self.proto = load_firmware("gridproto", firmware_dir)
        self.rows, self.cols = rows, cols  # what its hello announces
        self.sensor = sensor or Fingers(cols)
        self.noise = noise
        self.rng = random.Random(seed)
        self.interval = interval
        # The firmware's own state periods unless a test asks for others (a
        # board of before the rest period: rest_ms = period_ms).
        self.period_ms: int = self.proto.PERIOD_MS if period_ms is None else period_ms
        self.rest_ms: int = self.proto.REST_MS if rest_ms is None else rest_ms
        self.firmware = firmware
        self.silent = False  # a hung firmware: no frames at all
        self._sending = threading.Lock()  # held while a frame is checked and written
        self.drop_next = 0  # frames to lose on the way (a missing message)
        self.drop_only = b""  # ...only those holding this (b",T,"), others pass
        self.dropped: list[bytes] = []
        self.sent: list[bytes] = []  # every frame the logic produced, before noise
        self.mangled = 0  # frames the noise spoiled
        self.heard = bytearray()  # what the host sent
        self._master = self._slave = -1
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.logic: Any = None

    # -- the cable -------------------------------------------------------------------

    def plug(self) -> EmulatedBoard:
        """A fresh pty, the link pointed at it, the firmware booting (hello)."""
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline, as a USB CDC port
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.link.with_name(self.link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.link)
        self.logic = self.proto.GridLogic(
            rows=self.rows,
            cols=self.cols,
            firmware=self.firmware,
            period_ms=self.period_ms,
            rest_ms=self.rest_ms,
        )
        self._start_loop()
        return self

    def unplug(self) -> None:
        """The cable pulled: the pty closed (the host's reads fail), the link gone."""
        self._stop_loop()
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1
        self.link.unlink(missing_ok=True)

    # -- the finger ------------------------------------------------------------------

    def press(self, cells: Iterable[Cell]) -> None:
        self.sensor.press(cells)

    def lift(self) -> None:
        self.sensor.lift()

    def tap(self, cells: Iterable[Cell], hold: float) -> None:
        """Fingers down for `hold` seconds of real time, then up."""
        self.press(cells)
        time.sleep(hold)
        self.lift()

    def hush(self) -> None:
        """A hung firmware (`silent`), returning once no frame is on its way:
        every frame it sent before is in the port for the host to read."""
        with self._sending:
            self.silent = True

    def inject(self, data: bytes) -> None:
        """Raw bytes into the stream, as if the wire made them."""
        self._write(data)

    def send_garbage(self, length: int = 64) -> bytes:
        """`length` random bytes (from the seeded generator) into the stream."""
        data = bytes(self.rng.randrange(256) for _ in range(length))
        self._write(data)
        return data

    def send_partial(self, cells: Iterable[Cell] = ((0, 0),)) -> bytes:
        """A state frame with these cells in contact, cut short before its
        checksum (the rest of the line lost): the host must never take it."""
        bits = sum(1 << (r * self.cols + c) for r, c in cells)
        cells_hex = self.proto.state_hex(bits, self.rows * self.cols)
        whole = self.proto.frame(f"999,T,{cells_hex}")
        data = whole[: whole.index(b"*")]
        self._write(data)
        return data

    def send_long_line(self, length: int = 300) -> bytes:
        """A '$' and `length` printable bytes, then LF: longer than any frame."""
        data = b"$" + bytes(self.rng.randrange(0x20, 0x7F) for _ in range(length)) + b"\n"
        self._write(data)
        return data

    def reboot(self) -> None:
        """The firmware starts again on the same port: a new hello and state,
        sequence numbers from 0, whatever finger rests on the sensor."""
        self._stop_loop()
        self.logic = self.proto.GridLogic(
            rows=self.rows,
            cols=self.cols,
            firmware=self.firmware,
            period_ms=self.period_ms,
            rest_ms=self.rest_ms,
        )
        self._start_loop()

    # -- the firmware's loop -----------------------------------------------------------

    def _start_loop(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="grid-board", daemon=True)
        self._thread.start()

    def _stop_loop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        start = time.monotonic()
        self._send(self.logic.hello(0))
        while not self._stop.wait(self.interval):
            now = int((time.monotonic() - start) * 1000)
            try:
                data = os.read(self._master, 256)
            except (BlockingIOError, OSError):
                data = b""
            if data:
                self.heard += data
                self._send(self.logic.host(data, now))
            bits, fault = self.sensor.read(now)
            self._send(self.logic.sense(now, bits, fault))

    def _send(self, frames: list[bytes]) -> None:
        for f in frames:
            with self._sending:
                self._send_one(f)

    def _send_one(self, f: bytes) -> None:
        self.sent.append(f)
        if self.silent:
            return
        if self.drop_next and self.drop_only in f:
            self.drop_next -= 1
            self.dropped.append(f)
            return
        if self.rng.random() < self.noise:
            self.mangled += 1
            f = self._mangle(f)
        self._write(f)

    def _mangle(self, f: bytes) -> bytes:
        rng = self.rng
        kind = rng.randrange(5)
        if kind == 0:  # garbage before the frame
            return bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + f
        if kind == 1:  # a byte lost
            i = rng.randrange(len(f))
            return f[:i] + f[i + 1 :]
        if kind == 2:  # a byte changed
            i = rng.randrange(len(f))
            return f[:i] + bytes([f[i] ^ (1 << rng.randrange(8))]) + f[i + 1 :]
        if kind == 3:  # cut short, the rest of the line lost
            return f[: rng.randrange(1, len(f))]
        line = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randint(70, 300)))
        return b"$" + line + b"\n" + f  # an overlong line, then the frame

    def _write(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # nobody reading: a USB port drops it too
            os.write(self._master, data)
