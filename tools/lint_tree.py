"""Run import-linter or mypy over keystand as it installs (`make test` does both).

keystand is one import root made of three folders (pyproject's `package-dir`:
firmware_host/ -> keystand, drivers/ -> keystand.drivers, ...). The editable
install maps them with an import hook that neither tool follows, so this script
lays the package out as a wheel would, in a temporary folder of links to the
checkout's files, runs the tool there, and names the checkout's files in what
it prints.

    python tools/lint_tree.py imports [CHECKOUT]   # lint-imports, pyproject's contracts
    python tools/lint_tree.py types [CHECKOUT]     # mypy, pyproject's settings
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

# Laid out beside keystand: the test-only practice game (tests/test_practice_game.py),
# so mypy checks a game from outside keystand against the seam as it checks the
# shipped ones (pyproject's [tool.mypy] packages names it).
# The test-only input kind (tests/test_input_kind_plugin.py) likewise, against InputKind.
ALSO = {"keystand_practice": "tests/keystand_practice", "keystand_dial": "tests/keystand_dial"}


def lay_out(checkout: Path, into: Path) -> dict[str, Path]:
    """Link every file of each package-dir folder under `into` at its import path;
    returns {path under into: path in the checkout} for the messages."""
    config = tomllib.loads((checkout / "pyproject.toml").read_text())
    mapping = {**config["tool"]["setuptools"]["package-dir"], **ALSO}
    names: dict[str, Path] = {}
    # Longest import names last, so keystand.drivers lands inside keystand.
    for package, folder in sorted(mapping.items(), key=lambda kv: kv[0].count(".")):
        target = into.joinpath(*package.split("."))
        source = checkout / folder
        for path in sorted(source.rglob("*")):
            rel = path.relative_to(source)
            if "__pycache__" in rel.parts or path.is_dir():
                continue
            if path.suffix == ".py" and not (path.parent / "__init__.py").exists():
                continue  # not part of the package (the grid's MicroPython firmware)
            link = target / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            if not link.exists():
                link.symlink_to(path)
                names[str(link)] = path
    return names


def run(tool: str, checkout: Path) -> int:
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="keystand-tree-") as tmp:
        tree = Path(tmp)
        names = lay_out(checkout, tree)
        env = {**os.environ, "PYTHONPATH": str(tree), "MYPYPATH": str(tree)}
        if tool == "imports":
            command = [str(bin_dir / "lint-imports"), "--config", str(checkout / "pyproject.toml")]
        elif tool == "types":
            command = [
                str(bin_dir / "mypy"),
                "--config-file",
                str(checkout / "pyproject.toml"),
                "--cache-dir",
                str(checkout / ".mypy_cache"),
            ]
        else:
            print(f"lint_tree: {tool!r}: expected imports or types", file=sys.stderr)
            return 2
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
        text = done.stdout + done.stderr
        for link, real in sorted(names.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(link, str(real.relative_to(checkout)))
            text = text.replace(os.path.relpath(link, tree), str(real.relative_to(checkout)))
        print(text, end="")
        return done.returncode


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if args else 2)
    sys.exit(run(args[0], Path(args[1] if len(args) > 1 else ".").resolve()))
