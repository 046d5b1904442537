"""Reads what `keystand card new` and `card show` print, as a user reads it: the
grids by their headings and labels (the mark under column number C on the line
labelled `row R`), the legend, the card's text and code lines. Written apart from
keystand's own layout (`games.key_card_text`), so the tests check what the
labels say, not how they were drawn."""

from __future__ import annotations

import re
from dataclasses import dataclass

CODE_LINE_RE = re.compile(r"^code (\S+)$")


@dataclass(frozen=True)
class Printed:
    about: str  # the paragraph above the grids, its lines joined
    grids: dict[str, dict[tuple[int, int], str]]  # heading -> (row, column) -> mark
    legend: str
    text: str  # the `card TEXT` line's text
    code: str


def read(out: str) -> Printed:
    lines = out.splitlines()
    blank = lines.index("")
    head = blank + 1
    headings = re.split(r" {2,}", lines[head].strip())
    columns = lines[head + 1]
    assert columns.startswith("column "), columns
    numbers = [(m.start(), int(m.group())) for m in re.finditer(r"\d+", columns)]
    starts = [i for i, (_, n) in enumerate(numbers) if n == 0]  # each grid's column 0
    assert len(starts) == len(headings), (headings, columns)
    groups = [numbers[a:b] for a, b in zip(starts, [*starts[1:], len(numbers)], strict=True)]
    grids: dict[str, dict[tuple[int, int], str]] = {h: {} for h in headings}
    row_lines = lines[head + 2 : lines.index("", head)]
    for line in row_lines:
        label = re.match(r"row +(\d+) ", line)
        assert label, line
        row = int(label.group(1))
        for heading, group in zip(headings, groups, strict=True):
            for at, col in group:
                # A number's last digit stands over the mark (numbers are right-aligned).
                width = len(str(col))
                grids[heading][(row, col)] = line[at + width - 1]
    rest = lines[lines.index("", head) + 1 :]
    assert len(rest) == 3, rest
    legend, text_line, code_line = rest
    assert text_line.startswith("card "), text_line
    match = CODE_LINE_RE.match(code_line)
    assert match, code_line
    return Printed(
        about=" ".join(lines[:blank]),
        grids=grids,
        legend=legend,
        text=text_line.removeprefix("card "),
        code=match.group(1),
    )


def in_table_order(grid: dict[tuple[int, int], str], cols: int) -> str:
    """A grid's marks by cell index `cols * row + column`, the card text's order."""
    return "".join(grid[cell] for cell in sorted(grid, key=lambda rc: rc[0] * cols + rc[1]))
