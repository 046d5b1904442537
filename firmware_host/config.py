"""The stand's settings file (`/etc/keystand/keystand.toml` on a Pi): which
profile, the seats' languages, the games' own defaults (their settings that
declare a `config_doc`: Duet's mission), the refresh policy, and how
the panels are reset (the fallback README "Panels" gives a builder).

`keystand run --config PATH` reads it at start; without `--config` it reads
`DEFAULT_PATH` when that file exists. Each table is declared once below (keys,
types, defaults, allowed values: `schema.py`), and a bad file is refused whole
with one line naming the file, the key, the value and what is allowed. A key
the file leaves out keeps the profile's value; a command-line option beats the
file. The menu's choices saved in the state dir (a seat's language, the next
game's own settings) beat the file's: it gives a fresh stand its defaults.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, make_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import games, schema
from .rules import KeystandError
from .schema import setting

if TYPE_CHECKING:
    from .profile import Profile

DEFAULT_PATH = Path("/etc/keystand/keystand.toml")


class ConfigError(KeystandError, ValueError):
    def __init__(self, source: str, key: str, detail: str) -> None:
        self.source, self.key, self.detail = source, key, detail
        super().__init__(f"{source}: {key}: {detail}")


def _languages() -> tuple[str, ...]:
    from keystand.layouts import languages

    return tuple(languages())


def _two_seats(value: tuple[str, ...]) -> str | None:
    if len(value) != 2:
        return f"{list(value)!r}: expected two languages, seat A's and seat B's"
    return None


def _loads(own: games.Setting[Any]) -> schema.Check:
    """A game's setting's check: its value as settings.json would keep it."""

    def check(value: Any) -> str | None:
        try:
            own.loaded(value)
        except ValueError as e:
            return f"{schema.toml(value)}: {getattr(e, 'detail', e)}"
        return None

    return check


def in_config() -> tuple[games.Setting[Any], ...]:
    """The shipped games' settings the file's [game] table takes (a `config_doc`)."""
    found = (s for name in games.SHIPPED for s in games.get(name).settings)
    return tuple(s for s in found if s.config_doc)


@dataclass(frozen=True)
class Service:
    """[service]"""

    profile: str = setting("desktop", doc="a profile shipped with keystand, or a file's path")


@functools.cache
def game_table() -> type:
    """[game]: what a fresh stand plays until a seat's menu changes it: the languages,
    and each game's settings that declare themselves for this file. Built when a
    file is read (it loads every shipped game, which a start without one need not)."""
    own = [
        (
            s.key,
            type(s.saved(s.default)),
            setting(s.saved(s.default), check=_loads(s), doc=s.config_doc),
        )
        for s in in_config()
    ]
    languages = setting(("en", "en"), choices=_languages, check=_two_seats)
    made = make_dataclass("Game", [("languages", tuple[str, ...], languages), *own], frozen=True)
    made.__doc__ = game_table.__doc__
    return made


@dataclass(frozen=True)
class Refresh:
    """[refresh]: the panels' refresh policy."""

    max_partials: int = setting(10, between=(0, 1000), doc="partials before a clearing refresh")
    idle_sleep: float = setting(120.0, between=(1, 86400), unit="seconds")


# [panels] (both seats) and [panels.A] / [panels.B] (one): the reset timing only,
# checked as the profile's own keys (profile.Panel). A builder whose panel stays
# blank with keystand's short reset falls back here, in the one file they edit,
# without copying the shipped profile; a panel's model and wiring stay the profile's.
PANEL_KEYS = ("reset_wait", "vendor_reset")

TABLES: dict[str, type | None] = {
    "service": Service,
    "game": None,  # game_table(), built when a file is read
    "refresh": Refresh,
    "panels": None,  # _panels: the profile's own, read as a profile reads them
}


def table(name: str) -> type | None:
    """The declaration of table `name` (None: [panels], read as the profile's)."""
    return game_table() if name == "game" else TABLES[name]


@dataclass(frozen=True)
class Config:
    """The keys the file gives, checked, by table (`values["game"]["mission"]`)."""

    source: str | None = None
    values: dict[str, dict[str, Any]] | None = None

    def get(self, table: str, key: str) -> Any:
        return (self.values or {}).get(table, {}).get(key)

    def onto(self, profile: Profile) -> Profile:
        """`profile` with this file's [panels] keys put over its panels' own."""
        given: dict[str, dict[str, Any]] = (self.values or {}).get("panels", {})
        if not given:
            return profile
        panels = {
            seat: replace(panel, **given.get(seat, {})) for seat, panel in profile.panels.items()
        }
        return replace(profile, panels=panels)


def find(given: Path | None) -> Path | None:
    """The file to read: the one given, else `DEFAULT_PATH` if it exists."""
    if given is not None:
        return given
    return DEFAULT_PATH if DEFAULT_PATH.is_file() else None


def load(path: Path | None) -> Config:
    """The settings file at `path` (None: no file, all defaults)."""
    if path is None:
        return Config()
    source = str(path)
    values: dict[str, dict[str, Any]] = {}
    try:
        read = schema.read_toml(path, "config", "a settings file")
        for name, section in read.items():
            if name not in TABLES:
                raise schema.SchemaError(name, _misplaced(name, section))
            cls = table(name)
            values[name] = _panels(section) if cls is None else schema.values(cls, section, name)
    except FileNotFoundError:
        raise ConfigError(source, "config", "no such file") from None
    except schema.SchemaError as e:
        raise ConfigError(source, e.key, e.detail) from None
    return Config(source=source, values=values)


def _misplaced(name: str, value: Any) -> str:
    """Why `name` is not a table of the file, and where it may belong."""
    home = [t for t in TABLES if (cls := table(t)) and name in schema.keys(cls)]
    home += ["panels"] if name in PANEL_KEYS else []
    if home and not isinstance(value, dict):
        return f"a key outside any table: it goes under [{home[0]}]"
    return f"unknown table (expected {schema.or_list(list(TABLES))})"


def _panels(section: Any) -> dict[str, dict[str, Any]]:
    """[panels] and its seats' tables: each seat's reset keys, the seat's own first."""
    from .profile import panel_values

    return panel_values(section, only=PANEL_KEYS)


__all__ = ["DEFAULT_PATH", "TABLES", "Config", "ConfigError", "find", "load"]
