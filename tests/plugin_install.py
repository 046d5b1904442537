"""Installs a test-only extension (a game, an input kind) the way any package
apart from keystand is installed: a distribution's metadata on the path, whose
entry point in keystand's group names the package in tests/."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Plugin:
    """One test-only distribution: `package` in tests/, `name = package:target`
    under the entry point `group`."""

    package: str
    group: str
    name: str
    target: str

    def install(self, folder: Path) -> Path:
        """Writes the distribution's metadata into `folder` (put it on sys.path or
        PYTHONPATH beside the tests folder); returns `folder`."""
        info = folder / f"{self.package}-1.0.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        dist = self.package.replace("_", "-")
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8"
        )
        entry = f"[{self.group}]\n{self.name} = {self.package}:{self.target}\n"
        (info / "entry_points.txt").write_text(entry, encoding="utf-8")
        return folder

    def environ(self, folder: Path) -> dict[str, str]:
        """The environment of a `keystand` subprocess that finds the extension."""
        paths = [str(TESTS), str(self.install(folder))]
        if os.environ.get("PYTHONPATH"):
            paths.append(os.environ["PYTHONPATH"])
        return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
