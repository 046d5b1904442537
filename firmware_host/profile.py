"""Build profiles: which panels, how mounted, which inputs (`hardware/*.toml`).

The profiles ship inside the package (`keystand.hardware`, read from
its folder), so `keystand run --profile desktop` works from a wheel as
from a checkout; `--profile PATH` reads any file. Each table is declared once,
below, as a dataclass (keys, types, defaults, allowed values: `schema.py`); a
profile is checked whole before anything starts, and a bad one is refused with
the file, the key, the value and what is allowed.

To add a key: a field with `setting(...)` in its table's dataclass. To add a
table: a dataclass, a field on `Profile`, and a line in `load`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import pins, schema
from .rules import KeystandError
from .schema import setting

SEATS = ("A", "B")
PANEL_DRIVERS = ("sim", "waveshare")
PANEL_MODELS = ("epd2in13_V4", "epd2in7_V2", "epd2in9_V2", "epd4in2_V2")
INPUT_KINDS = ("simulator", "script", "keyboard", "keys", "mpr121", "serial-grid")
KEY_NAMES = ("clue", "pass", "undo", "menu")  # a seat's four keys, as labelled
# The edges of a seat's screen its keys may sit along (keystand.layouts.EDGES:
# tests/test_key_labels.py checks the two agree; the layouts load Pillow).
KEY_EDGES = ("left", "right", "top", "bottom")


# The inputs that can name a word directly (a touch grid, the page, the terminal).
TOUCH_SOURCES = ("mpr121", "serial-grid", "simulator", "keyboard")


# What a player gives the stand: a clue (a seat's clue key, the page's keys, a
# typed line) and a word (a touch on a grid or on the page, a typed line, or on
# keys alone the guesser's cursor). A script is no player: `run --script` plays
# without these.
CLUE_SOURCES = ("keys", "simulator", "keyboard")
WORD_SOURCES = ("keys", "simulator", "keyboard", "mpr121", "serial-grid")


def unplayable(kinds: Sequence[str]) -> str | None:
    """What a build with these input kinds lacks for a player to play it, in
    words, or None: it must let a player give a clue and name a word."""
    if any(k in CLUE_SOURCES for k in kinds):
        return None  # each of them names words too
    given = f"its inputs: {', '.join(kinds)}" if kinds else "it has none"
    if any(k in WORD_SOURCES for k in kinds):
        lacks = "give a clue with (a touch grid names words only)"
    else:
        lacks = "give a clue or name a word with"
    return f'no input a player can {lacks} ({given}): add "keys", "simulator" or "keyboard"'


def check_playable(profile: Profile) -> None:
    """ProfileError, one line naming what is missing, for a build no player could
    play: `profile check`, doctor and `run` (without --script) refuse it."""
    missing = unplayable(profile.input.kinds)
    if missing is not None:
        raise ProfileError(profile.source, "input.kinds", missing)


def cursor_keys(kinds: Sequence[str]) -> bool:
    """A build with keys and nothing to touch a word with: the guesser picks the
    word with a cursor on their own screen (docs/buttons-only.md)."""
    return "keys" in kinds and not any(k in kinds for k in TOUCH_SOURCES)


class ProfileError(KeystandError, ValueError):
    def __init__(self, source: str, key: str, detail: str) -> None:
        self.source, self.key, self.detail = source, key, detail
        super().__init__(f"{source}: {key}: {detail}")


def _languages() -> tuple[str, ...]:
    from keystand.layouts import languages  # the strings files say which there are

    return tuple(languages())


# The URL handlers pyserial ships (serial.protocol_handler_packages' `protocol_*`
# modules); anything else fails only at the table ("protocol ... not known").
SERIAL_URL_SCHEMES = ("socket", "rfc2217", "loop", "spy", "hwgrep", "alt", "cp2110")


def _serial_port(port: str) -> str | None:
    """A device's absolute path, or a pyserial URL (`socket://`, `rfc2217://`: a grid
    reached over the network, or the tests' loop): a bare `ttyACM0` or an empty
    string would be opened relative to the service's folder, and fail at the table."""
    scheme = port.split("://", 1)[0] if "://" in port else None
    if port.startswith("/") or scheme in SERIAL_URL_SCHEMES:
        return None
    return (
        f"{schema.toml(port)}: expected a device path such as /dev/ttyACM0 or a pyserial "
        f"URL ({', '.join(f'{s}://' for s in SERIAL_URL_SCHEMES)})"
    )


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


@dataclass(frozen=True)
class Keys:
    """[input.keys]: the seats' keys; [input.keys.A] / [input.keys.B] give each
    key's BCM GPIO (`clue`, `pass`, `undo`, `menu`; wired to ground)."""

    hold_time: float = setting(1.0, between=(0.2, 10), unit="seconds", doc="a long press")
    bounce_time: float = setting(0.03, between=(0, 0.5), unit="seconds", doc="contact chatter")
    pull_up: bool = setting(True, doc="keys switch to ground (the HAT's); false: to 3V3")
    pins: dict[str, dict[str, int]] = field(default_factory=dict)  # {seat: {key: GPIO}}


@dataclass(frozen=True)
class Touch:
    """[input.touch]: how a contact on either grid becomes a touch."""

    dwell: float = setting(0.08, between=(0, 2), unit="seconds", doc="steady on one cell")
    palm: float = setting(0.04, between=(0, 2), unit="seconds", doc="several cells: not a touch")
    bounce: float = setting(0.5, between=(0, 5), unit="seconds", doc="same cell again: a bounce")
    stuck: float = setting(10.0, between=(1, 600), unit="seconds", doc="a contact held this long")
    mirror: bool = setting(False, doc="the mat's columns run right to left as seat A sees them")


@dataclass(frozen=True)
class Mpr121:
    """[input.mpr121]: the touch grid on I2C. Its electrode map is either
    `pads = {"0x5A" = [cell of electrode 0, ...], ...}` (one pad per cell, up to
    three chips) or `address`, `rows` and `cols` (five row and five column strips
    on one chip); cells are row * cols + col of the game's grid (row * 5 + col on
    Codenames' 5x5), -1 for an unused electrode."""

    bus: int = setting(1, between=(0, 20), doc="/dev/i2c-N")
    touch_threshold: int = setting(12, between=(1, 255))
    release_threshold: int = setting(6, between=(1, 255))
    poll: float = setting(0.01, between=(0.001, 1), unit="seconds")
    electrodes: dict[str, Any] = field(default_factory=dict)  # pads, or address/rows/cols


@dataclass(frozen=True)
class Serial:
    """[input.serial]: the touch grid's controller on USB serial."""

    port: str = setting("/dev/ttyACM0", check=_serial_port, doc="better a /dev/serial/by-id/ name")
    baudrate: int = setting(115200, choices=(9600, 57600, 115200, 230400, 460800, 921600))


@dataclass(frozen=True)
class Input:
    """[input]: where input comes from; [input.keys], [input.touch],
    [input.mpr121] and [input.serial] say how, for the kinds that need them."""

    kinds: tuple[str, ...] = setting(("simulator",), choices=INPUT_KINDS)
    host: str = setting("127.0.0.1", check=_loopback)
    port: int = setting(8027, between=(1, 65535))
    keys: Keys | None = None
    touch: Touch = field(default_factory=Touch)
    mpr121: Mpr121 | None = None
    serial: Serial | None = None


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
    _check_key_labels(profile)
    return profile


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


SUBTABLES = ("keys", "touch", "mpr121", "serial")


def _input(table: Any) -> Input:
    if not isinstance(table, dict):
        raise schema.SchemaError("input", "expected a table")
    for key in table:
        if key not in SUBTABLES and key not in schema.keys(Input):  # a key, or a table misnamed
            raise schema.SchemaError(
                f"input.{key}",
                f"unknown key or table (expected {schema.or_list(schema.keys(Input))}, "
                f"or a table: {schema.or_list(SUBTABLES)})",
            )
    top = schema.build(Input, {k: v for k, v in table.items() if k not in SUBTABLES}, "input")
    for sub, kind in (("keys", "keys"), ("mpr121", "mpr121"), ("serial", "serial-grid")):
        if sub in table and kind not in top.kinds:  # its pins would be kept, unread
            raise schema.SchemaError(
                "input.kinds",
                f"[input.{sub}] given, but no {kind!r} among the kinds: add it, or leave it out",
            )
    keys = _keys(table["keys"]) if "keys" in table else None
    touch = schema.build(Touch, table.get("touch", {}), "input.touch")
    mpr121 = _mpr121(table["mpr121"]) if "mpr121" in table else None
    serial = schema.build(Serial, table["serial"], "input.serial") if "serial" in table else None
    for kind, given, where in (
        ("keys", keys, "[input.keys.A] and [input.keys.B]"),
        ("mpr121", mpr121, "[input.mpr121] with its electrode map"),
        ("serial-grid", serial, "[input.serial]"),
    ):
        if kind in top.kinds and given is None:
            raise schema.SchemaError("input.kinds", f"{kind!r} needs {where}")
    if "mpr121" in top.kinds and "serial-grid" in top.kinds:
        raise schema.SchemaError("input.kinds", "one touch grid: 'mpr121' or 'serial-grid'")
    return replace(top, keys=keys, touch=touch, mpr121=mpr121, serial=serial)


def _keys(table: Any) -> Keys:
    if not isinstance(table, dict):
        raise schema.SchemaError("input.keys", "expected a table")
    pins: dict[str, dict[str, int]] = {}
    for seat in SEATS:
        seat_table = table.get(seat)
        where = f"input.keys.{seat}"
        if not isinstance(seat_table, dict):
            raise schema.SchemaError(where, f"expected a table of {', '.join(KEY_NAMES)} (GPIO)")
        for name, pin in seat_table.items():
            if name not in KEY_NAMES:
                raise schema.SchemaError(
                    f"{where}.{name}", f"unknown key (expected {schema.or_list(KEY_NAMES)})"
                )
            if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 27:
                raise schema.SchemaError(f"{where}.{name}", f"{pin!r}: expected a GPIO 0..27")
        missing = [k for k in KEY_NAMES if k not in seat_table]
        if missing:
            raise schema.SchemaError(where, f"no GPIO for {schema.or_list(missing)}")
        pins[seat] = dict(seat_table)
    timing = {k: v for k, v in table.items() if k not in SEATS}
    return replace(schema.build(Keys, timing, "input.keys"), pins=pins)


def _mpr121(table: Any) -> Mpr121:
    if not isinstance(table, dict):
        raise schema.SchemaError("input.mpr121", "expected a table")
    map_keys = ("pads", "address", "rows", "cols")
    settings = schema.build(
        Mpr121, {k: v for k, v in table.items() if k not in map_keys}, "input.mpr121"
    )
    electrodes = {k: table[k] for k in map_keys if k in table}
    if settings.release_threshold >= settings.touch_threshold:
        raise schema.SchemaError(
            "input.mpr121.release_threshold",
            f"{settings.release_threshold}: must be below touch_threshold "
            f"{settings.touch_threshold}",
        )
    from keystand.drivers.inputs.mpr121 import electrode_map  # pure: no I2C at import

    try:
        electrode_map(electrodes)
    except ValueError as e:
        raise schema.SchemaError("input.mpr121", str(e)) from None
    return replace(settings, electrodes=electrodes)
