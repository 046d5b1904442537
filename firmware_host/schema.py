"""Settings files declared once: a frozen dataclass per TOML table, each key a
field whose type, default and allowed values say everything about it.

    @dataclass(frozen=True)
    class Stand:
        max_partials: int = setting(10, between=(0, 1000), doc="partials between clears")

`build(Stand, table, "stand")` checks a parsed TOML table against it: an unknown
key, a wrong type or a value out of range raises `SchemaError` naming the key
(`stand.max_partials`), the value and what is allowed. Types understood: str,
int, float (an int is taken), bool, tuple[str, ...] (a TOML array of strings).
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
import types
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .cliutil import FileRefused, read_regular
from .errors import KeystandError

T = TypeVar("T")

Choices = Sequence[Any] | Callable[[], Sequence[Any]]
Check = Callable[[Any], str | None]


class SchemaError(KeystandError, ValueError):
    """A value in a settings table that the declaration does not allow."""

    def __init__(self, key: str, detail: str) -> None:
        self.key, self.detail = key, detail
        super().__init__(f"{key}: {detail}")


def setting(
    default: Any,
    *,
    between: tuple[float, float] | None = None,
    unit: str = "",
    choices: Choices | None = None,
    check: Check | None = None,
    doc: str = "",
) -> Any:
    """A field of a settings table: its default and what values it allows."""
    meta = {"between": between, "unit": unit, "choices": choices, "check": check, "doc": doc}
    return dataclasses.field(default=default, metadata=meta)


def or_list(options: Sequence[Any]) -> str:
    """'a or b', '0, 90, 180 or 270', 'one of de, en, ru' (strings, three or more)."""
    words = [str(o) for o in options]
    if len(words) <= 2:
        return " or ".join(words)
    if all(isinstance(o, str) for o in options):
        return "one of " + ", ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _type_name(hint: Any) -> str:
    """What a value must be, in the words of a settings file."""
    if typing.get_origin(hint) is tuple:
        return "a list of strings"
    names = {float: "a number", int: "a whole number", str: "a string", bool: "true or false"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def toml(value: Any) -> str:
    """A value as the settings file spells it (true, "text", [1, 2])."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _typed(key: str, value: Any, hint: Any) -> Any:
    bad = SchemaError(key, f"{toml(value)} is not {_type_name(hint)}")
    if hint is bool:
        if not isinstance(value, bool):
            raise bad
        return value
    if isinstance(value, bool):
        raise bad
    if hint is float:
        if not isinstance(value, int | float):
            raise bad
        return float(value)
    if hint is int or hint is str:
        if not isinstance(value, hint):
            raise bad
        return value
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad
        return tuple(value)
    raise TypeError(f"{key}: the schema cannot read a {hint!r} field")


def _allowed(key: str, value: Any, meta: Any) -> None:
    between = meta.get("between")
    if between is not None:
        lo, hi = between
        if not (isinstance(value, int | float) and math.isfinite(value) and lo <= value <= hi):
            unit = f" {meta['unit']}" if meta.get("unit") else ""
            raise SchemaError(key, f"{value!r}: expected {lo:g}..{hi:g}{unit}")
    choices = meta.get("choices")
    if choices is not None:
        options = choices() if callable(choices) else choices
        for item in value if isinstance(value, tuple) else (value,):
            if item not in options:
                raise SchemaError(key, f"{toml(item)}: expected {or_list(options)}")
    check = meta.get("check")
    if check is not None and (problem := check(value)):
        raise SchemaError(key, problem)


def _settings(cls: type) -> dict[str, dataclasses.Field[Any]]:
    """The fields declared with `setting` (others are filled in by the loader)."""
    return {f.name: f for f in dataclasses.fields(cls) if f.init and "doc" in f.metadata}


MAX_BYTES = 64 * 1024  # the largest real settings file is a few KiB; a bigger one is a mistake


def read_toml(path: Any, key: str, what: str) -> dict[str, Any]:
    """The TOML tables in the file at `path` (a Path or an importlib resource):
    SchemaError(key, ...) if it cannot be read or is not `what` (not a regular
    file, too big, not UTF-8, not TOML). FileNotFoundError passes: the caller
    knows what there is instead."""
    try:
        if isinstance(path, Path):  # a user's file: no FIFO, folder or device
            data = read_regular(path, what.removeprefix("a "), MAX_BYTES)
        else:  # a resource inside a zipped package: ours, still read with the cap
            with path.open("rb") as f:
                data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise
    except FileRefused as e:
        raise SchemaError(key, e.detail) from None
    except OSError as e:
        raise SchemaError(key, f"cannot read: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise SchemaError(key, f"larger than {MAX_BYTES // 1024} KiB: not {what}")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise SchemaError(key, f"not UTF-8 text (byte {e.start})") from None
    except tomllib.TOMLDecodeError as e:
        raise SchemaError(key, f"not TOML: {e}") from None


def keys(cls: type) -> tuple[str, ...]:
    return tuple(_settings(cls))


def values(cls: type[T], table: Any, where: str) -> dict[str, Any]:
    """The table's values, typed and checked (only the keys it has)."""
    if not isinstance(table, dict):
        raise SchemaError(where, "expected a table")
    hints = typing.get_type_hints(cls)
    fields = _settings(cls)
    out = {}
    for key, value in table.items():
        if key not in fields:
            raise SchemaError(f"{where}.{key}", f"unknown key (expected {or_list(keys(cls))})")
        hint = hints[key]
        if isinstance(hint, types.UnionType):
            raise TypeError(f"{where}.{key}: optional keys are not supported")
        typed = _typed(f"{where}.{key}", value, hint)
        _allowed(f"{where}.{key}", typed, fields[key].metadata)
        out[key] = typed
    return out


def build(cls: type[T], table: Any, where: str) -> T:
    """An instance of `cls` from a TOML table: defaults for the keys it lacks."""
    return cls(**values(cls, table, where))


def defaults_checked(cls: type) -> None:
    """Raise if a declared default breaks its own declaration (a test calls it)."""
    for f in dataclasses.fields(cls):
        if f.init and f.default is not dataclasses.MISSING:
            _allowed(f"{cls.__name__}.{f.name}", f.default, f.metadata)
