"""`keystand doctor`: each check's pass and fail line, on a fake Pi (a /dev tree
in tmp_path, injected groups and openers) with emulated panels and an emulated
MPR121; off a Pi, one line saying so and no traceback."""

from __future__ import annotations

import errno
import io
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from keystand import doctor
from keystand.doctor import Check, Machine, diagnose, report
from keystand.drivers import factory, gpio
from keystand.drivers.display.hal import Wiring
from keystand.drivers.display.waveshare import VendorMissing
from keystand.drivers.inputs.mpr121 import electrode_map
from keystand.drivers.inputs.mpr121_emu import EmulatedGrid, FakeSMBus
from keystand.profile import Panel

HARDWARE = Path(__file__).resolve().parent.parent / "hardware"
DEVICES = ("spidev0.0", "spidev0.1", "gpiochip0", "i2c-1", "ttyACM0")


class Bench:
    """A fake Pi: its root, its user's groups, emulated panels (faults per seat)
    and an emulated MPR121 grid at 0x5A."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "proc" / "device-tree").mkdir(parents=True)
        (root / "proc" / "device-tree" / "model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
        (root / "dev").mkdir()
        for name in DEVICES:
            (root / "dev" / name).write_bytes(b"")
        self.groups = {"pi", "gpio", "spi", "i2c", "dialout"}
        self.faults: dict[str, str] = {}
        self.pins = MockFactory()
        self.hardware: dict[str, Any] = {}
        spec = {"address": "0x5A", "rows": [0, 1, 2, 3, 4], "cols": [5, 6, 7, 8, 9]}
        self.grid = EmulatedGrid(electrode_map(spec))
        self.opened: list[Path] = []
        self.refuse: dict[str, int] = {}  # device name -> errno

    def open_device(self, path: Path) -> None:
        self.opened.append(path)
        if path.name in self.refuse:
            raise OSError(self.refuse[path.name], "refused")
        path.open("rb").close()

    def make_panel(self, seat: str, panel: Panel) -> Any:
        made, hardware = factory.make_emulated_panel(
            "waveshare",
            panel.model,
            rotation=panel.rotation,
            seat=seat,
            pin_factory=self.pins,
            speed=0,
            fault=self.faults.get(seat),
            busy_timeout=2.0,
            rise_timeout=0.2,
            record=False,
            wiring=doctor.wiring(panel),
        )
        self.hardware[seat] = hardware
        return made

    def machine(self, **changes: Any) -> Machine:
        """The fake Pi for one doctor run (its panels on a fresh header)."""
        self.close()
        self.hardware = {}
        self.pins = MockFactory()
        base = Machine(
            root=self.root,
            user=lambda: "pi",
            uid=lambda: 1000,
            groups=lambda: set(self.groups),
            open_device=self.open_device,
            open_i2c=lambda path: self.grid.smbus(1),
            has_module=lambda name: True,
            make_panel=self.make_panel,
        )
        return replace(base, **changes)

    def close(self) -> None:
        for hardware in self.hardware.values():
            hardware.close()
        self.pins.close()


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    b = Bench(tmp_path / "pi")
    yield b
    b.close()


def lines(profile: str, machine: Machine, *, refresh: bool = False) -> tuple[int, list[Check]]:
    checks = list(diagnose(profile, machine, refresh=refresh))
    code = report(iter(checks), io.StringIO())
    return code, checks


def find(checks: list[Check], name: str) -> Check:
    found = [c for c in checks if c.name.startswith(name)]
    assert len(found) == 1, (name, [str(c) for c in checks])
    return found[0]


@pytest.mark.parametrize("build", ["minimal", "touch-mpr121", "touch-serial", "touch-mpr121-4in26"])
def test_a_ready_pi_passes_every_check(bench: Bench, build: str) -> None:
    code, checks = lines(build, bench.machine())
    assert code == 0, "\n".join(map(str, checks))
    names = [c.name for c in checks]
    assert names[:3] == ["profile", "vendor package", "machine"]
    assert find(checks, "machine").detail == "Raspberry Pi 4 Model B Rev 1.5"
    assert "/dev/spidev0.0 (seat A)" in names and "/dev/spidev0.1 (seat B)" in names
    assert "/dev/gpiochip0 (GPIO)" in names
    assert any(n.startswith("panel A (") for n in names) and any(
        n.startswith("panel B (") for n in names
    )
    assert ("MPR121 at 0x5A" in names) == build.startswith("touch-mpr121")
    assert ("/dev/ttyACM0 (the touch grid)" in names) == (build == "touch-serial")
    assert find(checks, "groups").detail.startswith("pi is in gpio, spi")


def test_the_report_is_one_line_per_check(bench: Bench) -> None:
    out = io.StringIO()
    code = report(diagnose("minimal", bench.machine()), out)
    text = out.getvalue().splitlines()
    assert code == 0
    assert text[0].startswith("ok   profile: minimal: loads; pin plan ok (21 GPIOs")
    assert all(line[:5] in ("ok   ", "FAIL ") for line in text)


def test_a_bad_profile_fails_naming_the_pin(bench: Bench, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text((HARDWARE / "minimal.toml").read_text().replace("undo = 13", "undo = 22"))
    code, checks = lines(str(bad), bench.machine())
    assert code == 1
    assert str(checks[0]) == f"FAIL profile: {bad}: GPIO 22: seat B panel dc and seat A key undo"
    assert [c.name for c in checks] == ["profile", "vendor package"]  # nothing to check against


def test_missing_spi_device_says_how_to_enable_spi(bench: Bench) -> None:
    (bench.root / "dev" / "spidev0.1").unlink()
    code, checks = lines("minimal", bench.machine())
    assert code == 1
    line = str(find(checks, "/dev/spidev0.1"))
    assert line.startswith("FAIL /dev/spidev0.1 (seat B): missing: enable SPI")
    assert "raspi-config nonint do_spi 0" in line and "/boot/firmware/config.txt" in line
    assert find(checks, "/dev/spidev0.0").ok


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (errno.EACCES, "permission denied: is pi in its group?"),
        (errno.EBUSY, "is keystand running"),
    ],
)
def test_a_device_that_will_not_open_says_why(bench: Bench, error: int, says: str) -> None:
    bench.refuse["spidev0.0"] = error
    code, checks = lines("minimal", bench.machine())
    assert code == 1
    check = find(checks, "/dev/spidev0.0")
    assert not check.ok and says in check.detail


def test_missing_groups_name_the_usermod_line(bench: Bench) -> None:
    bench.groups -= {"spi", "i2c"}
    code, checks = lines("touch-mpr121", bench.machine())
    assert code == 1
    assert str(find(checks, "groups")) == (
        "FAIL groups: pi is not in spi, i2c: sudo usermod -aG spi,i2c pi, then log out and in"
    )
    code, checks = lines("touch-serial", bench.machine(groups=lambda: {"gpio", "spi"}))
    assert code == 1 and "pi is not in dialout" in find(checks, "groups").detail
    code, checks = lines("minimal", bench.machine(groups=lambda: set(), uid=lambda: 0))
    assert code == 0 and find(checks, "groups").detail.startswith("running as root")


def test_the_gpio_chip_is_the_pi_5s_when_there_is_one(bench: Bench) -> None:
    (bench.root / "dev" / "gpiochip4").write_bytes(b"")
    (bench.root / "dev" / "gpiochip0").unlink()
    code, checks = lines("minimal", bench.machine())
    assert code == 0 and find(checks, "/dev/gpiochip4 (GPIO)").ok
    (bench.root / "dev" / "gpiochip4").unlink()
    code, checks = lines("minimal", bench.machine())
    assert code == 1 and not find(checks, "/dev/gpiochip0 (GPIO)").ok


def test_missing_python_modules_say_which_extra(bench: Bench) -> None:
    code, checks = lines("touch-mpr121", bench.machine(has_module=lambda m: m != "smbus2"))
    assert code == 1
    assert str(find(checks, "module smbus2")) == (
        f"FAIL module smbus2: missing (the MPR121's I2C): {doctor.PI_EXTRA}"
    )
    assert find(checks, "module spidev").ok and find(checks, "module lgpio").ok


def test_a_missing_vendor_package_is_named(bench: Bench) -> None:
    def missing(model: str) -> object:
        raise VendorMissing("waveshare-epaper is not installed; pip install ...")

    code, checks = lines("minimal", bench.machine(vendor_file=missing))
    assert code == 1
    assert str(find(checks, "vendor package")).startswith(
        "FAIL vendor package: waveshare-epaper is not installed"
    )


def test_the_real_vendor_files_are_found(bench: Bench) -> None:
    """The vendor check runs the real loader over the installed package."""
    check = find(list(diagnose("minimal", bench.machine())), "vendor package")
    assert check.ok and all(m in check.detail for m in ("epd2in7_V2", "epd4in2_V2"))


def test_i2c_bus_and_mpr121(bench: Bench) -> None:
    code, checks = lines("touch-mpr121", bench.machine())
    assert code == 0
    assert str(find(checks, "MPR121 at 0x5A")) == "ok   MPR121 at 0x5A: answers (CONFIG2 0x24)"
    nobody = FakeSMBus({})
    code, checks = lines("touch-mpr121", bench.machine(open_i2c=lambda path: nobody))
    assert code == 1
    line = str(find(checks, "MPR121 at 0x5A"))
    assert line.startswith("FAIL MPR121 at 0x5A: no answer: check SDA to GPIO2 (pin 3)")
    assert nobody.closed
    (bench.root / "dev" / "i2c-1").unlink()
    code, checks = lines("touch-mpr121", bench.machine())
    line = str(find(checks, "/dev/i2c-1"))
    assert line.startswith("FAIL /dev/i2c-1 (I2C): missing: enable I2C")
    assert "raspi-config nonint do_i2c 0" in line
    assert not any(c.name.startswith("MPR121 at") for c in checks)
    # Which wait the driver uses is said whatever the bus does.
    assert str(find(checks, "MPR121 IRQ")) == (
        "ok   MPR121 IRQ: GPIO4 (pin 7): the driver waits on the chips' IRQ line"
    )


def test_doctor_says_an_mpr121_without_its_irq_is_polled(bench: Bench, tmp_path: Path) -> None:
    polled = tmp_path / "polled.toml"
    polled.write_text((HARDWARE / "touch-mpr121.toml").read_text().replace("irq = 4 ", "irq = -1 "))
    code, checks = lines(str(polled), bench.machine())
    assert code == 0
    assert str(find(checks, "MPR121 IRQ")).startswith(
        "ok   MPR121 IRQ: not wired: the chips are read every 10 ms, touched or not"
    )


def test_another_device_at_the_mpr121s_address(bench: Bench) -> None:
    chip = bench.grid.chips[0x5A]
    chip.write(0x5D, 0x11)  # stopped after reset: CONFIG2 takes the write
    code, checks = lines("touch-mpr121", bench.machine())
    assert code == 1
    assert "CONFIG2 reads 0x11" in find(checks, "MPR121 at 0x5A").detail


def test_the_serial_port(bench: Bench) -> None:
    (bench.root / "dev" / "ttyACM0").unlink()
    code, checks = lines("touch-serial", bench.machine())
    assert code == 1
    assert str(find(checks, "/dev/ttyACM0")) == (
        "FAIL /dev/ttyACM0 (the touch grid): missing: plug in the grid "
        "(ls /dev/serial/by-id/ names it)"
    )


def test_panels_answer_through_the_real_driver(bench: Bench) -> None:
    code, checks = lines("minimal", bench.machine())
    assert code == 0
    check = find(checks, "panel B")
    assert check.name == "panel B (epd2in7_V2, CE1, BUSY GPIO23)"
    assert check.detail == "initialised; BUSY answered"
    assert find(checks, "panel A").detail == "initialised; BUSY answered"


def test_an_unplugged_panel_fails_its_line(bench: Bench) -> None:
    bench.faults["A"] = "unplugged"
    code, checks = lines("minimal", bench.machine())
    assert code == 1
    check = find(checks, "panel A")
    assert not check.ok and "BUSY on GPIO24 never went high" in check.detail
    assert find(checks, "panel B").ok


def ticks(*seconds: float) -> Any:
    """A clock that says these times in turn (start and end of each refresh)."""
    said = iter(seconds)
    return lambda: next(said)


def test_refresh_times_a_full_and_a_partial_refresh(bench: Bench) -> None:
    """Each panel draws a blank full refresh, then a partial (a bar across the top),
    each timed against its model's figure (the 2.7" V2: 6 s full, 0.3 s partial)."""
    clock = ticks(0.0, 2.1, 2.1, 2.46, 10.0, 12.0, 12.0, 12.4)
    code, checks = lines("minimal", bench.machine(clock=clock), refresh=True)
    assert code == 0, "\n".join(map(str, checks))
    detail = find(checks, "panel A").detail
    assert "full refresh 2.10 s (its figure 6.0 s)" in detail
    assert "partial refresh 0.36 s (its figure 0.3 s)" in detail
    for seat in "AB":
        shown = bench.hardware[seat].shown.convert("L")
        assert shown.getextrema() == (0, 255)  # the bar, drawn by the partial
        assert shown.getpixel((shown.width // 2, shown.height // 2)) == 255


def test_a_refresh_far_past_its_figure_fails_and_names_the_fallback(bench: Bench) -> None:
    clock = ticks(0.0, 2.0, 2.0, 4.5, 10.0, 12.0, 12.0, 12.3)
    code, checks = lines("minimal", bench.machine(clock=clock), refresh=True)
    assert code == 1
    slow = find(checks, "panel A")
    assert not slow.ok and "partial refresh 2.50 s (its figure 0.3 s): too slow" in slow.detail
    assert "vendor_reset = true under [panels]" in slow.detail
    assert find(checks, "panel B").ok


def test_a_panel_that_never_finishes_a_refresh_names_the_fallback(bench: Bench) -> None:
    bench.faults["A"] = "busy-stuck"
    code, checks = lines("minimal", bench.machine(clock=ticks(*range(8))), refresh=True)
    assert code == 1
    stuck = find(checks, "panel A")
    assert "stayed high" in stuck.detail and "vendor_reset = true" in stuck.detail


def test_the_settings_files_reset_fallback_is_the_one_checked(bench: Bench, tmp_path: Path) -> None:
    """`vendor_reset` under [panels.A] in the settings file (README "Panels"): doctor
    checks seat A with the vendor's waits, names them, and stops advising them."""
    from keystand import config

    path = tmp_path / "keystand.toml"
    path.write_text("[panels.A]\nvendor_reset = true\n")
    settings = config.load(path)
    bench.faults["A"] = "busy-stuck"
    machine = bench.machine(clock=ticks(*range(8)))
    checks = list(diagnose("minimal", machine, refresh=True, settings=settings))
    stuck, other = find(checks, "panel A"), find(checks, "panel B")
    assert stuck.name == "panel A (epd2in7_V2, CE0, BUSY GPIO24, the vendor's reset waits)"
    assert not stuck.ok and "check its cable and wiring" in stuck.detail
    assert "vendor_reset = true" not in stuck.detail
    assert other.name == "panel B (epd2in7_V2, CE1, BUSY GPIO23)" and other.ok


def test_off_a_pi_only_the_profile_and_package_are_checked(bench: Bench, tmp_path: Path) -> None:
    off = bench.machine(root=tmp_path / "laptop")
    code, checks = lines("minimal", off)
    assert code == 1
    assert [c.name for c in checks] == [
        "profile",
        "vendor package",
        "machine",
        "/dev/gpiochip0 (GPIO)",
        "/dev/spidev0.0 (seat A)",
        "/dev/spidev0.1 (seat B)",
    ]
    assert (
        str(checks[2]) == "FAIL machine: not a Raspberry Pi: no pins or panels to claim here (on a "
        "desktop, `make sim` runs the stand; --emulate DIR runs this profile's drivers)"
    )
    # One line each for what a container or a desktop lacks; no raspi-config advice.
    assert [str(check) for check in checks[3:]] == [
        "FAIL /dev/gpiochip0 (GPIO): missing: no GPIO chip on this machine (not a Raspberry Pi)",
        "FAIL /dev/spidev0.0 (seat A): missing: no SPI on this machine (not a Raspberry Pi)",
        "FAIL /dev/spidev0.1 (seat B): missing: no SPI on this machine (not a Raspberry Pi)",
    ]
    code, checks = lines("desktop", off)
    assert code == 0 and [c.name for c in checks] == ["profile", "machine"]


def test_the_command_off_a_pi_has_no_traceback() -> None:
    if Path("/proc/device-tree/model").exists():
        pytest.skip("this machine has a device tree: not a desktop")
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "doctor", "--profile", "touch-mpr121"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stderr == ""
    said = done.stdout.splitlines()
    assert said[2].startswith("FAIL machine: not a Raspberry Pi")
    assert [line.split(" (")[0] for line in said[3:]] == [
        "FAIL /dev/gpiochip0",
        "FAIL /dev/spidev0.0",
        "FAIL /dev/spidev0.1",
        "FAIL /dev/i2c-1",
        "ok   MPR121 IRQ: GPIO4",
    ]


def lgpio_error(text: str) -> Exception:
    """lgpio's own exception type, as the real module raises it: a class named
    `error` in module `lgpio`, neither an OSError nor a gpiozero error, whose
    str() is the repr of lgpio's message."""
    error = type("error", (Exception,), {"__module__": "lgpio"})
    return error(repr(text))


class Refusing(MockFactory):
    """A pin factory whose back end refuses some lines with lgpio's error."""

    def __init__(self, refuse: dict[int, str]) -> None:
        super().__init__()
        self.refuse = refuse

    def pin(self, spec: Any, **kwargs: Any) -> Any:
        info = self.board_info.find_pin(spec)
        gpio = int(next(iter(info))[1].name[4:]) if info else int(spec)
        if gpio in self.refuse:
            raise lgpio_error(self.refuse[gpio])
        return super().pin(spec, **kwargs)


def test_a_panel_line_another_program_holds_says_to_stop_the_service(bench: Bench) -> None:
    """Seat A's RST is held by another program (as a running stand holds it):
    lgpio says "GPIO busy" when the real driver claims it."""
    from keystand.drivers.display.waveshare import WavesharePanel

    def make_panel(seat: str, panel: Panel) -> Any:
        if seat == "B":
            return bench.make_panel(seat, panel)
        return WavesharePanel(
            panel.model,
            seat=seat,
            wiring=Wiring(**doctor.wiring(panel)),
            pin_factory=Refusing({panel.rst: "GPIO busy"}),
        )

    code, checks = lines("minimal", bench.machine(make_panel=make_panel))
    assert code == 1
    check = find(checks, "panel A")
    assert "cannot claim GPIO17 for RST: the line is busy" in check.detail
    assert check.detail.endswith("(is keystand already running? sudo systemctl stop keystand)")
    assert find(checks, "panel B").ok


@pytest.mark.parametrize(
    ("text", "chips", "says"),
    [
        ("can not open gpiochip", [], "no GPIO chip (/dev/gpiochip0 is missing)"),
        ("can not open gpiochip", ["/dev/gpiochip0"], "/dev/gpiochip0: permission denied"),
        ("GPIO operation not permitted", ["/dev/gpiochip0"], "permission denied"),
    ],
)
def test_a_chip_lgpio_cannot_open_is_named_without_blaming_the_service(
    bench: Bench, monkeypatch: pytest.MonkeyPatch, text: str, chips: list[str], says: str
) -> None:
    """lgpio imported fine but refused the chip: the line names the chip and the
    fix, and neither suggests installing a back end nor stopping the service."""
    from keystand.drivers import gpio
    from keystand.drivers.display.waveshare import WavesharePanel

    monkeypatch.setattr(gpio, "chips", lambda: chips)
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)  # root may open anything

    def make_panel(seat: str, panel: Panel) -> Any:
        refused = Refusing({panel.rst: text})
        return WavesharePanel(
            panel.model, seat=seat, wiring=Wiring(**doctor.wiring(panel)), pin_factory=refused
        )

    code, checks = lines("minimal", bench.machine(make_panel=make_panel))
    assert code == 1
    for seat in "AB":
        detail = find(checks, f"panel {seat}").detail
        assert says in detail
        assert "'.[pi]'" not in detail and "running" not in detail


def test_a_pi_without_a_gpio_back_end_says_what_to_install(bench: Bench) -> None:
    """The real panel maker, on a machine where gpiozero finds no back end
    (this desktop: no lgpio, no RPi.GPIO, no Pi revision)."""
    if Path("/proc/device-tree/model").exists() or Machine().has_module("lgpio"):
        pytest.skip("this machine may have real GPIO")
    code, checks = lines("minimal", bench.machine(make_panel=Machine().make_panel))
    assert code == 1
    check = find(checks, "panel A")
    assert "cannot claim GPIO17 for RST" in check.detail
    assert check.detail.endswith(gpio.INSTALL_HINT)


def test_without_profile_the_settings_files_profile_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keystand import config

    installed = tmp_path / "keystand.toml"
    monkeypatch.setattr(config, "DEFAULT_PATH", installed)

    def named(given: str | None, path: Path | None) -> str:
        return doctor.profile_name(given, config.load(config.find(path)))

    assert named(None, None) == doctor.DEFAULT_PROFILE  # no file
    installed.write_text('[service]\nprofile = "touch-serial"\n')
    assert named(None, None) == "touch-serial"
    assert named("desktop", None) == "desktop"  # the option wins
    other = tmp_path / "other.toml"
    other.write_text('[game]\nmission = "9-5"\n')  # names no profile
    assert named(None, other) == doctor.DEFAULT_PROFILE

    # Through the command: the file's profile is the one on the report's first line.
    from keystand.cli import main

    installed.write_text('[service]\nprofile = "desktop"\n')
    out, err = io.StringIO(), io.StringIO()
    main(["doctor"], out=out, err=err)
    first = out.getvalue().splitlines()[0]
    assert first.startswith("ok   profile: desktop: "), first
    # A bad settings file: one line naming it, no report.
    installed.write_text("[service]\nprofile = 7\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["doctor"], out=out, err=err) == 2
    assert out.getvalue() == "" and len(err.getvalue().splitlines()) == 1
    assert str(installed) in err.getvalue() and "profile" in err.getvalue()
