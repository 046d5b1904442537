"""What `keystand` says of itself: `--version` (the installed distribution's,
pyproject.toml's), and the installed profiles `run --help` and `doctor --help`
name, taken from where `--profile NAME` finds them (`profile.shipped()`)."""

from __future__ import annotations

import importlib.metadata
import io
import tomllib
from pathlib import Path

import pytest
from command import keystand

from keystand import profile
from keystand.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_version_is_pyprojects() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = keystand("--version")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"keystand {declared}\n"


def test_version_without_the_distribution_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    out, err = io.StringIO(), io.StringIO()
    assert main(["--version"], out=out, err=err) == 2
    assert out.getvalue() == ""
    assert err.getvalue() == (
        "keystand: --version: no keystand distribution installed (pip install .) "
        "(see keystand --help)\n"
    )


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*argv, "--help"], out=io.StringIO(), err=io.StringIO()) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["run", "doctor"])
def test_help_names_every_installed_profile(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # one line an option: a name is never split
    names = sorted(profile.shipped())
    assert {"desktop", "minimal", "touch-mpr121", "touch-serial"} <= set(names)
    lines = help_text([command], capsys).splitlines()
    said = [line for line in lines if line.lstrip().startswith("--profile PROFILE ")]
    assert len(said) == 1 and f"an installed profile ({', '.join(names)})" in said[0]

    # A profile installed beside them is named too: the list is read, not written down.
    found = profile.shipped()
    monkeypatch.setattr(profile, "shipped", lambda: {**found, "my-build": Path("my-build.toml")})
    assert f"({', '.join(sorted([*names, 'my-build']))})" in help_text([command], capsys)
