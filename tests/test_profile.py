"""Build profiles: the shipped ones load, every bad key is named with its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from keystand.profile import HARDWARE, PanelConfig, ProfileError, load


def test_every_shipped_profile_loads() -> None:
    names = sorted(p.stem for p in HARDWARE.glob("*.toml"))
    assert "desktop" in names
    for name in names:
        assert load(name).name == name


def test_desktop_profile() -> None:
    p = load("desktop")
    assert p.driver == "sim"
    assert p.host == "127.0.0.1"
    assert p.panels["A"] == p.panels["B"] == PanelConfig("epd2in7_V2", 90, 1.0)
    assert p.inputs == ("simulator",)


def test_per_seat_panels_override_the_shared_ones(tmp_path: Path) -> None:
    f = tmp_path / "mixed.toml"
    f.write_text('[panels]\nmodel = "epd2in9_V2"\n[panels.B]\nmodel = "epd4in2_V2"\nrotation = 0\n')
    p = load(str(f))
    assert p.panels["A"] == PanelConfig("epd2in9_V2", 90, 1.0)
    assert p.panels["B"] == PanelConfig("epd4in2_V2", 0, 1.0)


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ("[stand]\nmax_partial = 3\n", "stand.max_partial", "unknown key"),
        ("[panels]\nmodel = 'epd7in5'\n", "panels.A.model", "expected one of epd2in13_V4"),
        ("[panels.B]\nrotation = 45\n", "panels.B.rotation", "expected 0, 90, 180 or 270"),
        ("[panels]\nspeed = 'fast'\n", "panels.speed", "'fast' is not int or float"),
        ("[stand]\nmax_partials = true\n", "stand.max_partials", "True is not int"),
        ("[input]\nkinds = ['mouse']\n", "input.kinds", "'mouse'"),
        ("[input]\nport = 70000\n", "input.port", "expected 1..65535"),
        ("[screens]\n", "screens", "unknown table"),
        ("[stand\n", "profile", "not TOML"),
        ("[stand]\ndriver = 'epaper'\n", "stand.driver", "expected sim or waveshare"),
        ("[stand]\nidle_sleep = inf\n", "stand.idle_sleep", "expected 1..86400"),
        ("[stand]\nidle_sleep = 0\n", "stand.idle_sleep", "expected 1..86400"),
        ("[stand]\nundo_window = nan\n", "stand.undo_window", "expected 1..60"),
        ("[stand]\nlang = 'fr'\n", "stand.lang", "expected one of de, en, ru"),
        ("[stand]\nreveal_delay = -1\n", "stand.reveal_delay", "expected 0..120"),
    ],
)
def test_a_bad_profile_names_file_key_and_what_is_wrong(
    tmp_path: Path, text: str, key: str, says: str
) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ProfileError) as info:
        load(str(f))
    assert info.value.key == key
    assert str(f) in str(info.value)
    assert says in str(info.value)


def test_an_unknown_profile_name_lists_the_known_ones() -> None:
    with pytest.raises(ProfileError, match=r"profiles: .*desktop"):
        load("no-such-build")
