"""The settings file (`keystand run --config PATH`, /etc/keystand/keystand.toml on
a Pi): what it sets, and one clear line for each thing wrong in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import keystand

from keystand import config
from keystand.rules import generate

CODE = generate(12).code


def test_a_good_file_gives_its_keys_and_only_those(tmp_path: Path) -> None:
    path = tmp_path / "keystand.toml"
    path.write_text(
        '[service]\nprofile = "desktop"\n[game]\nlanguages = ["de", "ru"]\nmission = "moscow"\n'
        "[refresh]\nmax_partials = 4\n"
    )
    found = config.load(path)
    assert found.get("service", "profile") == "desktop"
    assert found.get("game", "languages") == ("de", "ru")
    assert found.get("game", "mission") == "moscow"
    assert found.get("refresh", "max_partials") == 4
    assert found.get("refresh", "idle_sleep") is None  # left out: the profile's value
    assert config.load(None).get("game", "mission") is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[sevice]\n", "sevice: unknown table (expected one of service, game, refresh, panels)"),
        ('profile = "minimal"\n', "profile: a key outside any table: it goes under [service]"),
        ("vendor_reset = true\n", "vendor_reset: a key outside any table: it goes under [panels]"),
        ('[panels]\nmodel = "epd2in9_V2"\n', "panels.model: not a key of this file (expected"),
        ("[panels.B]\nrst = 5\n", "panels.B.rst: not a key of this file (expected"),
        ("[panels]\nreset_wait = 2\n", "panels.reset_wait: 2.0: expected 0..1 seconds"),
        ("[panels]\nA = 1\n", "panels.A: expected a table"),
        (
            "[panels.C]\nvendor_reset = true\n",
            "panels.C: unknown table (expected A or B: a seat's)",
        ),
        ('[service]\nprofil = "x"\n', "service.profil: unknown key (expected profile)"),
        ('[game]\nmission = "9-10"\n', 'game.mission: "9-10": 10 mistakes, expected 0..9'),
        ('[game]\nmission = "soon"\n', 'game.mission: "soon": expected T-M'),
        ('[game]\nlanguages = ["en", "fr"]\n', 'game.languages: "fr": expected one of de, en, ru'),
        ('[game]\nlanguages = ["en"]\n', "game.languages: ['en']: expected two languages"),
        ("[refresh]\nmax_partials = -1\n", "refresh.max_partials: -1: expected 0..1000"),
        ('[refresh]\nidle_sleep = "long"\n', 'refresh.idle_sleep: "long" is not a number'),
        ("[game\n", "config: not TOML"),
        (b"[game]\n\xff", "config: not UTF-8 text (byte 7)"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_file_key_and_value(
    tmp_path: Path, text: str | bytes, says: str
) -> None:
    path = tmp_path / "keystand.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    with pytest.raises(config.ConfigError) as caught:
        config.load(path)
    assert str(caught.value).startswith(f"{path}: {says}"), str(caught.value)

    done = keystand("run", "--config", str(path), "--no-page", "--state-dir", str(tmp_path / "s"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"keystand run: {caught.value}"]
    assert not (tmp_path / "s").exists()  # refused before anything starts


def test_a_missing_file_and_a_bad_profile_in_it_say_where(tmp_path: Path) -> None:
    done = keystand("run", "--config", str(tmp_path / "none.toml"), "--no-page")
    assert done.stderr.splitlines() == [
        f"keystand run: {tmp_path / 'none.toml'}: config: no such file"
    ]
    profile = tmp_path / "mine.toml"
    profile.write_text("[stand]\nmax_partial = 3\n")
    path = tmp_path / "keystand.toml"
    path.write_text(f'[service]\nprofile = "{profile}"\n')
    done = keystand("run", "--config", str(path), "--no-page")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(f"keystand run: {profile}: stand.max_partial:")


def test_the_file_sets_a_fresh_stands_mission_and_an_option_beats_its_profile(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keystand.toml"
    path.write_text('[service]\nprofile = "nowhere"\n[game]\nmission = "9-5"\n')
    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    state = tmp_path / "state"
    done = keystand(
        "run",
        "--config",
        str(path),
        "--profile",
        "desktop",  # the option wins over the file's "nowhere"
        "--state-dir",
        str(state),
        "--speed",
        "0",
        "--no-page",
        "--card-code",
        CODE,
        "--script",
        str(script),
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(keystand("state", "--json", "--state-dir", str(state)).stdout)
    assert (shown["turns_left"], shown["mistakes_left"]) == (9, 5)


def test_without_config_the_installed_file_is_read_if_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = tmp_path / "etc-keystand.toml"
    monkeypatch.setattr(config, "DEFAULT_PATH", installed)
    assert config.find(None) is None  # not installed: the profile's values
    installed.write_text('[game]\nmission = "10-10"\n')
    assert config.find(None) == installed
    assert config.find(tmp_path / "other.toml") == tmp_path / "other.toml"


def test_the_files_panels_keys_go_over_the_profiles_for_both_seats_or_one(
    tmp_path: Path,
) -> None:
    """README "Panels": the fallback for a panel that misbehaves with keystand's short
    reset is set in the file a builder edits, not in a copy of the shipped profile."""
    from keystand import profile

    path = tmp_path / "keystand.toml"
    path.write_text("[panels]\nvendor_reset = true\n[panels.B]\nreset_wait = 0.05\n")
    shipped = profile.load("minimal")
    found = config.load(path).onto(shipped)
    assert [(p.vendor_reset, p.reset_wait) for p in found.panels.values()] == [
        (True, 0.0),
        (True, 0.05),
    ]
    assert found.panels["A"].model == shipped.panels["A"].model  # the rest: the profile's
    assert found.stand == shipped.stand and found.input == shipped.input
    path.write_text("[panels.A]\nvendor_reset = true\n")
    one = config.load(path).onto(shipped)
    assert (one.panels["A"].vendor_reset, one.panels["B"].vendor_reset) == (True, False)
    assert config.load(None).onto(shipped) is shipped
