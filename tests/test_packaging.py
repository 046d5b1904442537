"""The package as pip installs it: every module folder listed, data files shipped,
no hardware library imported by anything a desktop loads."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

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
