"""A game's own settings, declared by the game: each a menu entry, a key of
settings.json, maybe a command-line option of `keystand play` and `render`; and
`Options`, the values a new game is started with.

The stand's menu, its settings file and the CLI know no setting by name: they go
through the game's `settings` (a tuple of `Setting`s) and hand the values back
to the game in an `Options`. A setting is a value object with what the host asks
of it: what one press of the menu key makes of the value (`next`), the value's
numbers stepped while it is edited on the keys (`fields`, `nudge`), how the menu
line shows it (`shown`), how settings.json keeps it (`saved`, `loaded`), and how
the command line gives it (`flag`, `parse`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..rules import Seat

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True)
class Shown:
    """A setting's value as the menu line shows it: a key of the screens' value
    strings (`value`), plain text (`text`), or a name key and its numbers
    (`named`: ("cairo", "9-5"), drawn "Cairo 9-5")."""

    value: str | None = None
    text: str | None = None
    named: tuple[str | None, str] | None = None


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One of a game's menu choices. `item` is its menu entry (a name of its game's
    `menu_items`, the screens' label), `key` its name in settings.json and in
    `Options`. `next_game`: the rules fix it at a game's start, so a choice made
    during a game waits for the next one, and the menu says so. `flag`, `meta`
    and `help`: the option of `keystand play` and `render` that gives it (None:
    the menu only). A subclass writes `next`, `shown`, `saved` and `loaded`."""

    item: str
    key: str
    default: T
    next_game: bool = True
    flag: str | None = None
    meta: str | None = None  # the option's value (None: a switch, set or not)
    help: str = ""
    # The numbers of the value stepped on the keys (clue +1, pass -1) once `next`
    # says so, one field after the other, each a key of the screens' value strings.
    fields: tuple[str, ...] = ()
    # The settings file's [game] table takes it too, described so ("": not there).
    config_doc: str = ""

    def next(self, value: T, seat: Seat, custom: bool) -> tuple[T, bool]:
        """The value after one press of the menu key on the entry, by `seat`, and
        whether the keys now step its numbers (`fields`). `custom`: the value was
        just set by stepping them (the next press starts the round again)."""
        raise NotImplementedError

    def nudge(self, value: T, field: str, step: int) -> T:
        """The value with `field` stepped by `step` (+1, -1), kept within bounds."""
        raise NotImplementedError(f"setting {self.key}: no numbers to step")

    def shown(self, value: T, seat: Seat) -> Shown:
        raise NotImplementedError

    def saved(self, value: T) -> Any:
        """The value as settings.json keeps it (JSON)."""
        return value

    def loaded(self, data: Any) -> T:
        """A value settings.json kept; ValueError when it is not one."""
        raise NotImplementedError

    def parse(self, text: str | bool) -> T:
        """The value the command line gives (`flag`); ValueError names what is wrong."""
        return self.loaded(text)


@dataclass(frozen=True)
class Options:
    """The values of a game's settings a new game starts with (a setting not given
    takes its default, so a value equal to it is not kept and two Options of the
    same choices compare equal): the menu's choices, or the command line's."""

    values: tuple[tuple[Setting[Any], Any], ...] = ()  # by the settings' keys

    def get(self, setting: Setting[U]) -> U:
        for own, value in self.values:
            if own.key == setting.key:
                return value  # set through `with_` only: the setting's own type
        return setting.default

    def with_(self, setting: Setting[U], value: U) -> Options:
        """These values with `setting`'s set (a default is not kept: absent is the same)."""
        values = {s.key: (s, v) for s, v in self.values if s.key != setting.key}
        if value != setting.default:
            values[setting.key] = (setting, value)
        return Options(tuple(values[k] for k in sorted(values)))

    def saved(self) -> dict[str, Any]:
        """The values as settings.json keeps them, by key."""
        return {s.key: s.saved(v) for s, v in self.values}
