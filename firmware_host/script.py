"""Script text (docs/design.md "Contracts"): one event a line, `#` starts a comment.

`touch R C` (table coordinates), `clue A|B`, `pass A|B`, `undo`, `penalty`:
the same lines the drivers' script input reads (`keystand.drivers.inputs`),
turned into rules events here. `press SEAT KEY` and `wait MS` lines are the
stand's own (its keys, its inputs' pace): only `keystand run` takes them, so
`keystand play` and `render`, the referee alone, refuse them by line
(`stand_only`), in every game's script.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from keystand.drivers.inputs import Act, Touch, parse_line
from keystand.drivers.inputs.events import excerpt
from keystand.drivers.inputs.script import BOM, ScriptLineError, decode_line, script_lines

from . import rules
from .rules import Event, KeystandError, Seat

T = TypeVar("T")


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


# What `keystand play` (and `render --script`) take: the referee's events.
VERBS = ("touch", "clue", "pass", "undo", "penalty")

# The lines only `keystand run` plays, and why. The referee alone refuses them
# rather than pass them over: what a key press means is the stand's (its menu,
# its cursor) and a wait lets the stand's turn timer run out (classic), so a
# state printed without them need not be the stand's.
STAND_ONLY = {
    "press": "they need the stand's keys",
    "wait": "the referee alone has no clock",
}


def stand_only(body: str, *, line: int, source: str) -> None:
    """ScriptError naming the line when `body` (a line of a script for `keystand
    play` or `render`, comment stripped) is one only `keystand run` takes."""
    verb = body.split(maxsplit=1)[0].lower()
    if verb in STAND_ONLY:
        raise ScriptError(
            f"{excerpt(body)}: {verb} lines are for keystand run --script only "
            f"({STAND_ONLY[verb]})",
            line=line,
            source=source,
        )


def script_bodies(data: bytes | str, *, source: str) -> list[tuple[int, str]]:
    """(line number, text) of each line of script text that is not blank or a
    comment, by the one rule every reader of script text follows."""
    try:
        lines = script_lines(data, source=source)
    except ScriptLineError as e:
        raise ScriptError(e.detail, line=e.line, source=source) from None
    out = []
    for number, raw in enumerate(lines, start=1):
        body = raw.split("#", 1)[0].strip()
        if body:
            out.append((number, body))
    return out


def parse_script(data: bytes | str, *, source: str = "script") -> list[Step]:
    """Every game event of the script (bytes as read, or text); the first malformed
    line, or one only `keystand run` takes, raises ScriptError."""
    steps = []
    for number, body in script_bodies(data, source=source):
        stand_only(body, line=number, source=source)
        try:
            item = parse_line(body, takes=VERBS)
        except ValueError as e:
            raise ScriptError(str(e), line=number, source=source) from None
        assert isinstance(item, Act | Touch)  # press and wait are refused above
        steps.append(Step(number, to_rules(item)))
    return steps


def script_texts(data: bytes, *, source: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a script's bytes that is not blank or a
    comment, one line at a time: by the one text rule, as `script_lines` reads a
    whole script, but holding no more than the line in hand (a 16 MiB script of
    short lines was millions of objects at once). The first line that breaks
    the rule raises ScriptError when it is reached."""
    start, number = (len(BOM) if data.startswith(BOM) else 0), 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        raw = data[start:end]
        start, number = end + 1, number + 1
        if not raw:
            continue  # an empty line (the commonest filler of a big file)
        try:  # a BOM past line 1 is refused here with every control character
            text = decode_line(raw, line=number, source=source)
        except ScriptLineError as e:
            raise ScriptError(e.detail, line=number, source=source) from None
        if text.split("#", 1)[0].strip():
            yield number, text


def line_by_line(
    data: bytes, read: Callable[[str], list[T]], *, source: str
) -> Iterator[tuple[int, T]]:
    """(line number, item) for each item `read` makes of each line of `data`, read
    one line at a time (`script_texts`): `read` is a game's `script` or
    `input_script` given one line's text, whose ScriptError (naming line 1) is
    said of the line it is."""
    for number, text in script_texts(data, source=source):
        try:
            found = read(text)
        except ScriptError as e:
            raise ScriptError(e.detail, line=number, source=source) from None
        for item in found:
            yield number, item
