"""The keyboard: touch and press lines typed on standard input (`touch 1 2`,
`press A clue`), as the table's hardware would send them.

Each line is read as bytes and decoded by the script text's one rule, so a bad
line (not UTF-8, a control character, an unknown word) is named with its
number and skipped; the lines after it still count. `wait MS` pauses.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import BinaryIO

from .base import Emit, InputDriver, Report
from .events import Press, Touch, excerpt, parse_line
from .script import BOM, ScriptLineError, decode_line

MAX_LINE = 1000  # longer is not a typed line; the rest of it is skipped
KEYBOARD_VERBS = ("touch", "press", "wait")  # the table's hardware's lines, and a pause


def _standard_input() -> BinaryIO:
    """Standard input's bytes, unbuffered on a copy of its descriptor: a daemon
    thread blocked in `sys.stdin.buffer` holds that reader's lock, and Python
    aborts ("could not acquire lock ... at interpreter shutdown") when it exits
    with the terminal or pipe still open. A raw file has no lock to hold."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # no standard input at all
        return sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
    return open(os.dup(fd), "rb", buffering=0)


class KeyboardInput(InputDriver):
    """Reads `stream` (default: standard input's bytes) line by line until it ends
    or `stop()`; `complain(message)` hears about each line it skips."""

    name = "keyboard"

    def __init__(
        self,
        *,
        stream: BinaryIO | None = None,
        complain: Callable[[str], None] | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self.stream = stream
        self.complain = complain or (lambda message: print(message, file=sys.stderr))
        self._sleep = sleep
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, emit: Emit, report: Report) -> None:
        stream = self.stream if self.stream is not None else _standard_input()
        # A blocking read cannot be cut short; the thread is a daemon and
        # stop() only makes sure nothing read afterwards is emitted.
        self._thread = threading.Thread(
            target=self._run, args=(stream, emit), name="keyboard-input", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def _run(self, stream: BinaryIO, emit: Emit) -> None:
        number = 0
        while not self._stopped.is_set():
            raw = stream.readline(MAX_LINE + 1)
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                while (rest := stream.readline(MAX_LINE + 1)) and not rest.endswith(b"\n"):
                    pass
                self.complain(f"keystand: keyboard line {number}: longer than {MAX_LINE} bytes")
                continue
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            self._line(raw.rstrip(b"\n"), number, emit)

    def _line(self, raw: bytes, number: int, emit: Emit) -> None:
        try:
            text = decode_line(raw, line=number, source="keyboard")
        except ScriptLineError as e:
            self.complain(f"keystand: {e}")
            return
        body = text.split("#", 1)[0].strip()
        if not body:
            return
        try:
            event = parse_line(body, takes=KEYBOARD_VERBS)
            if not isinstance(event, Touch | Press | float):
                # The table's hardware touches words and presses keys; a bare
                # `undo` would skip the second seat's consent.
                raise ValueError(f"{excerpt(body)}: type touch or press lines (press A clue, ...)")
        except ValueError as e:
            self.complain(f"keystand: keyboard line {number}: {e}")
            return
        if self._stopped.is_set():
            return
        if isinstance(event, float):
            self._sleep(event)
        else:
            emit(event)
