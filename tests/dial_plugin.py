"""Installs the test-only input kind (tests/keystand_dial) the way any kind
packaged apart from keystand is installed: a distribution's metadata on the
path whose `keystand.inputs` entry point names it."""

from __future__ import annotations

import os
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ENTRY_POINTS = "[keystand.inputs]\ndial = keystand_dial:KIND\n"


def install(folder: Path) -> Path:
    """Writes the dial's distribution metadata into `folder` (put it on sys.path
    or PYTHONPATH beside the tests folder); returns `folder`."""
    info = folder / "keystand_dial-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: keystand-dial\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder


def environ(folder: Path) -> dict[str, str]:
    """The environment of a `keystand` subprocess that finds the dial."""
    paths = [str(TESTS), str(install(folder))]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
