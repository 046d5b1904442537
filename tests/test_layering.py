"""docs/design.md "Layout", its import tables, as `make test` enforces them: import-linter's
contracts in pyproject.toml cover every module keystand has, and a forbidden import in a
scratch copy of the checkout makes the check fail, naming the import. The host's
layers (cli -> run -> inputs setup -> service/screens -> stand -> store -> games ->
views -> rules) hold each of its modules, and no host module imports a game's own."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONTRACTS = {c["id"]: c for c in CONFIG["tool"]["importlinter"]["contracts"]}
LINT = [sys.executable, str(ROOT / "tools" / "lint_tree.py")]


def keystand_modules() -> set[str]:
    """Every module and package directly under `keystand`, wherever its folder is."""
    names = {f"keystand.{p.stem}" for p in (ROOT / "firmware_host").glob("*.py")}
    names |= {f"keystand.{p.parent.name}" for p in (ROOT / "firmware_host").glob("*/__init__.py")}
    names |= {name for name in CONFIG["tool"]["setuptools"]["package-dir"] if name.count(".") == 1}
    return names - {"keystand.__init__", "keystand.__main__"}


def host_modules() -> set[str]:
    """Every module of the host (firmware_host/), packages and their modules alike."""
    names = set()
    for path in (ROOT / "firmware_host").rglob("*.py"):
        parts = path.relative_to(ROOT / "firmware_host").with_suffix("").parts
        names.add(".".join(("keystand", *(parts[:-1] if parts[-1] == "__init__" else parts))))
    return names


def layered() -> list[str]:
    """The modules the layers contract names, each as often as it is named."""
    contract = CONTRACTS["layers"]
    assert contract["containers"] == ["keystand"]
    return [
        f"keystand.{name.strip()}"
        for layer in contract["layers"]
        for name in re.split(r"[|:]", layer)
    ]


def test_every_host_module_is_in_one_layer() -> None:
    """A module added to the host fails here, by name, until it is given a layer
    (and import-linter's `exhaustive` says so too)."""
    assert CONTRACTS["layers"]["exhaustive"] is True
    top = {name for name in host_modules() if name.count(".") == 1}
    names = layered()
    assert not top - set(names), f"host modules in no layer: {sorted(top - set(names))}"
    assert not set(names) - top, f"layers naming no module: {sorted(set(names) - top)}"
    twice = sorted({name for name in names if names.count(name) > 1})
    assert not twice, f"modules in two layers: {twice}"


def test_the_game_contract_names_every_host_module() -> None:
    """Each host module is either a game's own (forbidden) or watched (a source)."""
    contract = CONTRACTS["no-game-modules"]
    assert contract["as_packages"] is False  # a package's own module, not its children
    sources, own = set(contract["source_modules"]), set(contract["forbidden_modules"])
    assert not sources & own, f"both a source and a game's own: {sorted(sources & own)}"
    missing = host_modules() - sources - own
    assert not missing, f"host modules the game contract does not watch: {sorted(missing)}"


@pytest.mark.parametrize(
    ("contract", "may_import"),
    [
        # keystand.errors imports nothing: every layer raises from its root; nor
        # does keystand.grid, the one grid type of the rules and the layouts; the
        # panel records (keystand.panel_models, importing nothing of keystand) are
        # what the drivers and the layouts agree on; the rules know no panel.
        ("rules", {"keystand.rules", "keystand.errors", "keystand.grid"}),
        ("drivers", {"keystand.drivers", "keystand.errors", "keystand.panel_models"}),
        (
            "layouts",
            {"keystand.layouts", "keystand.errors", "keystand.grid", "keystand.panel_models"},
        ),
    ],
)
def test_each_contract_forbids_every_other_module(contract: str, may_import: set[str]) -> None:
    """A module added to keystand is forbidden to rules/, drivers/ and layouts/
    until someone decides otherwise (this test names it)."""
    forbidden = set(CONTRACTS[contract]["forbidden_modules"])
    missing = keystand_modules() - may_import - forbidden
    assert not missing, f"contract {contract!r} does not forbid {sorted(missing)}"


def test_rules_may_not_import_pillow_or_hardware() -> None:
    forbidden = set(CONTRACTS["rules"]["forbidden_modules"])
    assert {"PIL", "gpiozero", "serial", "smbus2", "spidev", "waveshare_epd"} <= forbidden


def scratch(tmp_path: Path) -> Path:
    copy = tmp_path / "checkout"
    copy.mkdir()
    shutil.copy(ROOT / "pyproject.toml", copy)
    folders = ("firmware_host", "drivers", "layouts", "hardware")
    folders += ("tests/keystand_practice", "tests/keystand_dial")
    for folder in folders:  # the last two: mypy checks the test-only game and input kind
        shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def lint_imports(checkout: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LINT, "imports", str(checkout)], capture_output=True, text=True, timeout=300
    )


def test_a_forbidden_import_in_a_scratch_copy_fails_the_check(tmp_path: Path) -> None:
    copy = scratch(tmp_path)
    clean = lint_imports(copy)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    card = copy / "firmware_host" / "rules" / "card.py"
    card.write_text(card.read_text() + "\nfrom keystand.store import Store  # noqa\n")
    text = copy / "layouts" / "text.py"
    text.write_text(text.read_text() + "\nimport keystand.drivers  # noqa\n")
    broken = lint_imports(copy)
    out = broken.stdout + broken.stderr
    assert broken.returncode != 0
    assert "rules/ imports the standard library only BROKEN" in out
    assert "keystand.rules.card -> keystand.store" in out
    assert "layouts/ imports nothing of keystand proper, nor drivers/, nor hardware BROKEN" in out
    assert "keystand.layouts.text -> keystand.drivers" in out
    assert "drivers/ imports nothing of keystand proper, nor layouts/ KEPT" in out


def test_a_layer_or_game_breach_in_a_scratch_copy_fails_the_check(tmp_path: Path) -> None:
    """An import up the layers, a module in no layer, and a host module importing
    a game's own each fail the check, named."""
    copy = scratch(tmp_path)
    (copy / "firmware_host" / "extra.py").write_text('"""A module nobody placed."""\n')
    journal = copy / "firmware_host" / "journal.py"
    journal.write_text(journal.read_text() + "\nfrom keystand import profile  # noqa\n")
    stand = copy / "firmware_host" / "stand" / "core.py"
    stand.write_text(stand.read_text() + "\nfrom keystand.rules import classic_events  # noqa\n")
    broken = lint_imports(copy)
    out = broken.stdout + broken.stderr
    assert broken.returncode != 0
    assert "host layers: each imports only the layers below it BROKEN" in out
    assert "keystand.journal is not allowed to import keystand.profile" in out
    assert "not listed as layers:\n\n- keystand.extra\n" in out
    assert "the host imports no game's own modules BROKEN" in out
    assert "keystand.stand.core -> keystand.rules.classic_events" in out


def test_an_import_cycle_in_a_scratch_copy_fails_the_check(tmp_path: Path) -> None:
    """The CLI's old circle: a shared helper module reaching back into cli.py."""
    copy = scratch(tmp_path)
    helpers = copy / "firmware_host" / "cliutil.py"
    helpers.write_text(helpers.read_text() + "\nfrom keystand import cli  # noqa\n")
    broken = lint_imports(copy)
    out = broken.stdout + broken.stderr
    assert broken.returncode != 0
    assert "no import cycles among keystand's modules" in out
    assert ".cliutil -> .cli" in out or ".cli -> .cliutil" in out


def test_a_type_error_in_a_scratch_copy_fails_mypy(tmp_path: Path) -> None:
    copy = scratch(tmp_path)
    summary = copy / "firmware_host" / "games" / "duet" / "summary.py"
    summary.write_text(summary.read_text() + "\n\ndef broken() -> int:\n    return 'one'\n")
    done = subprocess.run([*LINT, "types", str(copy)], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "firmware_host/games/duet/summary.py:" in done.stdout
    assert "Incompatible return value type" in done.stdout


def test_every_error_keystand_defines_derives_from_its_one_root() -> None:
    """gpiozero's rule: one exception root (keystand.errors.KeystandError), every
    error class of every module under it; and the root's module imports nothing,
    so the rules, the drivers and the layouts can all raise from it."""
    import ast
    import importlib
    import inspect
    import pkgutil

    from keystand.errors import KeystandError

    source = (ROOT / "firmware_host" / "errors.py").read_text()
    imports = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert [getattr(n, "module", None) for n in imports] == ["__future__"]
    names = set()
    for package in CONFIG["tool"]["setuptools"]["packages"]:  # drivers/ and layouts/ too
        path = getattr(importlib.import_module(package), "__path__", None)
        if path is not None:  # not a data-only folder
            names |= {info.name for info in pkgutil.iter_modules(path, f"{package}.")}
    assert {"keystand.drivers.gpio", "keystand.schema", "keystand.rules.errors"} <= names
    outside = []
    for module_name in sorted(names - {"keystand.__main__"}):
        module = importlib.import_module(module_name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module_name or not issubclass(cls, BaseException):
                continue
            if not issubclass(cls, KeystandError):
                outside.append(f"{module_name}.{name}")
    assert not outside, f"errors outside KeystandError: {outside}"
