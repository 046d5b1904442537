"""Script input: events from script text, with `wait MS` pauses between them.

One rule for every reader of script text (a file, standard input, the keyboard):
the bytes are UTF-8, a leading byte-order mark is allowed, lines end at `\n`
(or `\r\n`) and nowhere else, and no other control character may stand in a
line (a tab counts as a space). So a line number in a message is the line an
editor shows, and a U+2028 or a form feed cannot quietly split one line into
two events. A message quotes at most a short, escaped excerpt of a bad line.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from keystand.errors import KeystandError

from .base import Emit, InputDriver, Report
from .events import VERBS, InputEvent, excerpt, parse_line

BOM = b"\xef\xbb\xbf"


class ScriptLineError(KeystandError, ValueError):
    """A script line that is not an event; names the source and the line."""

    def __init__(self, detail: str, *, line: int, source: str) -> None:
        self.detail = detail
        self.line = line
        self.source = source
        super().__init__(f"{source} line {line}: {detail}")


def _control(line: str) -> str | None:
    """The first character of `line` that may not stand in a script line, or None."""
    for ch in line:
        if ch == "\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch == "\ufeff":
            return ch
    return None


def decode_line(raw: bytes, *, line: int, source: str) -> str:
    """One line's bytes (no line break) as text, or ScriptLineError naming the line."""
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScriptLineError(
            f"not UTF-8 text (byte 0x{raw[e.start]:02x} at column {e.start + 1}); "
            "save the script as UTF-8",
            line=line,
            source=source,
        ) from None
    return check_line(text, line=line, source=source)


def check_line(text: str, *, line: int, source: str) -> str:
    """`text` if it holds no control character but tabs, else ScriptLineError."""
    bad = _control(text)
    if bad is not None:
        name = unicodedata.name(bad, "") or "control character"
        raise ScriptLineError(
            f"{excerpt(text)}: U+{ord(bad):04X} {name.lower()} is not allowed in a script "
            "(one event a line, lines end at a line break)",
            line=line,
            source=source,
        )
    return text


def script_lines(data: bytes | str, *, source: str = "script") -> list[str]:
    """The lines of a script as text, by the one rule above; the first line that
    breaks it raises ScriptLineError. `str` input (already decoded) is split and
    checked the same way."""
    if isinstance(data, str):
        data = data.removeprefix("\ufeff")
        raws = data.split("\n")
        if raws and raws[-1] == "":
            raws.pop()
        return [
            check_line(r.removesuffix("\r"), line=n, source=source)
            for n, r in enumerate(raws, start=1)
        ]
    data = data.removeprefix(BOM)
    chunks = data.split(b"\n")
    if chunks and chunks[-1] == b"":
        chunks.pop()
    return [decode_line(raw, line=n, source=source) for n, raw in enumerate(chunks, start=1)]


def parse_script(
    data: bytes | str, *, source: str = "script", takes: Sequence[str] = VERBS
) -> list[tuple[int, InputEvent | float]]:
    """(line number, event or seconds to wait) for every line that is not blank or
    a comment; the first malformed line raises ScriptLineError. `takes`: the verbs
    the reader takes (an unknown verb's message lists them)."""
    steps: list[tuple[int, InputEvent | float]] = []
    for number, raw in enumerate(script_lines(data, source=source), start=1):
        body = raw.split("#", 1)[0].strip()
        if body:
            try:
                steps.append((number, parse_line(body, takes=takes)))
            except ValueError as e:
                raise ScriptLineError(str(e), line=number, source=source) from None
    return steps


class ScriptInput(InputDriver):
    """Feeds a parsed script to `emit` from its own thread, waiting where it says;
    `on_done` is called once the last line is emitted (not if stopped first)."""

    name = "script"

    def __init__(
        self,
        steps: Iterable[tuple[int, InputEvent | float]],  # iterated once, as played
        *,
        speed: float = 1.0,
        on_done: Callable[[], None] | None = None,
        pause: Callable[[float], object] | None = None,
    ) -> None:
        if speed < 0:
            raise ValueError(f"speed {speed!r}: expected 0 or more")
        self.steps = steps
        self.speed = speed
        self.on_done = on_done
        self._stop = threading.Event()
        self._pause = pause or self._stop.wait  # stop() cuts a wait short
        self._thread: threading.Thread | None = None

    def start(self, emit: Emit, report: Report) -> None:
        if self._thread is not None:
            raise RuntimeError("the script input is already started")
        self._thread = threading.Thread(
            target=self._run, args=(emit,), name="script-input", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.join(5)

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self, emit: Emit) -> None:
        for _, step in self.steps:
            if self._stop.is_set():
                return
            if isinstance(step, float):
                self._pause(step * self.speed)
            else:
                emit(step)
        if self.on_done and not self._stop.is_set():
            self.on_done()
