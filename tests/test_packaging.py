"""The package as pip installs it: every module folder listed, data files shipped,
no hardware library imported by anything a desktop loads."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
HARDWARE_LIBS = ("RPi", "spidev", "lgpio", "waveshare_epd", "gpiozero.pins.lgpio", "smbus2")


def package_of(folder: Path) -> str:
    for name, where in sorted(
        PYPROJECT["tool"]["setuptools"]["package-dir"].items(), key=lambda kv: -len(kv[1])
    ):
        base = ROOT / where
        if folder == base or base in folder.parents:
            rest = folder.relative_to(base).parts
            return ".".join([name, *rest])
    raise AssertionError(f"{folder} is under no package-dir entry")


def test_every_package_folder_is_listed() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    for where in ("firmware_host", "drivers", "layouts"):
        for init in (ROOT / where).rglob("__init__.py"):
            assert package_of(init.parent) in listed, f"{init.parent} missing from packages"


def test_no_hardware_library_is_imported_on_a_desktop() -> None:
    """Importing every module (and starting the CLI) pulls in no hardware library."""
    code = (
        "import importlib, pkgutil, sys, keystand, keystand.drivers, keystand.layouts\n"
        "for pkg in (keystand, keystand.drivers, keystand.layouts):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.endswith('__main__'):\n"
        "            importlib.import_module(m.name)\n"
        "from keystand.cli import _parser; _parser()\n"
        f"libs = {HARDWARE_LIBS!r}\n"
        "bad = [n for n in sys.modules if n.split('.')[0] in libs or n in libs]\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_the_installed_package_carries_what_emulation_loads() -> None:
    """An installed stand (a wheel, not this checkout) runs `--emulate` of every
    build: the emulated serial grid loads the grid's firmware modules from the
    package, so package-data must name them."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["keystand.hardware"]
    for module in sorted((ROOT / "hardware" / "grid-firmware").glob("*.py")):
        assert any(Path(module.relative_to(ROOT / "hardware")).match(g) for g in data), module


def test_the_package_says_it_is_typed() -> None:
    """PEP 561's marker in the package, shipped as package data, so a package
    written apart from keystand (a game, an input kind) type-checks against it."""
    assert (ROOT / "firmware_host" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["keystand"]


def installed_as_a_wheel_would(venv: Path) -> None:
    """A bare venv whose site-packages holds keystand laid out as a wheel installs
    it (tools/lint_tree.py's links to the checkout's files, py.typed among them)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    (site,) = venv.glob("lib/python3*/site-packages")
    spec = importlib.util.spec_from_file_location("lint_tree", ROOT / "tools" / "lint_tree.py")
    assert spec is not None and spec.loader is not None
    lint_tree = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lint_tree)
    lint_tree.lay_out(ROOT, site)


def test_a_package_apart_from_keystand_type_checks_against_it(tmp_path: Path) -> None:
    """mypy reads keystand's own annotations from an installed keystand (not the
    "missing library stubs or py.typed marker" it gives an untyped package), so a
    wrong use in a package written apart from it is found."""
    pytest.importorskip("mypy")
    installed_as_a_wheel_would(tmp_path / "venv")
    extension = tmp_path / "extension.py"
    extension.write_text(
        "from keystand.panel_models import model\n\nsize: int = model('epd2in7_V2')\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--python-executable",
            tmp_path / "venv" / "bin" / "python",
            extension,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert "py.typed" not in done.stdout, done.stdout
    wrong = 'Incompatible types in assignment (expression has type "PanelModel"'
    assert wrong in done.stdout, done.stdout
