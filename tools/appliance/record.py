"""Writes one appliance-check run's timings into docs/appliance.md: the row of
that architecture in the timings table is replaced (or added), and, given a
file, that architecture's `systemd-analyze critical-chain` block too."""

import sys
from collections.abc import Callable
from pathlib import Path


def replace(
    lines: list[str], marker: str, keep: Callable[[str], bool], new: list[str]
) -> list[str]:
    """`lines` with what lies between `<!-- marker -->` and `<!-- /marker -->`
    filtered by `keep`, and `new` added."""
    a, b = lines.index(f"<!-- {marker} -->"), lines.index(f"<!-- /{marker} -->")
    return lines[: a + 1] + [ln for ln in lines[a + 1 : b] if keep(ln)] + new + lines[b:]


doc, arch, row = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = doc.read_text(encoding="utf-8").splitlines()
lines = replace(lines, "timings", lambda ln: f"ARCH={arch}`" not in ln, [row])
if len(sys.argv) > 4:
    chain = Path(sys.argv[4]).read_text(encoding="utf-8").rstrip().splitlines()
    title = f"`systemd-analyze critical-chain keystand.service`, {arch}, the minimal unit:"
    lines = replace(lines, f"chain {arch}", lambda ln: False, [title, "", "```", *chain, "```"])
doc.write_text("\n".join(lines) + "\n", encoding="utf-8")
