"""`keystand run --emulate` with a Pi build's real inputs: the seats' keys on
MockFactory pins and each kind of touch grid over emulated hardware (MPR121
chips behind a fake SMBus, pads or strips; the grid firmware's logic on a
real pty). A scripted game ends in the state `keystand play` gives for the same
game, with and without noise on the grid's wire; a buttons-only build plays
whole games with the guesser's cursor."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from command import keystand

pytest.importorskip("gpiozero")

from real_inputs import KEYS, as_played, profile

from keystand.rules import Card, Key, Seat

CODE = "5VHK-ZHXC-WE7S"
# The rules' lines; each build's players give them their own way (real_inputs.as_played).
GAME = ["clue A", "touch 0 0", "touch 1 1", "pass B", "clue B", "touch 4 4", "undo", "touch 2 3"]


def played(tmp_path: Path, rules_lines: list[str], code: str = CODE) -> dict:
    script = tmp_path / "rules.txt"
    script.write_text("\n".join(rules_lines) + "\n")
    done = keystand("play", "--card-code", code, "--script", script, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run(
    tmp_path: Path, build: str, lines: list[str], *extra: str, code: str = CODE
) -> tuple[subprocess.CompletedProcess[str], dict]:
    script = tmp_path / "game.txt"
    script.write_text("\n".join(lines) + "\n")
    state = tmp_path / "state"
    done = keystand(
        "run",
        "--profile",
        profile(tmp_path, build),
        "--emulate",
        tmp_path / "out",
        "--script",
        script,
        "--card-code",
        code,
        "--speed",
        "0",
        "--state-dir",
        state,
        *extra,
    )
    assert done.returncode == 0, done.stderr
    assert "was not taken" not in done.stderr, done.stderr
    shown = keystand("state", "--state-dir", state, "--json")
    assert shown.returncode == 0, shown.stderr
    return done, json.loads(shown.stdout)


@pytest.mark.parametrize(
    ("build", "noise"),
    [
        ("keys-only", False),
        ("mpr121-pads", False),
        ("mpr121-pads", True),
        ("mpr121-strips", False),
        ("mpr121-strips", True),
        ("serial-grid", False),
        ("serial-grid", True),
    ],
)
def test_a_game_on_real_inputs_ends_where_play_says(
    tmp_path: Path, build: str, noise: bool
) -> None:
    lines = as_played(GAME, cursor=build == "keys-only")
    extra = ["--emulate-fault", "grid:noise"] if noise else []
    done, ran = run(tmp_path, build, lines, *extra)
    assert ran == played(tmp_path, GAME)
    assert "input keys: connected 8 keys" in done.stderr
    if build != "keys-only":
        assert "input grid: connected" in done.stderr
    if noise:  # the noise was there, and changed nothing the script touched
        said = [line for line in done.stderr.splitlines() if "emulate: grid:" in line]
        assert said and not said[0].split("grid: ")[1].startswith("0 of"), done.stderr


def winning(code: str) -> list[str]:
    """Two clean turns: B finds A's agents (nothing left to find: the turn ends by
    itself, as a pass); A finds the rest on B's clue."""
    card = Card.from_code(code)
    lines = ["clue A"] + [f"touch {i // 5} {i % 5}" for i in sorted(card.agents(Seat.A))]
    lines += ["clue B"]
    lines += [f"touch {i // 5} {i % 5}" for i in sorted(card.agents(Seat.B) - card.agents(Seat.A))]
    return lines


def losing(code: str) -> list[str]:
    """B guesses on A's clue: one agent, then A's assassin."""
    card = Card.from_code(code)
    agent = min(card.agents(Seat.A))
    assassin = next(i for i, k in enumerate(card.side(Seat.A)) if k is Key.ASSASSIN)
    return ["clue A", f"touch {agent // 5} {agent % 5}", f"touch {assassin // 5} {assassin % 5}"]


@pytest.mark.parametrize("game", [winning, losing])
def test_a_buttons_only_build_plays_a_whole_game(tmp_path: Path, game) -> None:
    rules_lines = game(CODE)
    lines = as_played(rules_lines, cursor=True)
    assert all(line.startswith("press ") for line in lines)  # keys only, nothing touched
    _, ran = run(tmp_path, "keys-only", lines)
    expected = played(tmp_path, rules_lines)
    assert ran == expected
    assert ran["status"] == ("won" if game is winning else "lost")


def test_keys_off_a_pi_are_one_line_never_the_mock(tmp_path: Path) -> None:
    """Without --emulate the keys get gpiozero's own pins: off a Pi there are
    none, and the run says so in one line instead of playing on a mock."""
    path = tmp_path / "keys.toml"
    path.write_text(f'[panels]\nkeys = "left"\n[input]\nkinds = ["keys"]\n{KEYS}')
    script = tmp_path / "s.txt"
    script.write_text("press A clue\n")
    done = keystand(
        "run", "--profile", path, "--script", script, "--state-dir", tmp_path / "st", "--speed", "0"
    )
    assert done.returncode == 2
    assert "seat A key clue on GPIO5" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_grid_noise_needs_a_grid(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("press A clue\n")
    done = keystand(
        "run",
        "--profile",
        profile(tmp_path, "keys-only"),
        "--emulate",
        tmp_path / "out",
        "--emulate-fault",
        "grid:noise",
        "--script",
        script,
        "--state-dir",
        tmp_path / "st",
    )
    assert done.returncode == 2
    assert "grid:noise: profile 'keys-only' has no touch grid" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize(
    ("shipped", "noise"),
    [
        ("minimal", False),
        ("touch-mpr121", False),
        ("touch-mpr121", True),
        ("touch-serial", False),
        ("touch-serial", True),
    ],
)
def test_each_shipped_build_plays_a_game_to_where_play_says(
    tmp_path: Path, shipped: str, noise: bool
) -> None:
    """The profiles in hardware/ as installed: the same game through their own
    keys (the cursor on the buttons-only build) and grid, emulated."""
    from keystand.profile import load

    kinds = load(shipped).input.kinds
    lines = as_played(GAME, cursor="mpr121" not in kinds and "serial-grid" not in kinds)
    script = tmp_path / "game.txt"
    script.write_text("\n".join(lines) + "\n")
    state = tmp_path / "state"
    extra = ["--emulate-fault", "grid:noise"] if noise else []
    done = keystand(
        "run", "--profile", shipped, "--emulate", tmp_path / "out", "--script", script,
        "--card-code", CODE, "--speed", "0", "--state-dir", state, *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "was not taken" not in done.stderr, done.stderr
    shown = keystand("state", "--state-dir", state, "--json")
    assert json.loads(shown.stdout) == played(tmp_path, GAME)
