"""The input kinds a profile may list in `[input] kinds`, found by name.

Each kind is one module declaring one `InputKind` (`base.py` says what a kind
declares); this registry is the one place their names are listed. A kind
packaged apart from keystand is an entry point in the `keystand.inputs` group
(`name = "module:KIND"`), read only for a name no shipped kind has, as games
are. The host asks the registry, never a kind by name.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import KeystandError
from .base import Built, Check, InputKind, Probe, Touch, TouchGrid, Wiring, Word

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint  # loads email, zipfile, csv: not at start

AnyKind = InputKind[Any]

# name: its module under keystand.inputkinds, in the order messages list them.
SHIPPED: dict[str, str] = {
    "simulator": "page",
    "script": "script",
    "keyboard": "keyboard",
    "keys": "keys",
    "mpr121": "mpr121",
    "serial-grid": "serialgrid",
}
PLUGINS = "keystand.inputs"  # the entry-point group of kinds installed beside keystand

# The host's own tables a kind may read (`InputKind.shared`), always there.
SHARED: dict[str, type] = {"touch": Touch}


class KindError(KeystandError, LookupError):
    """An input kind no one provides, or an installed one that cannot be loaded."""


def names() -> tuple[str, ...]:
    """Every kind's name: the shipped ones, then those installed beside keystand."""
    return (*SHIPPED, *sorted(set(_plugins()) - set(SHIPPED)))


def known(name: str) -> bool:
    return name in SHIPPED or name in _plugins()


def get(name: str) -> AnyKind:
    """The kind called `name`; KindError names the kinds there are, or why an
    installed one cannot be loaded."""
    if name in SHIPPED:
        kind: AnyKind = importlib.import_module(f"{__name__}.{SHIPPED[name]}").KIND
        return kind
    point = _plugins().get(name)
    if point is None:
        raise KindError(f"input kind {name!r}: expected one of {', '.join(names())}")
    try:
        kind = point.load()
    except Exception as e:  # a plugin's own fault: named, not a crash of the stand
        raise KindError(f"input kind {name!r} ({PLUGINS} entry point {point.value}): {e}") from e
    if not isinstance(kind, InputKind) or kind.name != name:
        raise KindError(
            f"input kind {name!r}: its entry point {point.value} gives {kind!r}, not an "
            f"InputKind called {name!r}"
        )
    return kind


def shipped() -> tuple[AnyKind, ...]:
    return tuple(get(name) for name in SHIPPED)


def of(kinds: Iterable[str]) -> list[AnyKind]:
    """The kinds named, each once, in the registry's order (the installed ones
    after the shipped, by name; no installed kind is looked for otherwise)."""
    given = set(kinds)
    ordered = [name for name in SHIPPED if name in given]
    return [get(name) for name in (*ordered, *sorted(given - set(SHIPPED)))]


def tables(also: Iterable[AnyKind] = ()) -> tuple[str, ...]:
    """The tables under [input] the kinds declare, each kind's shared ones
    first: the shipped kinds', then `also`'s."""
    found: dict[str, None] = {}
    for kind in (*shipped(), *also):
        for name in (*kind.shared, *([kind.table] if kind.table else [])):
            found[name] = None
    return tuple(found)


def unplayable(kinds: Sequence[str]) -> str | None:
    """What a build with these kinds lacks for a player to play it, in words,
    or None: it must let a player give a clue and name a word (each kind
    declares what it lets a player do)."""
    declared = of(kinds)
    if any(k.clue and k.word is not Word.NONE for k in declared):
        return None
    given = f"its inputs: {', '.join(kinds)}" if kinds else "it has none"
    if any(k.word is not Word.NONE for k in declared):
        lacks = "give a clue with (a touch grid names words only)"
    else:
        lacks = "give a clue or name a word with"
    # Those that would do, a Pi build's own (wired: a table) first.
    able = sorted(
        (k for k in shipped() if k.clue and k.word is not Word.NONE), key=lambda k: not k.table
    )
    quoted = [f'"{k.name}"' for k in able]
    offer = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
    return f"no input a player can {lacks} ({given}): add {offer}"


def cursor_keys(kinds: Sequence[str]) -> bool:
    """A build whose words are picked with a cursor and never touched: the
    guesser moves it on their own screen (docs/buttons-only.md)."""
    declared = of(kinds)
    words = {k.word for k in declared}
    return Word.CURSOR in words and Word.TOUCH not in words


def _plugins() -> dict[str, EntryPoint]:
    return _installed(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _installed(path: tuple[str, ...]) -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points  # only for a name not shipped

    return {p.name.strip(): p for p in entry_points(group=PLUGINS)}


__all__ = [
    "SHARED",
    "SHIPPED",
    "Built",
    "Check",
    "InputKind",
    "KindError",
    "Probe",
    "TouchGrid",
    "Wiring",
    "Word",
    "cursor_keys",
    "get",
    "known",
    "names",
    "of",
    "shipped",
    "tables",
    "unplayable",
]
