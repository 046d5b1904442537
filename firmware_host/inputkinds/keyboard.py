"""`keyboard`: touch and press lines typed on the terminal (`keystand run`
reads them itself, unless a script plays)."""

from __future__ import annotations

from typing import Any

from .base import InputKind, Word


class Keyboard(InputKind[Any]):
    name = "keyboard"
    about = "touch/press lines typed on stdin"
    clue = True
    word = Word.TOUCH
    wired = False


KIND = Keyboard()
