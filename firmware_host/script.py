"""Script text (docs/design.md "Contracts"): one event a line, `#` starts a comment.

`touch R C` (table coordinates), `clue A|B`, `pass A|B`, `undo`, `penalty`:
the same lines the drivers' script input reads (`keystand.drivers.inputs`),
turned into rules events here. `wait MS` lines are passed over (the rules have
no clock); `press` lines need the stand's keys, so only `keystand run` takes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from keystand.drivers.inputs import Act, Press, Touch
from keystand.drivers.inputs import parse_script as parse_input_script
from keystand.drivers.inputs.script import ScriptLineError

from . import rules
from .rules import Event, KeystandError, Seat


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


def to_rules(event: Act | Touch) -> Event:
    """A driver's game action as the rules' event."""
    if isinstance(event, Touch):
        return rules.Touch(event.row, event.col)
    if event.verb == "clue":
        return rules.Clue(Seat(event.seat))
    if event.verb == "pass":
        return rules.Pass(Seat(event.seat))
    return rules.Undo() if event.verb == "undo" else rules.Penalty()


# What `keystand play` (and `render --script`) take: a wait is passed over, a press refused.
VERBS = ("touch", "clue", "pass", "undo", "penalty", "wait")


def parse_script(data: bytes | str, *, source: str = "script") -> list[Step]:
    """Every game event of the script (bytes as read, or text); the first malformed
    line raises ScriptError."""
    try:
        lines = parse_input_script(data, source=source, takes=VERBS)
    except ScriptLineError as e:
        raise ScriptError(e.detail, line=e.line, source=source) from None
    steps = []
    for number, item in lines:
        if isinstance(item, float):
            continue
        if isinstance(item, Press):
            raise ScriptError(
                f"{item}: press lines need the stand's keys (keystand run --script)",
                line=number,
                source=source,
            )
        steps.append(Step(number, to_rules(item)))
    return steps
