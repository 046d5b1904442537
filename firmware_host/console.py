"""The `keystand` console script (pyproject's [project.scripts], and
`python -m keystand`): the command line, loaded with the cyclic garbage
collector off."""

from __future__ import annotations

import gc


def main() -> int:
    # Loading the command line and the command's own modules makes most of the
    # objects the process keeps for its life (modules, classes, functions) and
    # almost no garbage: the collector's passes over them as they come are spent
    # for nothing (issue 33: a stand's start). `cli.main` turns it on again once
    # the command is parsed (`run` then builds its stand with it off again).
    gc.disable()
    from .cli import main as command_line

    return command_line()
