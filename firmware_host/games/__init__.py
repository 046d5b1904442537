"""The games the stand plays, each behind one seam, found by name (`get("classic")`).

A game gives: its cards (parse, code, generate, and how `keystand card` prints
one), its rules (start, apply, replay: the state's own `apply`), its event
text, its journal start record (the game's name and a rules version), its JSON
summary, its menu entries, what a seat's keys and a touch mean, and its screens
(`view`, the secrecy boundary).
The stand, the store, the screens and the CLI ask the game for all of these and
know no game by name.

Light on purpose (the standard library and the rules): `keystand card new`
imports it and must not load Pillow. A game's screens load the layouts only
when a screen is drawn.

The registry is one table and one entry-point group, read in that order: a
game shipped with keystand is a package here and a line in `SHIPPED`; a game
packaged on its own is found through the `keystand.games` entry points of the
distributions installed beside keystand (`name = "package:GAME"`), read only when
a name is not shipped or all names are asked for (reading them costs a scan of
every installed distribution, which `keystand card new` should not pay).

A start record without a game's name was written before there were two games:
it is Duet's (`of_record`).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..rules import KeystandError
from ..script import script_bodies
from .game import AnyGame, AnyState, CardKind, Game
from .record import Record, Standing, Won
from .seam import (
    HISTORY_LABEL,
    STAND_LINES,
    AnyCard,
    ClueNumbers,
    Context,
    HistoryEntry,
    KeySides,
    Played,
    Step,
    ended_in_words,
    event_lines,
    input_lines,
    refused,
)
from .settings import Options, Setting, Shown

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

# The games keystand ships: each name's module holds its `GAME`.
SHIPPED: dict[str, str] = {
    "duet": f"{__name__}.duet",
    "classic": f"{__name__}.classic",
}
DEFAULT = "duet"
PLUGINS = "keystand.games"  # the entry-point group of games packaged on their own


class GameError(KeystandError, ValueError):
    """A game's name that names none, or a journal of a game or rules this keystand
    does not know."""


def names() -> tuple[str, ...]:
    """Every game's name: the shipped ones, then those installed beside keystand."""
    return (*SHIPPED, *sorted(set(_plugins()) - set(SHIPPED)))


def known(name: str) -> bool:
    """Whether `name` names a game (shipped, or installed as a plugin)."""
    key = name.strip().lower()
    return key in SHIPPED or key in _plugins()


def get(name: str) -> AnyGame:
    """The game called `name`; GameError names the games there are, or why an
    installed one cannot be loaded."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key in SHIPPED:
        game: AnyGame = importlib.import_module(SHIPPED[key]).GAME
        return game
    point = _plugins().get(key)
    if point is None:
        raise GameError(f"game {name!r}: expected one of {', '.join(names())}")
    try:
        game = point.load()
    except Exception as e:  # a plugin's own fault: named, not a crash of the stand
        raise GameError(f"game {key!r} ({PLUGINS} entry point {point.value}): {e}") from e
    if getattr(game, "name", None) != key:
        raise GameError(
            f"game {key!r}: its entry point {point.value} gives a game called "
            f"{getattr(game, 'name', None)!r}"
        )
    _LOADED[key] = game
    return game


_LOADED: dict[str, AnyGame] = {}  # the installed games loaded so far, by name


def loaded() -> tuple[AnyGame, ...]:
    """The games this process has loaded so far, shipped and installed: loading
    another costs its imports (classic's, in a Duet stand's start), so what only
    needs the games whose settings may have been chosen asks this."""
    shipped = [get(name) for name, module in SHIPPED.items() if module in sys.modules]
    return (*shipped, *_LOADED.values())


def _plugins() -> dict[str, EntryPoint]:
    """The installed games by name: read once for each search path (the stand asks
    which game a state is of at every screen; a scan of every installed
    distribution each time would cost more than the screen)."""
    return _installed(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _installed(path: tuple[str, ...]) -> dict[str, EntryPoint]:
    from importlib.metadata import entry_points  # 15 ms: only for a name not shipped

    return {p.name.strip().lower(): p for p in entry_points(group=PLUGINS)}


def of_state(state: object) -> AnyGame:
    """The game `state` is a moment of (the installed games are read only for a
    state no shipped game owns)."""
    for names in (lambda: SHIPPED, _plugins):
        for name in names():
            game = get(name)
            if game.owns(state):
                return game
    raise GameError(f"not a game state: {type(state).__name__}")


def of_record(head: dict[str, Any]) -> AnyGame:
    """The game of a journal's start record (none named: Duet, as before classic),
    refusing a rules version this keystand does not know (a newer one)."""
    game = get(str(head.get("game", "duet")))
    version = head.get("rules", 1)
    # An older version is the game's to replay by its own rules (a game in play
    # survives an update); a newer one would replay to another game: refused.
    if type(version) is not int or not 1 <= version <= game.rules_version:
        raise GameError(
            f"a {game.name} game journaled under rules version {version!r}; this keystand "
            f"plays version {game.rules_version}"
            + (f" (and replays 1 to {game.rules_version - 1})" if game.rules_version > 1 else "")
        )
    return game


# A script's words for a cell, which every grid's labels follow.
TOUCH_NOTE = "A script's touch R C names the word at row R, column C."
ABOUT_WIDTH = 79  # the words above the grids wrap within a terminal's 80 columns


def key_card_text(game: AnyGame, card: AnyCard) -> str:
    """What `keystand card new` and `card show` print of `card`: the game's words
    on how the grids lie, each side's grid under its heading with table
    coordinates (row numbers down the left, shared by the grids side by side;
    column numbers above each), the legend, then the card's text and code on
    lines of their own (`card TEXT`, `code CODE`)."""
    import textwrap  # only here: `keystand play` does without it

    key, grid = game.key_sides(card), game.grid
    digits = len(str(grid.cols - 1))
    numbers = " ".join(str(c).rjust(digits) for c in range(grid.cols))
    labels = ["column", *(f"row {r:>{len(str(grid.rows - 1))}}" for r in range(grid.rows))]
    left = max(map(len, labels))
    widths = [max(len(heading), len(numbers)) for heading, _ in key.sides]

    def line(label: str, parts: Sequence[str]) -> str:
        cells = "   ".join(part.ljust(width) for part, width in zip(parts, widths, strict=True))
        return f"{label.ljust(left)}  {cells}".rstrip()

    lines = textwrap.wrap(f"{key.about} {TOUCH_NOTE}", ABOUT_WIDTH)
    lines += ["", line("", [heading for heading, _ in key.sides])]
    lines.append(line(labels[0], [numbers] * len(key.sides)))
    for r, label in enumerate(labels[1:]):
        cells = [grid.cell(r, c) for c in range(grid.cols)]
        grids = [" ".join(marks[i].rjust(digits) for i in cells) for _, marks in key.sides]
        lines.append(line(label, grids))
    lines += ["", key.legend, f"card {card.text}", f"code {card.code}"]
    return "\n".join(lines)


__all__ = [
    "DEFAULT",
    "HISTORY_LABEL",
    "PLUGINS",
    "SHIPPED",
    "STAND_LINES",
    "AnyCard",
    "AnyGame",
    "AnyState",
    "CardKind",
    "ClueNumbers",
    "Context",
    "Game",
    "GameError",
    "HistoryEntry",
    "KeySides",
    "Options",
    "Played",
    "Record",
    "Setting",
    "Shown",
    "Standing",
    "Step",
    "Won",
    "ended_in_words",
    "event_lines",
    "get",
    "input_lines",
    "key_card_text",
    "known",
    "loaded",
    "names",
    "of_record",
    "of_state",
    "refused",
    "script_bodies",
]
