"""A profile no player could play (no input that gives a clue and names a word) is
refused by `keystand profile check`, by `keystand doctor` and by `keystand run`,
in one line naming what is missing (issue 35). `run` exits 2, which the unit's
RestartPreventExitStatus= names: systemd does not restart it for ever, as it
would not notice a run that exited 0 with both screens dark."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from keystand.cli import main
from keystand.doctor import Machine, diagnose

PANELS = '[stand]\ndriver = "sim"\n[panels]\nkeys = "left"\n'
KEYS = (
    "[input.keys.A]\nclue = 5\npass = 6\nundo = 13\nmenu = 19\n"
    "[input.keys.B]\nclue = 12\npass = 16\nundo = 20\nmenu = 21\n"
)
SERIAL = '[input.serial]\nport = "/dev/ttyACM0"\n'
NONE = "no input a player can give a clue or name a word with (it has none)"
ADD = 'add "keys", "simulator" or "keyboard"'

# kinds: what the line says is missing (None: playable).
CASES = {
    "[]": NONE,
    '["script"]': "no input a player can give a clue or name a word with (its inputs: script)",
    '["serial-grid"]': "no input a player can give a clue with (a touch grid names words only) "
    "(its inputs: serial-grid)",
    '["keys"]': None,  # keys alone: the guesser's cursor names the word
    '["simulator"]': None,
    '["keyboard"]': None,
    '["keys", "serial-grid"]': None,
}


def profile(tmp_path: Path, kinds: str) -> Path:
    path = tmp_path / "build.toml"
    extra = (KEYS if "keys" in kinds else "") + (SERIAL if "serial" in kinds else "")
    path.write_text(f"{PANELS}[input]\nkinds = {kinds}\n{extra}")
    return path


def cli(*args: str | Path) -> tuple[int, list[str], list[str]]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in args], out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue().splitlines()


@pytest.mark.parametrize(("kinds", "missing"), CASES.items())
def test_profile_check_refuses_a_build_no_player_could_play(
    tmp_path: Path, kinds: str, missing: str | None
) -> None:
    path = profile(tmp_path, kinds)
    code, out, err = cli("profile", "check", path)
    if missing is None:
        assert code == 0 and out[0].startswith(f"{path}: ok: "), out
        return
    assert code == 1
    assert out == [f"{path}: input.kinds: {missing}: {ADD}"]
    assert err == ["keystand profile check: 1 of 1 profiles refused"]


@pytest.mark.parametrize(("kinds", "missing"), CASES.items())
def test_doctor_fails_its_profile_line_for_it(
    tmp_path: Path, kinds: str, missing: str | None
) -> None:
    path = profile(tmp_path, kinds)
    checks = list(diagnose(str(path), Machine(root=tmp_path / "not-a-pi")))
    line = next(c for c in checks if c.name == "profile")
    assert line.ok is (missing is None), str(line)
    if missing is not None:
        assert str(line) == f"FAIL profile: {path}: input.kinds: {missing}: {ADD}"


@pytest.mark.parametrize(("kinds", "missing"), [(k, m) for k, m in CASES.items() if m])
def test_run_refuses_it_with_exit_2_and_writes_nothing(
    tmp_path: Path, kinds: str, missing: str
) -> None:
    """Exit 2 (not 0: "no input to run" ended the run cleanly, and systemd's
    Restart=on-failure left the stand stopped, both screens dark, saying nothing)."""
    path = profile(tmp_path, kinds)
    state = tmp_path / "state"
    code, out, err = cli("run", "--profile", path, "--state-dir", state, "--speed", "0")
    assert (code, out) == (2, [])
    assert err == [f"keystand run: {path}: input.kinds: {missing}: {ADD}"]
    assert not state.exists()


def test_a_script_plays_a_build_with_no_input_of_its_own(tmp_path: Path) -> None:
    """`run --script` is played by the script: a test build with `kinds = []` runs."""
    path = profile(tmp_path, "[]")
    script = tmp_path / "game.txt"
    script.write_text("clue A\n")
    state = tmp_path / "state"
    code, _, err = cli(
        "run", "--profile", path, "--state-dir", state, "--speed", "0", "--script", script
    )
    assert code == 0, err
    assert '"e":"clue A"' in (state / "current.journal").read_text()
