"""Build profiles: which panels, how mounted, which inputs (`hardware/*.toml`).

The profiles ship inside the package (`keystand.hardware`, read with
importlib.resources), so `keystand run --profile desktop` works from a wheel as
from a checkout; `--profile PATH` reads any file. Each table is declared once,
below, as a dataclass (keys, types, defaults, allowed values: `schema.py`); a
profile is checked whole before anything starts, and a bad one is refused with
the file, the key, the value and what is allowed.

To add a key: a field with `setting(...)` in its table's dataclass. To add a
table: a dataclass, a field on `Profile`, and a line in `load`.
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from . import schema
from .rules import KeystandError
from .schema import setting

MAX_BYTES = 64 * 1024  # the largest real profile is a few KiB; a bigger file is a mistake
SEATS = ("A", "B")
PANEL_DRIVERS = ("sim", "waveshare")
PANEL_MODELS = ("epd2in13_V4", "epd2in7_V2", "epd2in9_V2", "epd4in2_V2")
INPUT_KINDS = ("simulator", "script", "keyboard")


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


@dataclass(frozen=True)
class Stand:
    """[stand]: the stand as a whole."""

    driver: str = setting("sim", choices=PANEL_DRIVERS, doc="panel driver")
    max_partials: int = setting(10, between=(0, 1000), doc="partials before a clearing refresh")
    idle_sleep: float = setting(120.0, between=(1, 86400), unit="seconds")
    undo_window: float = setting(5.0, between=(1, 60), unit="seconds")
    reveal_delay: float = setting(10.0, between=(0, 120), unit="seconds")
    lang: str = setting("en", choices=_languages)


@dataclass(frozen=True)
class Panel:
    """[panels] for both seats, [panels.A] / [panels.B] for one."""

    model: str = setting("epd2in7_V2", choices=PANEL_MODELS)
    rotation: int = setting(90, choices=(0, 90, 180, 270), doc="clockwise, picture to panel")
    speed: float = setting(1.0, between=(0, 10), doc="simulated pace: 1 real, 0 no waiting")
    # Where a Waveshare panel is wired (BCM GPIO numbers; the HAT's own by default).
    spi_device: int = setting(0, choices=(0, 1), doc="SPI0 chip select: 0 CE0, 1 CE1")
    rst: int = setting(17, between=(0, 27), doc="reset line")
    dc: int = setting(25, between=(0, 27), doc="data/command line")
    busy: int = setting(24, between=(0, 27), doc="busy line")
    pwr: int = setting(18, between=(-1, 27), doc="panel power switch; -1: none")
    busy_timeout: float = setting(0.0, between=(0, 300), unit="seconds", doc="0: the default")


@dataclass(frozen=True)
class Input:
    """[input]: where input comes from."""

    kinds: tuple[str, ...] = setting(("simulator",), choices=INPUT_KINDS)
    host: str = setting("127.0.0.1", check=_loopback)
    port: int = setting(8027, between=(1, 65535))


@dataclass(frozen=True)
class Profile:
    name: str
    source: str = "(defaults)"
    stand: Stand = field(default_factory=Stand)
    panels: dict[str, Panel] = field(default_factory=lambda: {s: Panel() for s in SEATS})
    input: Input = field(default_factory=Input)


TABLES = ("stand", "panels", "input")


def shipped() -> dict[str, Any]:
    """The profiles installed with keystand, by name."""
    folder = resources.files("keystand.hardware")
    return {p.name[:-5]: p for p in folder.iterdir() if p.name.endswith(".toml")}


def _source(name_or_path: str) -> tuple[str, Any]:
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
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        known = ", ".join(sorted(shipped()))
        raise ProfileError(source, "profile", f"no such file (profiles: {known})") from None
    except OSError as e:
        raise ProfileError(source, "profile", f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise ProfileError(source, "profile", f"larger than {MAX_BYTES // 1024} KiB: not a profile")
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ProfileError(source, "profile", f"not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(source, "profile", f"not TOML: {e}") from None
    try:
        return _profile(Path(source).stem, source, table)
    except schema.SchemaError as e:
        raise ProfileError(source, e.key, e.detail) from None


def _profile(name: str, source: str, data: dict[str, Any]) -> Profile:
    for key in data:
        if key not in TABLES:
            raise schema.SchemaError(key, f"unknown table (expected {schema.or_list(TABLES)})")
    panels_table = data.get("panels", {})
    if not isinstance(panels_table, dict):
        raise schema.SchemaError("panels", "expected a table")
    shared = schema.values(
        Panel, {k: v for k, v in panels_table.items() if k not in SEATS}, "panels"
    )
    panels = {
        seat: Panel(
            **{**shared, **schema.values(Panel, panels_table.get(seat, {}), f"panels.{seat}")}
        )
        for seat in SEATS
    }
    return Profile(
        name=name,
        source=source,
        stand=schema.build(Stand, data.get("stand", {}), "stand"),
        panels=panels,
        input=schema.build(Input, data.get("input", {}), "input"),
    )
