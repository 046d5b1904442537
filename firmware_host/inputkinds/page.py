"""`simulator`: the simulator page on loopback, its keys beside each screen and
its table of words. `keystand run` serves it itself (its address is the
profile's `[input] host` and `port`, or `--port`; `--no-page` leaves it out)."""

from __future__ import annotations

from typing import Any

from .base import InputKind, Word


class Page(InputKind[Any]):
    name = "simulator"
    about = "the simulator page on loopback"
    clue = True
    word = Word.TOUCH
    wired = False


KIND = Page()
