"""An input kind from outside keystand, with no host edit: the test-only dial
(tests/keystand_dial, a rotary encoder and a push switch per seat, one module
and one entry point) goes through `profile check`, the pin plan, doctor and
`run --emulate`, where a script played on its emulated pins ends where the
same script on the minimal build's keys does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import dial_plugin
import pytest
from gpiozero.pins.mock import MockFactory

from keystand import inputkinds
from keystand.doctor import Machine, diagnose
from keystand.drivers.inputs import KeyName, Press
from keystand.inputs_setup import build
from keystand.profile import ProfileError, load
from keystand.rules import Card
from keystand.stand import Stand
from keystand.store import Store

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
CODE = "5VHK-ZHXC-WE7S"
DIALS = """[input]
kinds = ["dial"]

[input.dial]
hold_time = 0.5

[input.dial.A]
a = 5
b = 6
push = 13

[input.dial.B]
a = 12
b = 16
push = 20
"""
# The clue (A turns right), then B picks a word with the cursor: pick, next,
# guess (held push); then a pass and an undo, taken or refused as on the keys.
GAME = "press A clue\npress B clue\npress B clue\npress B menu long\npress B pass\npress B undo\n"


def dial_profile(folder: Path) -> Path:
    """The minimal build (its panels, their keys' labels on the left) with dials for keys."""
    text = (HARDWARE / "minimal.toml").read_text()
    head = text[: text.index("[input]")]
    path = folder / "dials.toml"
    path.write_text(head + DIALS)
    return path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return dial_plugin.environ(tmp_path / "plugin")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The dial found in this process too (the registry reads entry points per sys.path)."""
    monkeypatch.syspath_prepend(str(dial_plugin.TESTS))
    monkeypatch.syspath_prepend(str(dial_plugin.install(tmp_path / "plugin")))
    return dial_profile(tmp_path)


def keystand(env: dict[str, str], *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keystand", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_profile_check_reads_its_table_from_its_declaration(
    tmp_path: Path, env: dict[str, str]
) -> None:
    done = keystand(env, "profile", "check", dial_profile(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    # Its lines counted from its declaration, in the default words ("dial lines").
    assert done.stdout.endswith(": ok: 19 GPIOs (waveshare panels, SPI0, 6 dial lines)\n")
    bad = tmp_path / "bad.toml"
    bad.write_text(dial_profile(tmp_path).read_text().replace("push = 20", "push = 40"))
    done = keystand(env, "profile", "check", bad)
    assert done.returncode == 1
    assert f"{bad}: input.dial.B.push: 40: a GPIO 0..27" in done.stdout


def test_without_the_plugin_the_kind_and_its_table_are_unknown(tmp_path: Path) -> None:
    path = dial_profile(tmp_path)
    with pytest.raises(ProfileError, match=r"input.dial: unknown key or table \(expected"):
        load(str(path))
    path.write_text(path.read_text()[: path.read_text().index("[input.dial]")])
    with pytest.raises(ProfileError) as info:
        load(str(path))
    # Every kind the registry finds, whichever are installed beside keystand.
    assert str(info.value).endswith(
        f'input.kinds: "dial": expected one of {", ".join(inputkinds.names())}'
    )


def test_its_pins_are_in_the_plan_and_a_clash_names_both_uses(installed: Path) -> None:
    assert "dial" in inputkinds.names()
    plan = {use.what: use.pin for use in load(str(installed)).input.lines()}
    assert plan == {
        "seat A dial a": 5,
        "seat A dial b": 6,
        "seat A dial push": 13,
        "seat B dial a": 12,
        "seat B dial b": 16,
        "seat B dial push": 20,
    }
    clash = installed.with_name("clash.toml")
    clash.write_text(installed.read_text().replace("push = 13", "push = 17"))
    with pytest.raises(ProfileError, match=r"GPIO 17: seat A panel rst and seat A dial push"):
        load(str(clash))


def test_doctor_asks_for_its_group_and_module_and_runs_its_check(
    installed: Path, tmp_path: Path
) -> None:
    root = tmp_path / "pi"
    (root / "proc" / "device-tree").mkdir(parents=True)
    (root / "proc" / "device-tree" / "model").write_bytes(b"Raspberry Pi 4 Model B\0")
    machine = Machine(
        root=root,
        user=lambda: "pi",
        uid=lambda: 1000,
        groups=lambda: {"spi"},
        has_module=lambda name: name != "lgpio",
        vendor_file=lambda model: object(),
        make_panel=lambda seat, panel: (_ for _ in ()).throw(RuntimeError("no panel here")),
    )
    lines = [str(check) for check in diagnose(str(installed), machine)]
    assert lines[0].startswith(f"ok   profile: {installed}: loads; pin plan ok (19 GPIOs")
    assert "FAIL module lgpio: missing (gpiozero's pins on a Pi): " in "\n".join(lines)
    assert any(line.startswith("FAIL groups: pi is not in gpio: ") for line in lines)
    assert (
        "ok   dials: A: a GPIO5, b GPIO6, push GPIO13; B: a GPIO12, b GPIO16, push GPIO20 "
        "(turn each: keystand run shows the presses)"
    ) in lines


def test_run_emulate_plays_a_script_on_its_twin_as_on_the_keys(
    tmp_path: Path, env: dict[str, str]
) -> None:
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    states = {}
    for name, profile in (("dial", dial_profile(tmp_path)), ("keys", "minimal")):
        state = tmp_path / f"state-{name}"
        done = keystand(
            env,
            "run",
            "--profile",
            profile,
            "--emulate",
            tmp_path / f"out-{name}",
            "--script",
            script,
            "--card-code",
            CODE,
            "--speed",
            "0",
            "--state-dir",
            state,
        )
        assert done.returncode == 0, done.stderr
        assert "was not taken by its driver" not in done.stderr
        states[name] = json.loads(keystand(env, "state", "--state-dir", state, "--json").stdout)
    assert states["dial"] == states["keys"]
    assert states["dial"]["turns_left"] < 9  # the dials gave a clue and a guess: a turn went by


# Dials beside the minimal build's keys, on GPIOs nothing else uses (its panels
# simulated, so theirs are free).
BESIDE_KEYS = """
[input.dial.A]
a = 2
b = 3
push = 4

[input.dial.B]
a = 14
b = 15
push = 17
"""


@pytest.mark.parametrize("kinds", [["dial", "keys"], ["keys", "dial"]])
def test_emulated_twins_follow_the_profiles_order(
    installed: Path, tmp_path: Path, kinds: list[str]
) -> None:
    """Both the dials and the keys take `press A clue`: the kind listed first in
    the profile plays it, not the one the registry lists first."""
    text = (HARDWARE / "minimal.toml").read_text()
    both = tmp_path / "both.toml"
    text = text.replace('driver = "waveshare"', 'driver = "sim"')
    listed = ", ".join(f'"{kind}"' for kind in kinds)
    both.write_text(text.replace('kinds = ["keys"]', f"kinds = [{listed}]") + BESIDE_KEYS)
    profile = load(str(both))
    assert list(profile.input.kinds) == kinds
    stand = Stand(Store(tmp_path / "state"), new_card=lambda: Card.from_code(CODE))
    stand.boot()
    (tmp_path / "out").mkdir()
    inputs = build(profile, stand, tmp_path / "state", pins=MockFactory(), emulate=tmp_path / "out")
    twins = [type(twin).__name__ for twin in inputs.twins]
    assert twins == [{"dial": "DialTwin", "keys": "KeysTwin"}[kind] for kind in kinds]
    clue = Press("A", KeyName.CLUE)
    assert type(next(t for t in inputs.twins if t.takes(clue))).__name__ == twins[0]
