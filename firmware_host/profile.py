"""Build profiles: which panels, how mounted, which inputs (`hardware/*.toml`).

The profiles ship inside the package (`keystand.hardware`, read from
its folder), so `keystand run --profile desktop` works from a wheel as
from a checkout; `--profile PATH` reads any file. Each table is declared once,
below, as a dataclass (keys, types, defaults, allowed values: `schema.py`); a
profile is checked whole before anything starts, and a bad one is refused with
the file, the key, the value and what is allowed.

To add a key: a field with `setting(...)` in its table's dataclass. To add a
table: a dataclass, a field on `Profile`, and a line in `load`; an input
kind's table is its kind's own declaration (`keystand.inputkinds`), read here.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import inputkinds, panel_models, pins, schema
from .inputkinds.base import Touch
from .rules import KeystandError
from .schema import setting

SEATS = ("A", "B")
PANEL_DRIVERS = ("sim", "waveshare")
PANEL_MODELS = tuple(panel_models.PANELS)  # one record each (panel_models.py)
KEY_NAMES = ("clue", "pass", "undo", "menu")  # a seat's four keys, as labelled
# The edges of a seat's screen its keys may sit along (keystand.layouts.EDGES:
# tests/test_key_labels.py checks the two agree; the layouts load Pillow).
KEY_EDGES = ("left", "right", "top", "bottom")


def unplayable(kinds: Sequence[str]) -> str | None:
    """What a build with these input kinds lacks for a player to play it, in
    words, or None: it must let a player give a clue and name a word (each
    kind declares what it lets a player do; a script is no player)."""
    return inputkinds.unplayable(kinds)


def check_playable(profile: Profile) -> None:
    """ProfileError, one line naming what is missing, for a build no player could
    play: `profile check`, doctor and `run` (without --script) refuse it."""
    missing = unplayable(profile.input.kinds)
    if missing is not None:
        raise ProfileError(profile.source, "input.kinds", missing)


def cursor_keys(kinds: Sequence[str]) -> bool:
    """A build whose words are picked with a cursor and never touched (keys and
    no grid): the guesser picks the word on their own screen (docs/buttons-only.md)."""
    return inputkinds.cursor_keys(kinds)


class ProfileError(KeystandError, ValueError):
    def __init__(self, source: str, key: str, detail: str) -> None:
        self.source, self.key, self.detail = source, key, detail
        super().__init__(f"{source}: {key}: {detail}")


def _languages() -> tuple[str, ...]:
    from keystand.layouts import languages  # the strings files say which there are

    return tuple(languages())


def _loopback(host: str) -> str | None:
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return f"{host!r}: the page serves this machine only (127.0.0.1, ::1 or localhost)"


def _key_order(order: tuple[str, ...]) -> str | None:
    """Each of a seat's four keys once, in the order they sit along their edge."""
    if sorted(order) == sorted(KEY_NAMES):
        return None
    return f"{schema.toml(order)}: expected each of {', '.join(KEY_NAMES)} once, as they sit"


@dataclass(frozen=True)
class Stand:
    """[stand]: the stand as a whole."""

    driver: str = setting("sim", choices=PANEL_DRIVERS, doc="panel driver")
    max_partials: int = setting(10, between=(0, 1000), doc="partials before a clearing refresh")
    idle_sleep: float = setting(120.0, between=(1, 86400), unit="seconds")
    undo_window: float = setting(5.0, between=(1, 60), unit="seconds")
    reveal_delay: float = setting(10.0, between=(0, 120), unit="seconds")
    # A journal whose failed write could not be taken back is checked again every
    # 2 s; if it cannot be trusted again in this long, the stand stops blanked and
    # exits 1 for systemd to start it again (store.RECOVER_FOR, the same default).
    recover_for: float = setting(
        30.0, between=(2, 3600), unit="seconds", doc="a failing disk: how long before a restart"
    )
    lang: str = setting("en", choices=_languages)


@dataclass(frozen=True)
class Panel:
    """[panels] for both seats, [panels.A] / [panels.B] for one."""

    model: str = setting("epd2in7_V2", choices=lambda: tuple(panel_models.PANELS))
    rotation: int = setting(90, choices=(0, 90, 180, 270), doc="clockwise, picture to panel")
    speed: float = setting(1.0, between=(0, 10), doc="simulated pace: 1 real, 0 no waiting")
    # Where a Waveshare panel is wired (BCM GPIO numbers; the HAT's own by default).
    spi_device: int = setting(0, choices=(0, 1), doc="SPI0 chip select: 0 CE0, 1 CE1")
    rst: int = setting(17, between=(0, 27), doc="reset line")
    dc: int = setting(25, between=(0, 27), doc="data/command line")
    busy: int = setting(24, between=(0, 27), doc="busy line")
    pwr: int = setting(18, between=(-1, 27), doc="panel power switch; -1: none")
    busy_timeout: float = setting(0.0, between=(0, 300), unit="seconds", doc="0: the default")
    # The vendor code waits up to 200 ms twice around each hardware reset, and the
    # 2.7" V2 resets before every partial refresh: 0.4 s of each touch's 0.7 s.
    # keystand waits what the controller's datasheet asks (20 ms), then for BUSY
    # (drivers/display/timing.py RESET_WAIT); `vendor_reset` is the fallback for a
    # panel that misbehaves with it (`keystand doctor --refresh` times both kinds).
    reset_wait: float = setting(
        0.0, between=(0, 1), unit="seconds", doc="0: the datasheet's (20 ms); else this, then BUSY"
    )
    vendor_reset: bool = setting(False, doc="the vendor's own waits around each reset instead")
    # Where the seat's keys sit beside its screen, as the seat reads it: the screen
    # draws what each key does now beside it (docs/buttons-only.md).
    keys: str = setting(
        "none", choices=("none", *KEY_EDGES), doc="the edge the seat's keys sit along"
    )
    key_order: tuple[str, ...] = setting(
        KEY_NAMES, check=_key_order, doc="the keys along it, top to bottom or left to right"
    )


def _kinds(kinds: tuple[str, ...]) -> str | None:
    """Each a kind the registry has (an installed one is looked for only for a
    name no shipped kind has)."""
    for kind in kinds:
        if not inputkinds.known(kind):
            return f"{schema.toml(kind)}: expected {schema.or_list(inputkinds.names())}"
    return None


def _shared_defaults() -> dict[str, object]:
    return {name: table() for name, table in inputkinds.SHARED.items()}


@dataclass(frozen=True)
class Input:
    """[input]: where input comes from; each kind's own table ([input.keys],
    [input.mpr121], ...: the kind declares it) and [input.touch], for any grid,
    say how."""

    kinds: tuple[str, ...] = setting(("simulator",), check=_kinds)
    host: str = setting("127.0.0.1", check=_loopback)
    port: int = setting(8027, between=(1, 65535))
    # [input.NAME] as read, by NAME: the kinds' own, and the host's they share (defaults)
    tables: dict[str, object] = field(default_factory=lambda: _shared_defaults())

    @property
    def touch(self) -> Touch:
        """[input.touch]: how a contact on any grid becomes a touch."""
        touch = self.tables.get("touch")
        return touch if isinstance(touch, Touch) else Touch()

    def table(self, name: str) -> object | None:
        """A kind's table as read ([input.NAME]), None if the profile has none."""
        return self.tables.get(name)

    def wired(self) -> list[tuple[inputkinds.AnyKind, Any]]:
        """Each kind listed, in the registry's order, with its table's settings."""
        return [
            (k, self.tables.get(k.table) if k.table else None) for k in inputkinds.of(self.kinds)
        ]

    def buses(self) -> Iterator[pins.Use]:
        for kind, settings in self.wired():
            yield from kind.buses(settings)

    def lines(self) -> Iterator[pins.Use]:
        for kind, settings in self.wired():
            yield from kind.lines(settings)

    def bus_names(self) -> list[str]:
        return [name for kind, settings in self.wired() for name in kind.bus_names(settings)]


@dataclass(frozen=True)
class Profile:
    name: str
    source: str = "(defaults)"
    stand: Stand = field(default_factory=Stand)
    panels: dict[str, Panel] = field(default_factory=lambda: {s: Panel() for s in SEATS})
    input: Input = field(default_factory=Input)


TABLES = ("stand", "panels", "input")


def shipped() -> dict[str, Path]:
    """The profiles installed with keystand, by name."""
    # The data package's folder, as layouts finds its fonts: importlib.resources
    # would load zipfile at every start for a package that is never zipped.
    from keystand import hardware

    folder = Path(next(iter(hardware.__path__)))
    return {p.name[:-5]: p for p in folder.iterdir() if p.name.endswith(".toml")}


def _source(name_or_path: str) -> tuple[str, Path]:
    if name_or_path.endswith(".toml") or "/" in name_or_path:
        return name_or_path, Path(name_or_path)
    found = shipped()
    if name_or_path not in found:
        known = ", ".join(sorted(found))
        raise ProfileError(name_or_path, "profile", f"no such profile (profiles: {known})")
    return name_or_path, found[name_or_path]


def load(name_or_path: str) -> Profile:
    """A shipped profile by name (`desktop`) or a profile file by path."""
    source, path = _source(name_or_path)
    try:
        table = schema.read_toml(path, "profile", "a profile")
        profile = _profile(Path(source).stem, source, table)
    except FileNotFoundError:
        known = ", ".join(sorted(shipped()))
        raise ProfileError(source, "profile", f"no such file (profiles: {known})") from None
    except schema.SchemaError as e:
        raise ProfileError(source, e.key, e.detail) from None
    try:
        pins.check(profile)  # the wiring it describes can exist
    except pins.PinClash as e:
        raise ProfileError(source, f"GPIO {e.pin}", e.detail) from None
    _check_panel_models(profile)
    _check_key_labels(profile)
    return profile


def _check_panel_models(profile: Profile) -> None:
    """Each seat's model is one the stand's panel driver can build from its record
    (the Waveshare driver needs the record's vendor file and recipe)."""
    for seat, p in profile.panels.items():
        refused = panel_models.refusal(profile.stand.driver, p.model)
        if refused is not None:
            raise ProfileError(profile.source, f"panels.{seat}.model", refused)


def _check_key_labels(profile: Profile) -> None:
    """Each seat's key labels fit beside its screen, and a stand that picks words on
    its keys says where they are: its players learn the keys from their labels."""
    from keystand.layouts import panel

    for seat, p in profile.panels.items():
        if p.keys == "none" and cursor_keys(profile.input.kinds):
            raise ProfileError(
                profile.source,
                "panels.keys",
                f"seat {seat}: a stand with keys and no grid picks words on its keys: say "
                f"which edge of the screen they sit along ({schema.or_list(KEY_EDGES)}), so "
                "each key's label is drawn beside it",
            )
        if p.keys != "none":
            try:
                panel(p.model, p.rotation, p.keys)
            except ValueError as e:
                raise ProfileError(profile.source, "panels.keys", f"seat {seat}: {e}") from None


def _profile(name: str, source: str, data: dict[str, Any]) -> Profile:
    for key in data:
        if key not in TABLES:
            raise schema.SchemaError(key, f"unknown table (expected {schema.or_list(TABLES)})")
    panels = {seat: Panel(**given) for seat, given in panel_values(data.get("panels", {})).items()}
    return Profile(
        name=name,
        source=source,
        stand=schema.build(Stand, data.get("stand", {}), "stand"),
        panels=panels,
        input=_input(data.get("input", {})),
    )


def panel_values(table: Any, only: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
    """[panels] (both seats) and [panels.A] / [panels.B] (one seat) as each seat's
    Panel keys, checked, a seat's own over the shared. `only`: the keys allowed
    (the settings file takes the reset keys alone; model and wiring are a profile's)."""
    if not isinstance(table, dict):
        raise schema.SchemaError("panels", "expected a table")
    for key, value in table.items():
        if isinstance(value, dict) and key not in SEATS:  # a seat's table misnamed
            raise schema.SchemaError(f"panels.{key}", "unknown table (expected A or B: a seat's)")
    shared = {k: v for k, v in table.items() if k not in SEATS}
    out = {}
    for seat in SEATS:
        own = table.get(seat, {})
        for where, given in (("panels", shared), (f"panels.{seat}", own)):
            unknown = (
                [k for k in given if k not in only] if only and isinstance(given, dict) else []
            )
            if unknown:
                raise schema.SchemaError(
                    f"{where}.{unknown[0]}",
                    f"not a key of this file (expected {schema.or_list(only or ())}; "
                    "a panel's model and wiring are the profile's)",
                )
        out[seat] = {
            **schema.values(Panel, shared, "panels"),
            **schema.values(Panel, own, f"panels.{seat}"),
        }
    return out


def _kinds_reading(
    table: dict[str, Any], named: Any, extra: list[inputkinds.AnyKind]
) -> tuple[list[inputkinds.AnyKind], tuple[str, ...]]:
    """The kinds whose declarations read [input], and the tables under it they
    name: the kinds it lists, when every table given is theirs or the host's (a
    start loads no other kind's module); else every kind there is, to say what
    the table that is not theirs is."""
    listed = [
        inputkinds.get(name)
        for name in inputkinds.SHIPPED
        if isinstance(named, list) and name in named
    ]
    theirs = (*inputkinds.SHARED, *(k.table for k in (*listed, *extra) if k.table))
    if all(key in theirs or key in schema.keys(Input) for key in table):
        return [*listed, *extra], theirs
    return [*inputkinds.shipped(), *extra], inputkinds.tables(extra)


def _input(table: Any) -> Input:
    """[input] and the tables under it, each read as the kind that declares it
    says (`inputkinds`), checked whole: a kind's table without the kind, a kind
    without the table it needs, two touch grids."""
    if not isinstance(table, dict):
        raise schema.SchemaError("input", "expected a table")
    named = table.get("kinds")
    listed = (
        [k for k in named if isinstance(k, str) and k not in inputkinds.SHIPPED]
        if isinstance(named, list)
        else []
    )
    extra = [inputkinds.get(k) for k in listed if inputkinds.known(k)]  # installed kinds
    declared, subtables = _kinds_reading(table, named, extra)
    for key in table:
        if key not in subtables and key not in schema.keys(Input):  # a key, or a table misnamed
            raise schema.SchemaError(
                f"input.{key}",
                f"unknown key or table (expected {schema.or_list(schema.keys(Input))}, "
                f"or a table: {schema.or_list(subtables)})",
            )
    top = schema.build(Input, {k: v for k, v in table.items() if k not in subtables}, "input")
    for kind in declared:
        if kind.table in table and kind.name not in top.kinds:  # its pins would be kept, unread
            raise schema.SchemaError(
                "input.kinds",
                f"[input.{kind.table}] given, but no {kind.name!r} among the kinds: add it, "
                "or leave it out",
            )
    read: dict[str, object] = {
        name: schema.build(shared, table.get(name, {}), f"input.{name}")
        for name, shared in inputkinds.SHARED.items()
    }
    for kind in declared:
        if kind.table is not None and kind.table in table:
            read[kind.table] = kind.read(table[kind.table], f"input.{kind.table}")
    listed_kinds = inputkinds.of(top.kinds)
    for kind in listed_kinds:
        if kind.table is not None and kind.table not in read:
            found = kind.default()
            if found is None:
                raise schema.SchemaError("input.kinds", f"{kind.name!r} needs {kind.needs}")
            read[kind.table] = found
    grids = [k.name for k in listed_kinds if k.grid]
    if len(grids) > 1:
        raise schema.SchemaError(
            "input.kinds", f"one touch grid: {schema.or_list([repr(g) for g in grids])}"
        )
    return replace(top, tables=read)
