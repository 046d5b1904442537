"""docs/drivers.md: `hardware/desktop.toml` states every profile key with its
default: each key of each table, as a setting or, for the tables and keys the
desktop has no use for (a Waveshare panel's wiring, the keys, the grids), as a
comment `# key = value`. Read back with those comments taken in, every key the
declarations have is there, with the value it defaults to."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from typing import Any

from keystand import inputkinds
from keystand.profile import Input, Panel, Stand

DESKTOP = Path(__file__).resolve().parents[1] / "hardware" / "desktop.toml"
# The profile's own tables, then every table an input kind declares (its own, or
# the host's it shares: [input.touch]), read from the kinds' declarations.
KIND_TABLES: dict[str, type] = {
    **inputkinds.SHARED,
    **{k.table: k.settings for k in inputkinds.shipped() if k.table and k.settings},
}
TABLES = {
    ("stand",): Stand,
    ("panels",): Panel,
    ("input",): Input,
    **{("input", name): KIND_TABLES[name] for name in inputkinds.tables()},
}
# The desktop's own choices, not the defaults: the page's keys sit beside each screen
# and are labelled there, as the minimal build's HAT keys are.
OWN = {("panels", "keys"): "left"}
# A commented table header or `key = value` line (prose comments stay comments).
COMMENTED = re.compile(r"^# (?=\[[a-z0-9.]+\]|[a-z0-9_]+ = )", re.M)


def settings(cls: type) -> dict[str, Any]:
    """The keys a table declares with `setting(...)`, and their defaults."""
    return {f.name: f.default for f in dataclasses.fields(cls) if "doc" in f.metadata}


def stated() -> dict[str, Any]:
    return tomllib.loads(COMMENTED.sub("", DESKTOP.read_text()))


def test_desktop_toml_states_every_key_with_its_default() -> None:
    found = stated()
    for path, cls in TABLES.items():
        table = found
        for name in path:
            table = table[name]
        wanted = settings(cls)
        assert wanted, cls
        wanted.update({key[-1]: v for key, v in OWN.items() if key[:-1] == path})
        given = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
        assert {k: given.get(k, "(missing)") for k in wanted} == wanted, ".".join(path)


def test_every_table_the_profile_reads_is_in_the_check() -> None:
    """A kind's table is read by the profile, and checked here, from its declaration."""
    assert {path[1] for path in TABLES if len(path) == 2} == {"keys", "touch", "mpr121", "serial"}
    nested = {f.name for f in dataclasses.fields(Input) if "doc" not in f.metadata}
    assert nested == {"tables"}
