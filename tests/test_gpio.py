"""A GPIO claim that fails says so in one line naming the chip or pin and the
fix, with an exit status systemd does not loop on; lgpio's pipes are made in a
folder of our own, never a shared one."""

from __future__ import annotations

import io
import os
import stat
import sys
import types
from pathlib import Path

import pytest

from keystand import cli
from keystand.cliutil import EXIT_NO_HARDWARE
from keystand.drivers import gpio
from keystand.drivers.gpio import GpioTrouble, diagnose


def lgpio_module(refuse: str, seen: dict[str, str | None]) -> types.ModuleType:
    """A stand-in lgpio: its own `error` type (str() is the repr of the message,
    as the real one's), and a chip that cannot be opened."""
    fake = types.ModuleType("lgpio")

    class error(Exception):  # lgpio's own name
        __module__ = "lgpio"

        def __str__(self) -> str:
            return repr(self.args[0])

    def gpiochip_open(chip: int) -> int:
        seen["LG_WD"] = os.environ.get("LG_WD")
        raise error(refuse)

    def constant(name: str) -> int:  # SET_PULL_NONE and the rest gpiozero reads on import
        if name.isupper():
            return 0
        raise AttributeError(name)

    fake.__getattr__ = constant  # type: ignore[method-assign]
    fake.error = error  # type: ignore[attr-defined]
    fake.gpiochip_open = gpiochip_open  # type: ignore[attr-defined]
    return fake


@pytest.fixture
def pi_with_stand_in_lgpio(monkeypatch: pytest.MonkeyPatch):
    """gpiozero's lgpio factory, as on a Pi (a known revision), over a stand-in."""
    from gpiozero import Device

    def install(refuse: str) -> dict[str, str | None]:
        seen: dict[str, str | None] = {}
        monkeypatch.setitem(sys.modules, "lgpio", lgpio_module(refuse, seen))
        monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
        monkeypatch.setattr("gpiozero.pins.local.get_pi_revision", lambda: 0xA020D3)
        monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
        monkeypatch.setattr(Device, "pin_factory", None)
        monkeypatch.delenv("LG_WD", raising=False)
        return seen

    yield install
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)


def test_a_missing_chip_stops_the_start_in_one_line_with_exit_6(
    pi_with_stand_in_lgpio, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen = pi_with_stand_in_lgpio("can not open gpiochip")
    monkeypatch.setattr(gpio, "chips", lambda: [])
    out, err = io.StringIO(), io.StringIO()
    state = tmp_path / "state"
    code = cli.main(
        ["run", "--profile", "minimal", "--state-dir", str(state), "--no-page"], out=out, err=err
    )
    said = err.getvalue().splitlines()
    assert code == 6 == EXIT_NO_HARDWARE, said
    assert len(said) == 1 and "Traceback" not in err.getvalue()
    assert said[0].startswith("keystand run: seat A (epd2in7_V2): cannot claim GPIO17 for RST: ")
    assert "no GPIO chip (/dev/gpiochip0 is missing)" in said[0]
    assert "keystand doctor" in said[0]
    assert not list(state.glob("*.journal"))  # refused before a game was dealt
    # lgpio ran in a folder of its own, gone after.
    assert seen["LG_WD"] and Path(seen["LG_WD"]).name.startswith("keystand-lgpio-")
    assert not Path(seen["LG_WD"]).exists()
    assert "LG_WD" not in os.environ


def test_a_busy_line_exits_1_so_systemd_tries_again(pi_with_stand_in_lgpio, tmp_path: Path) -> None:
    pi_with_stand_in_lgpio("GPIO busy")
    err = io.StringIO()
    code = cli.main(
        ["run", "--profile", "minimal", "--state-dir", str(tmp_path / "s"), "--no-page"],
        out=io.StringIO(),
        err=err,
    )
    assert code == 1
    assert "cannot claim GPIO17 for RST: the line is busy" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_the_unit_does_not_restart_a_machine_without_gpio() -> None:
    unit = (Path(__file__).resolve().parent.parent / "systemd" / "keystand.service").read_text()
    (line,) = [ln for ln in unit.splitlines() if ln.startswith("RestartPreventExitStatus=")]
    assert str(EXIT_NO_HARDWARE) in line.split("=", 1)[1].split()
    assert "1" not in line.split("=", 1)[1].split()  # a busy line may free itself


def test_the_keys_say_the_same(pi_with_stand_in_lgpio, monkeypatch) -> None:
    from keystand.drivers.inputs.keys import KeyPinError, SeatKeys

    pi_with_stand_in_lgpio("can not open gpiochip")
    monkeypatch.setattr(gpio, "chips", lambda: ["/dev/gpiochip0"])
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)
    keys = SeatKeys({"A": {"clue": 12}})
    with pytest.raises(KeyPinError) as caught:
        keys.start(lambda event: None, lambda report: None)
    assert caught.value.trouble is GpioTrouble.NO_PERMISSION
    assert str(caught.value).startswith("seat A key clue on GPIO12: /dev/gpiochip0: permission")
    assert "usermod -aG gpio" in str(caught.value)


def lgpio_error(text: str) -> Exception:
    error = type("error", (Exception,), {"__module__": "lgpio"})
    return error(repr(text))


@pytest.mark.parametrize(
    ("error", "chips", "trouble", "lasting"),
    [
        (lgpio_error("can not open gpiochip"), [], GpioTrouble.NO_CHIP, True),
        (lgpio_error("GPIO busy"), ["/dev/gpiochip0"], GpioTrouble.BUSY, False),
        (
            PermissionError(13, "Permission denied"),
            ["/dev/gpiochip0"],
            GpioTrouble.NO_PERMISSION,
            False,
        ),
        (FileNotFoundError(2, "No such file"), [], GpioTrouble.NO_CHIP, True),
        (ImportError("No module named 'lgpio'"), [], GpioTrouble.NO_BACKEND, True),
    ],
)
def test_each_error_by_what_fixes_it(
    monkeypatch: pytest.MonkeyPatch, error: Exception, chips: list[str], trouble, lasting
) -> None:
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)
    found = diagnose(error, chips)
    assert found is not None and found.trouble is trouble
    assert found.trouble.lasting is lasting
    assert (
        "running" in found.detail if trouble is GpioTrouble.BUSY else "running" not in found.detail
    )


def test_gpiozero_errors_by_name() -> None:
    from gpiozero.exc import BadPinFactory, PinUnknownPi

    not_pi = diagnose(
        PinUnknownPi("unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo")
    )
    assert not_pi is not None and not_pi.trouble is GpioTrouble.NOT_A_PI
    assert "--emulate DIR" in not_pi.detail
    none = diagnose(BadPinFactory("Unable to load any default pin factory!"))
    assert none is not None and none.trouble is GpioTrouble.NO_BACKEND


def test_a_bug_is_not_called_a_gpio_error() -> None:
    assert diagnose(KeyError("pin")) is None


def test_a_shared_lg_wd_is_never_used(tmp_path: Path) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / ".lgd-nfy0").write_text("another user's pipe")  # left behind
    env = {"LG_WD": str(shared)}
    with gpio.lgpio_workdir(env) as folder:
        assert env["LG_WD"] == folder
        assert Path(folder).parent != shared
        mode = os.stat(folder).st_mode
        assert stat.S_IMODE(mode) == 0o700 and os.stat(folder).st_uid == os.geteuid()
        assert not list(Path(folder).iterdir())
        (Path(folder) / ".lgd-nfy0").write_text("ours")
    assert env == {"LG_WD": str(shared)}
    assert not Path(folder).exists()


def test_the_units_runtime_directory_is_used_when_it_is_ours(tmp_path: Path) -> None:
    runtime = tmp_path / "run-keystand"
    runtime.mkdir(mode=0o700)
    env: dict[str, str] = {"LG_WD": str(runtime)}
    with gpio.lgpio_workdir(env) as folder:
        assert Path(folder).parent == runtime
    assert not Path(folder).exists() and runtime.exists()
    env = {}
    with gpio.lgpio_workdir(env) as folder:
        assert env["LG_WD"] == folder
    assert env == {}
