"""`script`: the lines of `--script FILE`, played by `keystand run` itself. A
script is no player: a build with nothing else is refused without --script."""

from __future__ import annotations

from typing import Any

from .base import InputKind


class Script(InputKind[Any]):
    name = "script"
    about = "script lines (--script FILE)"
    wired = False


KIND = Script()
