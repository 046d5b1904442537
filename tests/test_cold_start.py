"""`keystand card new` and `keystand play` load nothing they do not need: no
Pillow, no GPIO or bus library, no layouts (bench/startup.py measures how long
they take against a Python process doing the same work; the modules a command
loads are a count, and asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import startup  # noqa: E402

PROBE = """
import io, json, sys, contextlib
from keystand.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({args!r})
print(json.dumps({{"code": code, "modules": sorted(sys.modules)}}))
"""


def modules_after(args: list[str]) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    found = json.loads(done.stdout)
    assert found["code"] == 0, done.stderr
    return set(found["modules"])


@pytest.mark.parametrize("command", sorted(startup.COMMANDS))
def test_a_plain_command_loads_no_pillow_no_hardware_and_no_other_command(command: str) -> None:
    loaded = modules_after(startup.COMMANDS[command])
    heavy = sorted(m for m in loaded if m.split(".")[0] in startup.HEAVY or m in startup.HEAVY)
    heavy += sorted(
        m for m in loaded if m.startswith(("keystand.layouts", "keystand.drivers.display"))
    )
    assert heavy == [], f"keystand {command} loads {heavy}"
    # Nor the modules of the other subcommands (the service, the doctor, the renderer).
    others = {"keystand.run", "keystand.doctor", "keystand.render", "keystand.service"}
    assert loaded & others == set(), f"keystand {command} loads {sorted(loaded & others)}"


def test_the_floors_do_the_commands_work() -> None:
    """Each floor prints what its command prints: the ratio compares like with like."""
    keystand = str(Path(sys.executable).with_name("keystand"))
    for name, args in startup.COMMANDS.items():
        ours = subprocess.run([keystand, *args], capture_output=True, text=True, check=True)
        floor = subprocess.run(
            [sys.executable, "-c", startup.WORK[name]], capture_output=True, text=True, check=True
        )
        if name == "play":
            assert json.loads(ours.stdout) == json.loads(floor.stdout)
        else:
            assert ours.stdout == floor.stdout
