"""The screens' words: one TOML file per language in `strings/`, named by its code.

Adding a language is adding one file, `strings/<code>.toml`, with every key of
`en.toml`. Each TOML table is a slot of the screen, and its strings are drawn
in that slot's box (`SLOT_OF_TABLE` names the tables that share a slot,
`SLOT_OF_STRING` the strings with a box of their own):
the tests measure every string in its box on every panel.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path

STRINGS_DIR = Path(__file__).parent / "strings"
DEFAULT = "en"

# The table a string sits in names the box it is drawn in, except these.
SLOT_OF_TABLE = {
    "reject": "last",
    "end_hold": "code",
    "mission_name": "menu_value",
    "menu_note": "menu_hint",
}
# And these strings, each in a box of its own: the end screen's captions, the
# partner's wider than a small panel's grid ("You" is short in every language).
SLOT_OF_STRING = {
    ("caption", "me"): "caption_me",
    ("caption", "partner"): "caption_partner",
    # Why a game was won: where the score stands (a lost game's reason has its room).
    ("end_reason", "won"): "end_reason_won",
    ("end_reason", "won_sudden_death"): "end_reason_won",
}


def languages() -> tuple[str, ...]:
    """The language codes there is a strings file for, sorted."""
    return tuple(sorted(p.stem for p in STRINGS_DIR.glob("*.toml")))


@cache
def strings(lang: str) -> Mapping[str, Mapping[str, str]]:
    """The strings of `lang` by table and key; ValueError names the languages there are."""
    path = STRINGS_DIR / f"{lang}.toml"
    if lang not in languages():
        raise ValueError(f"language {lang!r}: expected one of {', '.join(languages())}")
    with path.open("rb") as f:
        data = tomllib.load(f)
    tables: dict[str, dict[str, str]] = {}
    for table, entries in data.items():
        if not isinstance(entries, dict) or not all(isinstance(v, str) for v in entries.values()):
            raise ValueError(f"{path.name}: [{table}] must hold strings only")
        tables[table] = dict(entries)
    return tables


def text(lang: str, table: str, key: str) -> str:
    """One string, e.g. text("de", "headline", "you_guess")."""
    return strings(lang)[table][key]


def mission(lang: str, name: str | None, numbers: str) -> str:
    """A mission as the screens name it: "Cairo 9-5", or "9-9" without a name."""
    return f"{strings(lang)['mission_name'][name]} {numbers}" if name else numbers


def mission_forms(lang: str, name: str | None, numbers: str) -> list[str]:
    """A mission's names, longest first, for a box that may not hold the longest:
    "Cairo 9-5", then "Cairo" (a name says its numbers: the rulebook's missions
    have one pair each); a mission of one's own has only its numbers."""
    full = mission(lang, name, numbers)
    return [full, strings(lang)["mission_name"][name]] if name else [full]


def slot(table: str, key: str | None = None) -> str:
    """The box a string of `table` (`key`) is drawn in."""
    return SLOT_OF_STRING.get((table, key or "")) or SLOT_OF_TABLE.get(table, table)
