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
            True,
        ),
        (lgpio_error("can not open gpiochip"), ["/dev/gpiochip0"], GpioTrouble.NO_PERMISSION, True),
        (FileNotFoundError(2, "No such file"), [], GpioTrouble.NO_CHIP, True),
        # lgpio's Python side opens ".lgd-nfy-3" when its C side made no pipe.
        (FileNotFoundError(2, "No such file", ".lgd-nfy-3"), [], GpioTrouble.NO_PIPE, True),
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
    assert ("'.[pi]'" in found.detail) is (trouble is GpioTrouble.NO_BACKEND)
    if trouble in (GpioTrouble.NO_CHIP, GpioTrouble.NO_PERMISSION):
        assert found.chip == (chips or ["/dev/gpiochip0"])[0]
        assert found.chip in found.detail


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


def test_a_refused_chip_stops_the_start_in_one_line_with_exit_6(
    pi_with_stand_in_lgpio, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The chip is there but the user may not open it: only a change of groups
    (or of the unit's DeviceAllow=) helps, so systemd must not retry."""
    pi_with_stand_in_lgpio("can not open gpiochip")
    monkeypatch.setattr(gpio, "chips", lambda: ["/dev/gpiochip0"])
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)  # root may open anything
    err = io.StringIO()
    code = cli.main(
        ["run", "--profile", "minimal", "--state-dir", str(tmp_path / "s"), "--no-page"],
        out=io.StringIO(),
        err=err,
    )
    said = err.getvalue().splitlines()
    assert code == EXIT_NO_HARDWARE and len(said) == 1, said
    assert "cannot claim GPIO17 for RST: /dev/gpiochip0: permission denied" in said[0]
    assert "usermod -aG gpio" in said[0] and "running" not in said[0]


def test_the_errors_carry_the_pin_and_the_chip(pi_with_stand_in_lgpio, monkeypatch) -> None:
    from keystand.drivers.display.hal import PanelGpioError, PanelHal, Wiring
    from keystand.drivers.inputs.keys import KeyPinError, SeatKeys

    pi_with_stand_in_lgpio("can not open gpiochip")
    monkeypatch.setattr(gpio, "chips", lambda: [])
    with pytest.raises(PanelGpioError) as panel:
        PanelHal("B", "epd2in9_V2", Wiring(rst=5, dc=6, busy=13, spi_device=1), spi=None)  # type: ignore[arg-type]
    assert (panel.value.pin, panel.value.chip) == (5, "/dev/gpiochip0")
    assert isinstance(panel.value, OSError) and panel.value.trouble.lasting
    with pytest.raises(KeyPinError) as key:
        SeatKeys({"B": {"clue": 26}}).start(lambda event: None, lambda report: None)
    assert (key.value.pin, key.value.chip) == (26, "/dev/gpiochip0")


# A stand-in lgpio as a module file, for what happens when it is imported: the
# real one reads LG_WD once, moves the process there (lgUtil.c, lguGetWorkDir),
# makes `.lgd-nfy0` there and leaves it behind. A pipe already in the folder
# stands for another user's (in a sticky /tmp it can be neither removed nor
# reused); the real module then opens ".lgd-nfy-3", which does not exist.
STAND_IN = """
import json, os
seen = {"LG_WD": os.environ.get("LG_WD")}
work = os.environ.get("LG_WD") or os.getcwd()
os.chdir(work)
seen["cwd"] = os.getcwd()
with open(os.environ["STAND_IN_LGPIO_LOG"], "w") as log:
    json.dump(seen, log)
if os.path.lexists(".lgd-nfy0"):
    raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy-3")
os.mkfifo(".lgd-nfy0", 0o664)

class error(Exception):
    def __str__(self):
        return repr(self.args[0])

def gpiochip_open(chip):
    raise error("can not open gpiochip")

def __getattr__(name):  # SET_PULL_NONE and the other constants gpiozero reads
    if name.isupper():
        return 0
    raise AttributeError(name)
"""


@pytest.fixture
def stand_in_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The stand-in on the import path, and a shared folder (sticky, like /tmp)
    holding another user's leftover pipe, which is also the working directory."""
    lib, shared = tmp_path / "lib", tmp_path / "shared"
    lib.mkdir()
    shared.mkdir()
    shared.chmod(0o1777)
    (lib / "lgpio.py").write_text(STAND_IN)
    (shared / ".lgd-nfy0").write_text("")  # another user's, left behind
    paths = {"lib": lib, "shared": shared, "log": tmp_path / "lgpio-saw.json"}
    monkeypatch.setenv("STAND_IN_LGPIO_LOG", str(paths["log"]))
    monkeypatch.chdir(shared)
    return paths


def test_lgpio_loads_in_a_folder_of_its_own_and_the_run_stays_where_it_was(
    stand_in_file: dict[str, Path], pi_with_stand_in_lgpio, monkeypatch, tmp_path: Path
) -> None:
    import json

    pi_with_stand_in_lgpio("unused")
    monkeypatch.delitem(sys.modules, "lgpio")  # the file stand-in, imported by gpiozero
    monkeypatch.syspath_prepend(str(stand_in_file["lib"]))
    monkeypatch.setenv("LG_WD", str(stand_in_file["shared"]))
    monkeypatch.setattr(gpio, "chips", lambda: [])
    err = io.StringIO()
    code = cli.main(
        ["run", "--profile", "minimal", "--state-dir", "state"], out=io.StringIO(), err=err
    )
    assert code == EXIT_NO_HARDWARE, err.getvalue()
    assert "no GPIO chip (/dev/gpiochip0 is missing)" in err.getvalue()  # not the pipe
    saw = json.loads(stand_in_file["log"].read_text())
    private = Path(saw["LG_WD"])
    assert private.name.startswith("keystand-lgpio-") and saw["cwd"] == str(private)
    assert not private.exists()  # removed after, with the pipe lgpio left in it
    assert os.environ["LG_WD"] == str(stand_in_file["shared"])  # the caller's, given back
    assert Path.cwd() == stand_in_file["shared"]  # lgpio's chdir undone
    # Nothing of ours left in the shared folder: lgpio's pipe went with its folder,
    # and a refused start makes no state dir either (issue 35), here or elsewhere.
    assert [p.name for p in stand_in_file["shared"].iterdir()] == [".lgd-nfy0"]
    assert not (tmp_path / "state").exists() and not (private.parent / "state").exists()


def test_in_the_shared_folder_the_leftover_pipe_is_named(
    stand_in_file: dict[str, Path], pi_with_stand_in_lgpio, monkeypatch
) -> None:
    """What the private folder avoids, with the same stand-in: lgpio run in the
    shared folder fails at import, and the line says it is about the pipe."""
    from keystand.drivers.display.hal import PanelGpioError, PanelHal, Wiring

    pi_with_stand_in_lgpio("unused")
    monkeypatch.delitem(sys.modules, "lgpio")
    monkeypatch.syspath_prepend(str(stand_in_file["lib"]))
    monkeypatch.setenv("LG_WD", str(stand_in_file["shared"]))
    with pytest.raises(PanelGpioError) as caught:
        PanelHal("A", "epd2in7_V2", Wiring(rst=17, dc=25, busy=24), spi=None)  # type: ignore[arg-type]
    assert caught.value.trouble is GpioTrouble.NO_PIPE
    assert f"cannot make its notification pipe in {stand_in_file['shared']}" in str(caught.value)
    assert "running" not in str(caught.value) and "'.[pi]'" not in str(caught.value)


def test_the_command_exits_6_in_one_line_without_a_traceback(
    stand_in_file: dict[str, Path], tmp_path: Path
) -> None:
    """`keystand run --profile minimal` in a process of its own, as the unit runs
    it (a Pi's revision given, its gpiochip missing, lgpio the stand-in)."""
    import json
    import subprocess

    prelude = (
        "import sys, gpiozero.pins.local as local, keystand.drivers.gpio as gpio\n"
        "local.get_pi_revision = lambda: 0xA020D3\n"
        "gpio.chips = lambda: []\n"
        "from keystand.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(stand_in_file["lib"]),
        "LG_WD": str(stand_in_file["shared"]),
    }
    env.pop("GPIOZERO_PIN_FACTORY", None)  # keystand picks lgpio, as the unit does
    done = subprocess.run(
        [sys.executable, "-c", prelude, "run", "--profile", "minimal", "--state-dir", "state"],
        cwd=stand_in_file["shared"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == EXIT_NO_HARDWARE, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("keystand run: seat A (epd2in7_V2): cannot claim GPIO17 for RST: ")
    assert "no GPIO chip (/dev/gpiochip0 is missing)" in line
    private = Path(json.loads(stand_in_file["log"].read_text())["LG_WD"])
    assert private.parent != stand_in_file["shared"] and not private.exists()


def test_the_session_picks_lgpio_unless_told_otherwise() -> None:
    env: dict[str, str] = {}
    with gpio.lgpio_session(env):
        assert env["GPIOZERO_PIN_FACTORY"] == "lgpio"
    assert env == {}
    env = {"GPIOZERO_PIN_FACTORY": "mock"}
    with gpio.lgpio_session(env):
        assert env["GPIOZERO_PIN_FACTORY"] == "mock"
    assert env == {"GPIOZERO_PIN_FACTORY": "mock"}


def test_no_temporary_folder_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full or read-only temporary folder must not stop a run that needs no GPIO."""

    def refuse(**kwargs: object) -> str:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr("tempfile.mkdtemp", refuse)  # gpio imports it at the claim
    env = {"LG_WD": "/run/keystand"}
    with gpio.lgpio_workdir(env) as folder:
        assert folder is None and env == {"LG_WD": "/run/keystand"}


def test_a_gpiozero_fallback_never_asks_to_install_lgpio_when_it_is_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpiozero.exc import BadPinFactory

    monkeypatch.setattr(gpio, "has_lgpio", lambda: True)
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)
    failed = BadPinFactory("Unable to load any default pin factory!")
    missing = diagnose(failed, [])
    refused = diagnose(failed, ["/dev/gpiochip0"])
    assert missing is not None and missing.trouble is GpioTrouble.NO_CHIP
    assert refused is not None and refused.trouble is GpioTrouble.NO_PERMISSION
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: True)
    other = diagnose(failed, ["/dev/gpiochip0"])
    assert other is not None and "GPIOZERO_PIN_FACTORY=lgpio" in other.detail
    for found in (missing, refused, other):
        assert "'.[pi]'" not in found.detail and "running" not in found.detail
    monkeypatch.setattr(gpio, "has_lgpio", lambda: False)
    absent = diagnose(failed, [])
    assert absent is not None and absent.detail.endswith(gpio.INSTALL_HINT)


def test_an_lgpio_that_will_not_load_is_not_called_missing(monkeypatch) -> None:
    monkeypatch.setattr(gpio, "has_lgpio", lambda: True)
    broken = ImportError("/lib/libc.so.6: version `GLIBC_2.34' not found", name="_lgpio")
    found = diagnose(broken, [])
    assert found is not None and found.trouble is GpioTrouble.NO_BACKEND
    assert "installed but does not load" in found.detail and "'.[pi]'" not in found.detail
    absent = diagnose(ModuleNotFoundError("No module named 'lgpio'", name="lgpio"), [])
    assert absent is not None and "'.[pi]'" in absent.detail


@pytest.mark.parametrize(
    ("refuse", "chips", "says"),
    [
        ("can not open gpiochip", [], "no GPIO chip (/dev/gpiochip0 is missing)"),
        ("can not open gpiochip", ["/dev/gpiochip0"], "/dev/gpiochip0: permission denied"),
        ("GPIO busy", ["/dev/gpiochip0"], "(is keystand already running? sudo systemctl stop"),
    ],
)
def test_doctors_panel_line_says_what_lgpio_found(
    pi_with_stand_in_lgpio, monkeypatch, refuse: str, chips: list[str], says: str
) -> None:
    """doctor's own panel maker over gpiozero's lgpio factory: lgpio is there, so
    never "install it"; "stop the service" only for a line that is busy."""
    from keystand import doctor, profile

    pi_with_stand_in_lgpio(refuse)
    monkeypatch.setattr(gpio, "chips", lambda: chips)
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: False)
    panel = profile.load("minimal").panels["A"]
    check = doctor._panel(doctor.Machine(), "A", panel, refresh=False)
    assert not check.ok and says in check.detail
    assert "'.[pi]'" not in check.detail
    assert ("running" in check.detail) is (refuse == "GPIO busy")


def test_a_chip_that_opens_but_refuses_the_line_says_what_lgpio_said(monkeypatch) -> None:
    """ "GPIO operation not permitted" on a chip the user may open: the line is
    beyond the chip's or reserved (the wrong chip opened), not a permission to fix."""
    monkeypatch.setattr(gpio.os, "access", lambda path, mode: True)
    found = diagnose(lgpio_error("GPIO operation not permitted"), ["/dev/gpiochip0"])
    assert found is not None and found.chip == "/dev/gpiochip0"
    assert "GPIO operation not permitted" in found.detail and "usermod" not in found.detail
    in_use = diagnose(lgpio_error("GPIO already in use"), ["/dev/gpiochip0"])
    assert in_use is not None and in_use.trouble is GpioTrouble.BUSY


def test_no_gpio_library_and_no_chip_points_off_a_pi_to_emulation(monkeypatch) -> None:
    """`keystand run --profile minimal` on a desktop: installing lgpio would only
    lead to "not a Raspberry Pi", so the line names --emulate first."""
    monkeypatch.setattr(gpio, "has_lgpio", lambda: False)
    missing = ModuleNotFoundError("No module named 'lgpio'", name="lgpio")
    desktop, pi = diagnose(missing, []), diagnose(missing, ["/dev/gpiochip0"])
    assert desktop is not None and pi is not None
    assert "off a Pi, --emulate DIR runs the real drivers" in desktop.detail
    assert desktop.detail.endswith(f"on a Pi, {gpio.INSTALL_HINT}")
    assert pi.detail == f"no GPIO library (No module named 'lgpio'): {gpio.INSTALL_HINT}"
