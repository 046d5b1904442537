"""The redraw version: one mechanism that moves it whenever what a screen may show
changed, so no handler has to remember to.

An object with a `version` says what its screens may show in `shown()`; each of
its public methods that may change that is an `entry`, which compares `shown()`
before and after the call and moves the version if they differ. The service
redraws when the version moved.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Concatenate, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class Watched(Protocol):
    version: int

    def shown(self) -> list[object]: ...


W = TypeVar("W", bound=Watched)
P = ParamSpec("P")
R = TypeVar("R")


def entry(method: Callable[Concatenate[W, P], R]) -> Callable[Concatenate[W, P], R]:
    """A public method that may change what a screen shows: the version moves if
    it did (also when it fails halfway: what changed is drawn)."""

    @functools.wraps(method)
    def changing(watched: W, *args: P.args, **kwargs: P.kwargs) -> R:
        before = watched.shown()
        try:
            return method(watched, *args, **kwargs)
        finally:
            if watched.shown() != before:
                watched.version += 1

    return changing


def fields_shown(obj: DataclassInstance, unshown: frozenset[str]) -> list[object]:
    """The values of `obj`'s fields but those `unshown` names, as they are now: a new
    field is watched until someone says no screen shows it."""
    return [_still(getattr(obj, f.name)) for f in fields(obj) if f.name not in unshown]


def _still(value: object) -> object:
    """`value` out of reach of later changes in place, as `==` compares it: a value
    that can be hashed is kept as it is (a game's state is immutable, and compared
    by value); a mutable dataclass by the fields its `==` compares (a timer's clock
    and the state it runs for are not, and copying that state took a third of the
    stand's time in the bench); dicts, lists and sets item by item; anything else copied whole."""
    if type(value).__hash__ is not None:
        return value
    if is_dataclass(value) and not isinstance(value, type):
        compared = (_still(getattr(value, f.name)) for f in fields(value) if f.compare)
        return (type(value), *compared)
    if isinstance(value, dict):
        return {key: _still(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_still(item) for item in value]
    if isinstance(value, set):
        return frozenset(value)
    return copy.deepcopy(value)
