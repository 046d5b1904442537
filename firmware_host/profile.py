"""Build profiles (hardware/*.toml): which panels, how mounted, which inputs.

Every key is checked: an unknown key, a wrong type or a value out of range is
refused with the file, the key and what was expected, before anything starts.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keystand.drivers.display import MODELS

from .rules import KeystandError

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
INPUTS = ("simulator", "script", "keyboard")


class ProfileError(KeystandError, ValueError):
    def __init__(self, source: str, key: str, detail: str) -> None:
        self.source, self.key, self.detail = source, key, detail
        super().__init__(f"{source}: {key}: {detail}")


@dataclass(frozen=True)
class PanelConfig:
    model: str = "epd2in7_V2"
    rotation: int = 90
    speed: float = 1.0  # the simulated panel's pace: 1 real time, 0 no waiting


@dataclass(frozen=True)
class Profile:
    name: str
    driver: str = "sim"  # "sim" (desktop) or "waveshare" (a Pi)
    panels: dict[str, PanelConfig] = field(default_factory=dict)
    max_partials: int = 10
    idle_sleep: float = 120.0
    inputs: tuple[str, ...] = ("simulator",)
    host: str = "127.0.0.1"
    port: int = 8027
    undo_window: float = 5.0
    reveal_delay: float = 10.0
    lang: str = "en"


_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "stand": {
        "driver": (str,),
        "max_partials": (int,),
        "idle_sleep": (int, float),
        "undo_window": (int, float),
        "reveal_delay": (int, float),
        "lang": (str,),
    },
    "panel": {"model": (str,), "rotation": (int,), "speed": (int, float)},
    "input": {"kinds": (list,), "host": (str,), "port": (int,)},
}


def _check(source: str, where: str, table: Any, schema: dict[str, tuple[type, ...]]) -> dict:
    if not isinstance(table, dict):
        raise ProfileError(source, where, "expected a table")
    for key, value in table.items():
        if key not in schema:
            raise ProfileError(
                source, f"{where}.{key}", f"unknown key (expected one of {', '.join(schema)})"
            )
        types = schema[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            names = " or ".join(t.__name__ for t in types)
            raise ProfileError(source, f"{where}.{key}", f"{value!r} is not {names}")
    return table


def load(name_or_path: str) -> Profile:
    """A profile by name (hardware/NAME.toml) or by path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = HARDWARE / f"{name_or_path}.toml"
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(sorted(p.stem for p in HARDWARE.glob("*.toml")))
        raise ProfileError(source, "profile", f"no such file (profiles: {known})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(source, "profile", f"cannot read: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(source, "profile", f"not TOML: {e}") from None
    for key in data:
        if key not in ("stand", "panels", "input"):
            raise ProfileError(source, key, "unknown table (expected stand, panels, input)")
    stand = _check(source, "stand", data.get("stand", {}), _SCHEMA["stand"])
    inputs = _check(source, "input", data.get("input", {}), _SCHEMA["input"])
    panels_table = data.get("panels", {})
    if not isinstance(panels_table, dict):
        raise ProfileError(source, "panels", "expected a table")
    default = _check(
        source,
        "panels",
        {k: v for k, v in panels_table.items() if k not in ("A", "B")},
        _SCHEMA["panel"],
    )
    panels = {}
    for seat in ("A", "B"):
        own = _check(source, f"panels.{seat}", panels_table.get(seat, {}), _SCHEMA["panel"])
        merged = {**default, **own}
        cfg = PanelConfig(**merged)
        if cfg.model not in MODELS:
            raise ProfileError(
                source,
                f"panels.{seat}.model",
                f"{cfg.model!r}: expected one of {', '.join(MODELS)}",
            )
        if cfg.rotation not in (0, 90, 180, 270):
            raise ProfileError(source, f"panels.{seat}.rotation", "expected 0, 90, 180 or 270")
        if not 0 <= cfg.speed <= 10:
            raise ProfileError(source, f"panels.{seat}.speed", "expected 0..10")
        panels[seat] = cfg
    profile = Profile(
        name=path.stem,
        panels=panels,
        inputs=tuple(inputs.get("kinds", ["simulator"])),
        host=inputs.get("host", "127.0.0.1"),
        port=inputs.get("port", 8027),
        **stand,
    )
    for kind in profile.inputs:
        if kind not in INPUTS:
            raise ProfileError(source, "input.kinds", f"{kind!r}: expected {', '.join(INPUTS)}")
    if profile.driver not in ("sim", "waveshare"):
        raise ProfileError(source, "stand.driver", f"{profile.driver!r}: expected sim or waveshare")
    if not 0 <= profile.max_partials <= 1000:
        raise ProfileError(source, "stand.max_partials", "expected 0..1000")
    if not 1 <= profile.idle_sleep <= 86400:
        raise ProfileError(source, "stand.idle_sleep", "expected 1..86400 seconds")
    if not 1 <= profile.undo_window <= 60:
        raise ProfileError(source, "stand.undo_window", "expected 1..60 seconds")
    if not 0 <= profile.reveal_delay <= 120:
        raise ProfileError(source, "stand.reveal_delay", "expected 0..120 seconds")
    from keystand.layouts import languages  # the strings files say which there are

    if profile.lang not in languages():
        raise ProfileError(
            source, "stand.lang", f"{profile.lang!r}: expected one of {', '.join(languages())}"
        )
    if not 1 <= profile.port <= 65535:
        raise ProfileError(source, "input.port", "expected 1..65535")
    return profile
