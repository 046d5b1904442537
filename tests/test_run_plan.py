"""`keystand run`'s plan (keystand.run_plan): the options, the settings file and the
profile made into plain data before anything is built, and the games `--game`
offers taken from the games' registry."""

from __future__ import annotations

import dataclasses
import io
import threading
from pathlib import Path

import pytest

from keystand import cli, run_plan
from keystand.rules import generate

CODE = generate(41).code


def plan_of(tmp_path: Path, *options: str) -> run_plan.Plan:
    config = tmp_path / "keystand.toml"
    config.write_text("")  # no /etc/keystand/keystand.toml read by a test
    args = cli._parser().parse_args(
        ["run", "--config", str(config), "--state-dir", str(tmp_path / "state"), *options]
    )
    return run_plan.make(args, io.StringIO())


def test_a_script_run_is_planned_without_a_page_a_keyboard_or_a_thread(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("touch 0 0\n# a comment\nclue A\n")
    threads = threading.active_count()
    plan = plan_of(tmp_path, "--script", str(script), "--card-code", CODE)
    assert threading.active_count() == threads  # nothing started: the builder's part
    assert plan.profile.name == "desktop" and plan.profile_name == "desktop"
    assert (plan.page, plan.keyboard, plan.interactive) == (None, False, False)
    assert [line for line, _ in plan.steps or []] == [1, 3]
    assert plan.game.name == "duet" and plan.boot_game == "duet"
    assert plan.emulate is None and plan.speed is None and plan.shown_log is None
    deal = plan.new_card()
    assert deal().code == CODE  # the first new game's card, then random ones
    assert deal().code != CODE
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.speed = 1.0  # type: ignore[misc]


def test_a_script_with_a_port_keeps_the_page(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("touch 0 0\n")
    plan = plan_of(tmp_path, "--script", str(script), "--port", "0", "--speed", "0")
    assert plan.page == run_plan.Page("127.0.0.1", 0)
    assert plan.interactive and not plan.keyboard and plan.speed == 0
    assert plan.boot_game is None  # no card, no --game: the menu's choice


def test_a_game_the_registry_does_not_know_is_refused_naming_those_it_does() -> None:
    """`--game` takes the registry's games (issue 21: not a hard-coded pair; the
    test-only practice game installed beside keystand is taken too:
    tests/test_practice_game.py)."""
    with pytest.raises(cli.UsageError, match="game 'chess': expected one of duet, classic"):
        cli._parser().parse_args(["run", "--game", "chess"])


def test_the_settings_files_panels_keys_are_in_the_planned_profile(tmp_path: Path) -> None:
    config = tmp_path / "keystand.toml"
    config.write_text('[service]\nprofile = "minimal"\n[panels]\nvendor_reset = true\n')
    args = cli._parser().parse_args(
        ["run", "--config", str(config), "--state-dir", str(tmp_path / "state")]
    )
    plan = run_plan.make(args, io.StringIO())
    assert plan.profile.name == "minimal"
    assert [panel.vendor_reset for panel in plan.profile.panels.values()] == [True, True]
