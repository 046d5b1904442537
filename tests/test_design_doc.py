"""docs/design.md's layer table says what import-linter's `layers` contract checks:
the same rows, top down, each with the same modules."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def table_rows() -> list[set[str]]:
    """The modules of each row of the table under "| layer | modules |": the names
    in backticks, what a row says in parentheses aside."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index("| layer | modules |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = re.sub(r"\([^)]*\)", "", line.split("|")[2])
        rows.append(set(re.findall(r"`([^`]+)`", cells)))
    return rows


def contract_rows() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["id"] == "layers")["layers"]
    return [{m.strip() for m in row.split("|")} for row in layers]


def test_the_layer_table_is_the_layers_contract() -> None:
    assert table_rows() == contract_rows()
