"""Pin plans: every shipped build passes `keystand profile check`; a profile whose
wiring cannot exist is refused on load, naming the pin and both of its uses."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from keystand import pins
from keystand.cli import main
from keystand.inputkinds.mpr121 import Mpr121
from keystand.profile import ProfileError, load, shipped

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"


def profile_check(*names: str | Path) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["profile", "check", *map(str, names)], out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue()


def test_every_shipped_profile_passes_profile_check() -> None:
    code, lines, err = profile_check()
    assert code == 0, lines
    assert [line.split(":")[0] for line in lines] == sorted(shipped())
    assert all(": ok: " in line for line in lines)
    assert {"minimal", "touch-mpr121", "touch-serial"} <= set(shipped())
    assert err == ""


def test_profile_check_takes_the_files_in_hardware_by_path() -> None:
    files = sorted(HARDWARE.glob("*.toml"))
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "profile", "check", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(done.stdout.splitlines()) == len(files)


def test_profile_check_takes_profile_as_run_and_doctor_do() -> None:
    code, lines, _ = profile_check("desktop", "--profile", "minimal")
    assert code == 0
    assert [line.split(":")[0] for line in lines] == ["desktop", "minimal"]


def test_the_minimal_build_wires_what_its_readme_says() -> None:
    plan = {use.what: use.pin for use in pins.check(load("minimal"))}
    assert plan["seat A panel rst"] == 17 and plan["seat A panel dc"] == 25
    assert plan["seat B panel busy"] == 23 and plan["seat B panel pwr"] == 26
    assert [plan[f"seat A key {k}"] for k in ("clue", "pass", "undo", "menu")] == [5, 6, 13, 19]
    assert [plan[f"seat B key {k}"] for k in ("clue", "pass", "undo", "menu")] == [12, 16, 20, 21]
    assert load("minimal").panels["B"].spi_device == 1  # CE1, GPIO7


def edited(tmp_path: Path, build: str, old: str, new: str) -> Path:
    text = (HARDWARE / f"{build}.toml").read_text()
    assert old in text, old
    path = tmp_path / f"{build}.toml"
    path.write_text(text.replace(old, new, 1))
    return path


BROKEN = [
    # (build, old, new, the pin, both uses)
    ("minimal", "undo = 13", "undo = 22", 22, "seat B panel dc and seat A key undo"),
    ("minimal", "rst = 27", "rst = 17", 17, "seat A panel rst and seat B panel rst"),
    ("minimal", "clue = 5 ", "clue = 10 ", 10, "SPI0 MOSI and seat A key clue"),
    ("minimal", "menu = 21", "menu = 9", 9, "SPI0 MISO and seat B key menu"),
    ("minimal", "pass = 6 ", "pass = 7 ", 7, "seat B panel CE1 and seat A key pass"),
    ("minimal", "busy = 23", "busy = 11", 11, "SPI0 SCLK and seat B panel busy"),
    ("minimal", "spi_device = 1", "spi_device = 0", 8, "seat A panel CE0 and seat B panel CE0"),
    ("touch-mpr121", "menu = 21", "menu = 2", 2, "I2C1 SDA and seat B key menu"),
    ("touch-mpr121", "pwr = 26", "pwr = 3", 3, "I2C1 SCL and seat B panel pwr"),
    ("minimal", "clue = 5 ", "clue = 1 ", 1, "seat A key clue: not a header GPIO"),
    ("minimal", "pwr = 26", "pwr = 0", 0, "seat B panel pwr: not a header GPIO"),
]


@pytest.mark.parametrize(("build", "old", "new", "pin", "uses"), BROKEN)
def test_a_broken_pin_plan_is_refused_naming_the_pin_and_both_uses(
    tmp_path: Path, build: str, old: str, new: str, pin: int, uses: str
) -> None:
    path = edited(tmp_path, build, old, new)
    with pytest.raises(ProfileError) as info:
        load(str(path))
    assert info.value.key == f"GPIO {pin}"
    assert str(info.value).startswith(f"{path}: GPIO {pin}: {uses}")
    code, lines, err = profile_check(path, "minimal")
    assert code == 1
    assert lines[0].startswith(f"{path}: GPIO {pin}: {uses}") and lines[1].startswith("minimal: ok")
    assert "1 of 2 profiles refused" in err


def test_the_uart_is_kept_free_only_when_the_grid_is_on_it(tmp_path: Path) -> None:
    usb = edited(tmp_path, "touch-serial", "clue = 5 ", "clue = 14 ")
    assert load(str(usb)).input.table("keys") is not None  # the grid on USB: GPIO14 is free
    uart = tmp_path / "uart.toml"
    uart.write_text(usb.read_text().replace('"/dev/ttyACM0"', '"/dev/serial0"'))
    with pytest.raises(ProfileError, match=r"GPIO 14: UART TXD and seat A key clue"):
        load(str(uart))


def test_i2c_is_free_for_keys_when_no_mpr121_is_used(tmp_path: Path) -> None:
    path = edited(tmp_path, "minimal", "menu = 21", "menu = 2")
    assert load(str(path)).input.table("keys") is not None


def test_only_i2c_bus_1_holds_gpio2_and_gpio3(tmp_path: Path) -> None:
    """Another /dev/i2c-N is an overlay's, on the pins its dtoverlay line names:
    the plan does not claim I2C1's for it, and the summary names the bus."""
    bus1 = edited(tmp_path, "touch-mpr121", "menu = 21", "menu = 2")
    with pytest.raises(ProfileError, match=r"GPIO 2: I2C1 SDA and seat B key menu"):
        load(str(bus1))
    bus3 = tmp_path / "bus3.toml"
    bus3.write_text(bus1.read_text().replace("\nbus = 1 ", "\nbus = 3 ", 1))
    mpr121 = load(str(bus3)).input.table("mpr121")
    assert isinstance(mpr121, Mpr121) and mpr121.bus == 3
    code, lines, _ = profile_check(bus3)
    assert code == 0 and lines == [f"{bus3}: ok: 22 GPIOs (waveshare panels, SPI0, I2C3, 8 keys)"]


def test_a_simulated_build_plans_no_panel_pins(tmp_path: Path) -> None:
    """desktop.toml's panels are simulated: their (default) lines are no wiring,
    and keys may sit on the SPI lines nobody uses."""
    assert pins.check(load("desktop")) == []
    path = edited(tmp_path, "minimal", 'driver = "waveshare"', 'driver = "sim"')
    path.write_text(
        path.read_text().replace("clue = 5 ", "clue = 10 ").replace("rst = 27", "rst = 25")
    )
    plan = pins.check(load(str(path)))
    assert [u.what for u in plan if u.pin == 10] == ["seat A key clue"]
    assert all("panel" not in u.what for u in plan)


def test_header_pins_are_the_40_pin_headers() -> None:
    assert set(pins.HEADER_PIN) == set(range(28))
    assert len(set(pins.HEADER_PIN.values())) == 28  # no physical pin twice
    assert pins.Use(7, "x").where == "GPIO7 (pin 26)"
