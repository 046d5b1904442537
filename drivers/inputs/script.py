"""Script input: events from script text, with `wait MS` pauses between them."""

from __future__ import annotations

import threading
from collections.abc import Callable

from .events import InputEvent, parse_line


class ScriptLineError(ValueError):
    """A script line that is not an event; names the source and the line."""

    def __init__(self, detail: str, *, line: int, source: str) -> None:
        self.detail = detail
        self.line = line
        self.source = source
        super().__init__(f"{source} line {line}: {detail}")


def parse_script(text: str, *, source: str = "script") -> list[tuple[int, InputEvent | float]]:
    """(line number, event or seconds to wait) for every line that is not blank or
    a comment; the first malformed line raises ScriptLineError."""
    steps: list[tuple[int, InputEvent | float]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if body:
            try:
                steps.append((number, parse_line(body)))
            except ValueError as e:
                raise ScriptLineError(str(e), line=number, source=source) from None
    return steps


class ScriptInput:
    """Feeds a parsed script to `emit` from its own thread, waiting where it says."""

    def __init__(
        self,
        steps: list[tuple[int, InputEvent | float]],
        emit: Callable[[InputEvent], None],
        *,
        speed: float = 1.0,
        on_done: Callable[[], None] | None = None,
        pause: Callable[[float], object] | None = None,
    ) -> None:
        self.steps = steps
        self.emit = emit
        self.speed = speed
        self.on_done = on_done
        self._stop = threading.Event()
        self._pause = pause or self._stop.wait  # stop() cuts a wait short
        self._thread = threading.Thread(target=self._run, name="script-input", daemon=True)

    def start(self) -> ScriptInput:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        for _, step in self.steps:
            if self._stop.is_set():
                return
            if isinstance(step, float):
                self._pause(step * self.speed)
            else:
                self.emit(step)
        if self.on_done:
            self.on_done()
