"""Build profiles: the shipped ones load, every bad key is named with its file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from keystand import schema
from keystand.inputkinds.base import Touch
from keystand.inputkinds.keys import Keys
from keystand.inputkinds.mpr121 import Mpr121
from keystand.inputkinds.serialgrid import Serial
from keystand.profile import (
    Input,
    Panel,
    Profile,
    ProfileError,
    Stand,
    load,
    shipped,
)

CHECKOUT = Path(__file__).resolve().parent.parent / "hardware"


def test_every_shipped_profile_loads() -> None:
    names = sorted(shipped())
    assert "desktop" in names
    for name in names:
        assert load(name).name == name


def test_the_installed_profiles_are_the_checkouts_files() -> None:
    """The package's profiles are `hardware/*.toml`, byte for byte (no second copy)."""
    installed = {name: f.read_bytes() for name, f in shipped().items()}
    assert installed == {f.stem: f.read_bytes() for f in CHECKOUT.glob("*.toml")}


def test_desktop_profile() -> None:
    p = load("desktop")
    assert p.stand.driver == "sim"
    assert p.input.host == "127.0.0.1"
    # The page's keys beside each screen, labelled as on the minimal build's HATs.
    assert p.panels["A"] == p.panels["B"] == Panel("epd2in7_V2", 90, 1.0, keys="left")
    assert p.input.kinds == ("simulator",)


def test_the_desktop_file_states_every_default() -> None:
    """desktop.toml documents every key, with the value the declaration defaults to,
    but where its keys sit (the page's keys beside each screen, labelled)."""
    labelled = {seat: Panel(keys="left") for seat in ("A", "B")}
    assert load("desktop") == Profile("desktop", source="desktop", panels=labelled)


@pytest.mark.parametrize("table", [Stand, Panel, Input, Keys, Touch, Mpr121, Serial])
def test_every_declared_default_is_allowed_by_its_own_declaration(table: type) -> None:
    schema.defaults_checked(table)


def test_per_seat_panels_override_the_shared_ones(tmp_path: Path) -> None:
    f = tmp_path / "mixed.toml"
    f.write_text('[panels]\nmodel = "epd2in9_V2"\n[panels.B]\nmodel = "epd4in2_V2"\nrotation = 0\n')
    p = load(str(f))
    assert p.panels["A"] == Panel("epd2in9_V2", 90, 1.0)
    assert p.panels["B"] == Panel("epd4in2_V2", 0, 1.0)


@pytest.mark.parametrize(
    ("text", "key", "says"),
    [
        ("[stand]\nmax_partial = 3\n", "stand.max_partial", "unknown key"),
        ("[panels]\nmodel = 'epd7in5'\n", "panels.model", "expected one of epd2in13_V4"),
        ("[panels.B]\nrotation = 45\n", "panels.B.rotation", "expected 0, 90, 180 or 270"),
        ("[panels]\nspeed = 'fast'\n", "panels.speed", '"fast" is not a number'),
        ("[stand]\nmax_partials = true\n", "stand.max_partials", "true is not a whole number"),
        ("[input]\nkinds = ['mouse']\n", "input.kinds", '"mouse"'),
        ("[input]\nport = 70000\n", "input.port", "expected 1..65535"),
        ("[screens]\n", "screens", "unknown table"),
        ("[stand\n", "profile", "not TOML"),
        ("[stand]\ndriver = 'epaper'\n", "stand.driver", "expected sim or waveshare"),
        ("[stand]\nidle_sleep = inf\n", "stand.idle_sleep", "expected 1..86400"),
        ("[stand]\nidle_sleep = 0\n", "stand.idle_sleep", "expected 1..86400"),
        ("[stand]\nundo_window = nan\n", "stand.undo_window", "expected 1..60"),
        ("[stand]\nlang = 'fr'\n", "stand.lang", "expected one of de, en, ru"),
        ("[stand]\nreveal_delay = -1\n", "stand.reveal_delay", "expected 0..120"),
        ("[stand]\nrecover_for = 1\n", "stand.recover_for", "expected 2..3600"),
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


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"\xff\xfe[stand]\n", "not UTF-8 text (byte 0)"),
        (b"# " + b"x" * 70_000 + b"\n", "larger than 64 KiB"),
        (b"[input]\nhost = 'example.com'\n", "serves this machine only"),
        (b"[input]\nhost = '0.0.0.0'\n", "serves this machine only"),
        (b"[input]\nhost = 'not an ip'\n", "serves this machine only"),
        (b"# " + b"x" * 5_000_000 + b"\n", "larger than 64 KiB"),
    ],
)
def test_a_profile_that_is_not_a_profile_is_refused_in_one_line(
    tmp_path: Path, text: bytes, says: str
) -> None:
    f = tmp_path / "odd.toml"
    f.write_bytes(text)
    with pytest.raises(ProfileError, match=re.escape(says)):
        load(str(f))


def test_a_missing_profile_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"no such file \(profiles: .*desktop"):
        load(str(tmp_path / "gone.toml"))


@pytest.mark.parametrize("host", ["localhost", "::1", "127.0.0.2"])
def test_loopback_hosts_are_taken(tmp_path: Path, host: str) -> None:
    f = tmp_path / "page.toml"
    f.write_text(f"[input]\nhost = '{host}'\n")
    assert load(str(f)).input.host == host


KEYS = """
[panels]
keys = "left"
[input]
kinds = ["keys"]
[input.keys]
hold_time = 0.8
[input.keys.A]
clue = 5
pass = 6
undo = 13
menu = 19
[input.keys.B]
clue = 12
pass = 16
undo = 20
menu = 21
"""


def test_seat_keys_are_read_per_seat(tmp_path: Path) -> None:
    f = tmp_path / "keys.toml"
    f.write_text(KEYS)
    keys = load(str(f)).input.table("keys")
    assert keys is not None
    assert keys.hold_time == 0.8 and keys.bounce_time == Keys().bounce_time
    assert keys.pins == {
        "A": {"clue": 5, "pass": 6, "undo": 13, "menu": 19},
        "B": {"clue": 12, "pass": 16, "undo": 20, "menu": 21},
    }


def test_a_grid_profile_reads_its_map_and_filter(tmp_path: Path) -> None:
    f = tmp_path / "grid.toml"
    f.write_text(
        '[input]\nkinds = ["mpr121"]\n[input.touch]\ndwell = 0.1\n'
        '[input.mpr121]\naddress = "0x5A"\nrows = [0, 1, 2, 3, 4]\ncols = [5, 6, 7, 8, 9]\n'
    )
    p = load(str(f)).input
    assert p.touch == Touch(dwell=0.1)
    mpr121 = p.table("mpr121")
    assert isinstance(mpr121, Mpr121) and mpr121.electrodes["rows"] == [0, 1, 2, 3, 4]
    f.write_text('[input]\nkinds = ["serial-grid"]\n[input.serial]\nport = "/dev/ttyUSB0"\n')
    assert load(str(f)).input.table("serial") == Serial(port="/dev/ttyUSB0")


@pytest.mark.parametrize(
    ("text", "key", "detail"),
    [
        (KEYS.replace("menu = 21\n", ""), "input.keys.B", "no GPIO for menu"),
        (KEYS.replace("clue = 5", "clue = 40"), "input.keys.A.clue", "40: expected a GPIO 0..27"),
        (KEYS.replace("clue = 5", "hint = 5"), "input.keys.A.hint", "unknown key"),
        (KEYS.replace("hold_time = 0.8", "hold_time = 60"), "input.keys.hold_time", "60"),
        ('[input]\nkinds = ["keys"]\n', "input.kinds", "'keys' needs [input.keys.A]"),
        ('[input]\nkinds = ["serial-grid"]\n', "input.kinds", "needs [input.serial]"),
        (
            '[input]\nkinds = ["serial-grid"]\n[input.serial]\nport = "/dev/ttyACM0"\n'
            + KEYS[KEYS.index("[input.keys]") :],
            "input.kinds",
            "[input.keys] given, but no 'keys' among the kinds",
        ),
        (
            '[input]\nkinds = ["serial-grid"]\n[input.serial]\nport = ""\n',
            "input.serial.port",
            '"": expected a device path such as /dev/ttyACM0 or a pyserial URL',
        ),
        (
            '[input]\nkinds = ["serial-grid"]\n[input.serial]\nport = "ttyACM0"\n',
            "input.serial.port",
            '"ttyACM0": expected a device path',
        ),
        (
            '[input]\nkinds = ["keyboard"]\n[input.keys]\npull_up = false\n',
            "input.kinds",
            "[input.keys] given, but no 'keys' among the kinds",
        ),
        (
            '[input]\nkinds = ["serial-grid"]\n[input.serial]\nport = "nonsense://x"\n',
            "input.serial.port",
            "pyserial URL (socket://, rfc2217://",
        ),
        (
            "[input.tuch]\ndwell = 1\n",
            "input.tuch",
            "unknown key or table (expected one of kinds, host, port, or a table: one of keys, "
            "touch, mpr121, serial)",
        ),
        ("[panels.C]\nbusy = 4\n", "panels.C", "unknown table (expected A or B: a seat's)"),
        (
            '[input]\nkinds = ["mpr121"]\n'
            "[input.mpr121]\nrows = [0, 1, 2, 3]\ncols = [5, 6, 7, 8, 9]\n",
            "input.mpr121",
            "strip map rows",
        ),
        (
            '[input]\nkinds = ["mpr121"]\n'
            '[input.mpr121]\nrelease_threshold = 20\npads = {"0x5A" = [0]}\n',
            "input.mpr121.release_threshold",
            "below touch_threshold",
        ),
        ('[input.touch]\ndwell = "long"\n', "input.touch.dwell", '"long" is not'),
    ],
)
def test_bad_input_tables_name_the_key(tmp_path: Path, text: str, key: str, detail: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ProfileError) as e:
        load(str(f))
    assert e.value.key == key
    assert detail in e.value.detail
