"""Script text (DESIGN.md "Script text"): one event a line, `#` starts a comment.

`touch R C` (table coordinates), `clue A|B`, `pass A|B`, `undo`, `penalty`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Event, EventError, KeystandError, parse_event


class ScriptError(KeystandError, ValueError):
    """A script line that is not an event; names the source and the line."""

    def __init__(self, detail: str, *, line: int, source: str = "script") -> None:
        self.detail = detail
        self.line = line
        self.source = source
        super().__init__(f"{source} line {line}: {detail}")


@dataclass(frozen=True)
class Step:
    """One event of a script and the line it stands on (1-based)."""

    line: int
    event: Event


def parse_script(text: str, *, source: str = "script") -> list[Step]:
    """Every event of the script; the first malformed line raises ScriptError."""
    steps = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            steps.append(Step(number, parse_event(body)))
        except EventError as e:
            raise ScriptError(str(e), line=number, source=source) from None
    return steps
