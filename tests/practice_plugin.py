"""Installs the test-only practice game (tests/keystand_practice) the way any game
packaged apart from keystand is installed: a distribution's metadata on the
path whose `keystand.games` entry point names it."""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ENTRY_POINTS = "[keystand.games]\npractice = keystand_practice:GAME\n"


def install(folder: Path) -> Path:
    """Writes the practice game's distribution metadata into `folder` (put it on
    sys.path or PYTHONPATH beside the tests folder); returns `folder`."""
    info = folder / "keystand_practice-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: keystand-practice\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder


def environ(folder: Path) -> dict[str, str]:
    """The environment of a `keystand` subprocess that finds the practice game."""
    paths = [str(TESTS), str(install(folder))]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
