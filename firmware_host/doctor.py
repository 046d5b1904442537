"""`keystand doctor [--profile P] [--config PATH] [--refresh]`: is this Pi ready
for this build (the profile given, else the settings file's, else minimal)?

One line per check, each saying what it found or what to do about it:
the profile (with its pin plan), the vendor's panel package, on a Pi the Python
modules of `keystand[pi]`, the group memberships, the GPIO chip, the SPI devices
the panels use, the I2C bus and each MPR121 on it, the serial grid's port, and
each panel (initialised, BUSY answering; with --refresh a full and a partial
refresh, each timed against its model's figure).
Exit 0 only when every check passes. Off a Pi it says so and checks the profile
and the package; a build that needs no hardware (simulated panels, no wired
input) passes there.

Everything it touches comes through `Machine`, so a test gives it a fake /dev
tree, groups and device openers, and the emulated panels.
"""

from __future__ import annotations

import argparse
import errno
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from keystand.drivers import PI_INSTALL

from . import panel_models, pins
from . import profile as profiles
from .inputkinds import Check

if TYPE_CHECKING:
    from keystand.drivers.display import Panel as PanelDriver

    from .config import Config

EXIT_FAILED = 1
DEFAULT_PROFILE = "minimal"
SERVICE_HINT = "is keystand running? stop it first: sudo systemctl stop keystand"
PI_EXTRA = PI_INSTALL
SPI_FIX = (
    "enable SPI: sudo raspi-config nonint do_spi 0 (or dtparam=spi=on in "
    "/boot/firmware/config.txt), then reboot"
)


def _open_device(path: Path) -> None:
    """Open a device read-write and close it: it exists and we may use it."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    os.close(fd)


def _open_i2c(path: Path) -> Any:
    from smbus2 import SMBus  # only on a Pi with an I2C build

    return SMBus(str(path))


def _groups() -> set[str]:
    import grp

    names = set()
    for gid in {*os.getgroups(), os.getegid()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            continue
    return names


def _user() -> str:
    import getpass

    return getpass.getuser()


def _has_module(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _vendor_file(model: str) -> object:
    """The whole check, never a remembered one: doctor is what a person runs when
    something looks wrong."""
    from keystand.drivers.display.waveshare import check_vendor_file

    return check_vendor_file(model)


def _make_panel(seat: str, panel: profiles.Panel) -> PanelDriver:
    import warnings

    from keystand.drivers import factory

    with warnings.catch_warnings():  # gpiozero's back-end fallbacks: the check's line says
        warnings.simplefilter("ignore")
        return factory.make_panel(
            "waveshare",
            panel.model,
            rotation=panel.rotation,
            seat=seat,
            wiring=wiring(panel),
            busy_timeout=panel.busy_timeout or None,
            reset_wait=panel.reset_wait or None,
            vendor_reset=panel.vendor_reset,
        )


def wiring(panel: profiles.Panel) -> dict[str, Any]:
    """A profile's panel lines as the driver factory takes them."""
    return {
        "rst": panel.rst,
        "dc": panel.dc,
        "busy": panel.busy,
        "pwr": None if panel.pwr < 0 else panel.pwr,
        "spi_device": panel.spi_device,
    }


@dataclass
class Machine:
    """What the doctor looks at: this machine by default; a test gives a fake
    root (its /proc and /dev), groups and openers, and emulated panels."""

    root: Path = Path("/")
    user: Callable[[], str] = _user
    uid: Callable[[], int] = os.geteuid
    groups: Callable[[], set[str]] = _groups
    open_device: Callable[[Path], None] = _open_device
    open_i2c: Callable[[Path], Any] = _open_i2c
    has_module: Callable[[str], bool] = _has_module
    vendor_file: Callable[[str], object] = _vendor_file
    make_panel: Callable[[str, profiles.Panel], PanelDriver] = _make_panel
    clock: Callable[[], float] = time.monotonic  # times --refresh's two refreshes
    models: tuple[str, ...] = panel_models.buildable("waveshare")
    on_pi: bool = True  # False once model() said no: a missing device is then no surprise

    def path(self, device: str) -> Path:
        """An absolute device path under this machine's root."""
        return self.root / device.lstrip("/")

    def model(self) -> str | None:
        """The board's model string, None when this is not a Raspberry Pi."""
        for where in ("proc/device-tree/model", "sys/firmware/devicetree/base/model"):
            try:
                text = (self.root / where).read_bytes().rstrip(b"\0").decode("utf-8", "replace")
            except OSError:
                continue
            return text if "Raspberry Pi" in text else None
        return None


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help="check this Pi for a build: profile, pins, SPI, I2C, serial, groups, panels",
        description="Check, one line each, what a build needs on this Pi, and say what to "
        "fix. Exit 0 only when every check passes.",
    )
    p.add_argument(
        "--profile",
        help=f"an installed profile ({', '.join(sorted(profiles.shipped()))}) or a profile "
        f"file's path (default: the settings file's, else {DEFAULT_PROFILE})",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="the settings file naming the profile "
        "(default: /etc/keystand/keystand.toml if it exists)",
    )
    p.add_argument(
        "--refresh",
        action="store_true",
        help="also time a full and a partial refresh of each panel against its model's "
        "figure (what it shows is lost)",
    )


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import config

    settings = config.load(config.find(args.config))  # as `keystand run` finds it
    name = profile_name(args.profile, settings)
    return report(diagnose(name, Machine(), refresh=args.refresh, settings=settings), out)


def profile_name(given: str | None, settings: Config) -> str:
    """The profile to check: the one given, else the one the settings file
    names, else the default."""
    named: str | None = settings.get("service", "profile")
    return given or named or DEFAULT_PROFILE


def report(checks: Iterator[Check], out: TextIO) -> int:
    failed = 0
    for check in checks:
        failed += not check.ok
        print(check, file=out, flush=True)
    return EXIT_FAILED if failed else 0


def diagnose(
    name: str, machine: Machine, *, refresh: bool = False, settings: Config | None = None
) -> Iterator[Check]:
    """Each check's line, in order; later checks need the profile (with the
    settings file's [panels] keys over its own, as `keystand run` has it)."""
    profile: profiles.Profile | None = None
    try:
        profile = profiles.load(name)
        if settings is not None:
            profile = settings.onto(profile)
        profiles.check_playable(profile)  # `keystand run` refuses it too
    except profiles.ProfileError as e:
        yield Check("profile", False, str(e))
    else:
        yield Check("profile", True, f"{profile.source}: {_plan(profile)}")
    if profile is None or profile.stand.driver == "waveshare":
        yield _vendor(machine)
    if profile is None:
        return
    board = machine.model()
    needs_pi = bool(list(pins.uses(profile))) or profile.stand.driver != "sim"
    if board is None:
        yield Check(
            "machine",
            not needs_pi,
            "not a Raspberry Pi: no pins or panels to claim here (on a desktop, "
            "`make sim` runs the stand; --emulate DIR runs this profile's drivers)"
            if needs_pi
            else "not a Raspberry Pi; this profile needs none",
        )
        if needs_pi:  # the devices all the same, one line each: what is missing
            yield from _devices(profile, replace(machine, on_pi=False), needs_pi)
        return
    yield Check("machine", True, board)
    yield from _modules(profile, machine)
    yield _groups_check(profile, machine)
    yield from _devices(profile, machine, needs_pi)
    if profile.stand.driver == "waveshare":
        for seat, panel in profile.panels.items():
            yield _panel(machine, seat, panel, refresh)


def _devices(profile: profiles.Profile, machine: Machine, needs_pi: bool) -> Iterator[Check]:
    if needs_pi:
        yield _gpiochip(machine)
    if profile.stand.driver == "waveshare":
        for device in sorted({p.spi_device for p in profile.panels.values()}):
            seats = [s for s, p in profile.panels.items() if p.spi_device == device]
            yield _device(machine, f"/dev/spidev0.{device}", f"seat {', '.join(seats)}", SPI_FIX)
    probe = _Probe(machine)
    for kind, settings in profile.input.wired():
        yield from kind.doctor(settings, probe)


class _Probe:
    """What an input kind's checks ask of the machine (inputkinds.Probe)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.on_pi = machine.on_pi

    def device(self, device: str, what: str, missing_fix: str) -> Check:
        return _device(self.machine, device, what, missing_fix)

    def path(self, device: str) -> Path:
        return self.machine.path(device)

    def open_i2c(self, path: Path) -> Any:
        return self.machine.open_i2c(path)

    def open_failed(self, error: OSError) -> str:
        return _open_failed(error, self.machine)


def _plan(profile: profiles.Profile) -> str:
    plan = pins.check(profile)
    if not plan:
        return "loads; no GPIO to plan"
    return f"loads; pin plan ok ({len(plan)} GPIOs, none twice, buses kept free)"


def _vendor(machine: Machine) -> Check:
    found: list[str] = []
    for model in machine.models:
        try:
            machine.vendor_file(model)
        except (ImportError, OSError, ValueError) as e:
            return Check("vendor package", False, str(e))
        found.append(model)
    return Check("vendor package", True, f"waveshare-epaper model files {', '.join(found)}")


def _needed_modules(profile: profiles.Profile) -> list[tuple[str, str]]:
    """The panels' modules, then each input kind's, each once."""
    needed: dict[str, str] = {}
    if profile.stand.driver == "waveshare":
        needed["spidev"] = "the panels' SPI"
        needed["lgpio"] = "gpiozero's pins on a Pi"
    for kind, settings in profile.input.wired():
        for module, why in kind.modules(settings):
            needed.setdefault(module, why)
    return list(needed.items())


def _modules(profile: profiles.Profile, machine: Machine) -> Iterator[Check]:
    for module, why in _needed_modules(profile):
        if machine.has_module(module):
            # Found, not loaded: loading lgpio would make its pipe and move the
            # process; a wheel that will not load is named by the claim's line.
            yield Check(f"module {module}", True, f"installed ({why})")
        else:
            yield Check(f"module {module}", False, f"missing ({why}): {PI_EXTRA}")


def _needed_groups(profile: profiles.Profile) -> list[str]:
    """gpio (the panels' or an input's lines) and spi first, then each input
    kind's groups, each once."""
    kinds = [g for kind, settings in profile.input.wired() for g in kind.groups(settings)]
    spi = pins.needs_spi(profile)
    first = [*(["gpio"] if spi or "gpio" in kinds else []), *(["spi"] if spi else [])]
    return list(dict.fromkeys([*first, *kinds]))


def _groups_check(profile: profiles.Profile, machine: Machine) -> Check:
    needed = _needed_groups(profile)
    user = machine.user()
    if machine.uid() == 0:
        return Check("groups", True, "running as root: no group needed")
    if not needed:
        return Check("groups", True, "no device group needed")
    missing = [g for g in needed if g not in machine.groups()]
    if missing:
        return Check(
            "groups",
            False,
            f"{user} is not in {', '.join(missing)}: sudo usermod -aG {','.join(missing)} "
            f"{user}, then log out and in",
        )
    return Check("groups", True, f"{user} is in {', '.join(needed)}")


def _gpiochip(machine: Machine) -> Check:
    # gpiozero's lgpio back end opens gpiochip4 when there is one (a Pi 5), else 0.
    chip = "/dev/gpiochip4" if machine.path("/dev/gpiochip4").exists() else "/dev/gpiochip0"
    return _device(machine, chip, "GPIO", "no GPIO character device: is this Raspberry Pi OS?")


def _device(machine: Machine, device: str, what: str, missing_fix: str) -> Check:
    name = f"{device} ({what})"
    path = machine.path(device)
    if not path.exists():
        if not machine.on_pi:  # raspi-config is no fix on a desktop or in a container
            return Check(name, False, f"missing: {_none_here(device)} (not a Raspberry Pi)")
        return Check(name, False, f"missing: {missing_fix}")
    try:
        machine.open_device(path)
    except OSError as e:
        return Check(name, False, _open_failed(e, machine))
    return Check(name, True, "present, opens read-write")


def _none_here(device: str) -> str:
    name = Path(device).name
    for prefix, kind in (("gpiochip", "GPIO chip"), ("spidev", "SPI"), ("i2c-", "I2C bus")):
        if name.startswith(prefix):
            return f"no {kind} on this machine"
    return "no such device on this machine"


def _open_failed(e: OSError, machine: Machine) -> str:
    if e.errno in (errno.EACCES, errno.EPERM):
        return (
            f"permission denied: is {machine.user()} in its group? (the groups line says; "
            "log out and in after usermod)"
        )
    if e.errno == errno.EBUSY:
        return f"busy: {SERVICE_HINT}"
    return f"cannot open: {e.strerror or e}"


def _panel(machine: Machine, seat: str, panel: profiles.Panel, refresh: bool) -> Check:
    from keystand.drivers.display import PanelError

    name = (
        f"panel {seat} ({panel.model}, CE{panel.spi_device}, BUSY GPIO{panel.busy}{_reset(panel)})"
    )
    try:
        driver = machine.make_panel(seat, panel)
    except PanelError as e:  # a GPIO error already says what it found and the fix
        return Check(name, False, str(e))
    except Exception as e:  # no pin factory, no spidev: what the modules lines say
        return Check(name, False, f"cannot start its driver: {e}")
    try:
        answered = getattr(driver, "probe", lambda: False)()
        if refresh:
            return _timed_refreshes(machine, name, driver, panel)
        if answered:
            return Check(name, True, "initialised; BUSY answered")
        return Check(
            name,
            True,
            "initialised (this model's init gives BUSY nothing to answer: --refresh proves it)",
        )
    except PanelError as e:
        return Check(name, False, f"{e}; {_fallback(panel)}" if refresh else str(e))
    finally:
        driver.close()


def _reset(panel: profiles.Panel) -> str:
    """The reset timing, named where it is not keystand's default: the check of a
    fallback the settings file sets."""
    if panel.vendor_reset:
        return ", the vendor's reset waits"
    if panel.reset_wait:
        return f", reset wait {panel.reset_wait * 1000:g} ms"
    return ""


SLOW = 2.0  # a refresh this many times its model's figure (and a second more) is wrong
FALLBACK = (
    "if a panel stays blank, stalls or runs slow with keystand's short reset, set "
    'vendor_reset = true under [panels] in the settings file (README "Panels")'
)


def _fallback(panel: profiles.Panel) -> str:
    if panel.vendor_reset:  # already the fallback: the reset is not the trouble
        return "it has the vendor's reset waits already: check its cable and wiring"
    return FALLBACK


def _timed_refreshes(
    machine: Machine, name: str, driver: PanelDriver, panel: profiles.Panel
) -> Check:
    """A blank full refresh, then a partial (a black bar across the top), each
    timed against the model's figure (its record's, the vendor's waits included): the
    first real build's check of the reset timing keystand uses."""
    from PIL import Image, ImageDraw

    from keystand.drivers.display import Refresh

    picture = Image.new("1", driver.size, 1)
    took: dict[Refresh, float] = {}
    for kind in (Refresh.FULL, Refresh.PARTIAL):
        start = machine.clock()
        driver.display(picture, kind)
        took[kind] = machine.clock() - start
        ImageDraw.Draw(picture).rectangle((0, 0, driver.size[0], driver.size[1] // 8), fill=0)
    driver.sleep()
    timing = panel_models.model(panel.model).timing
    said = [
        f"{kind.value} refresh {took[kind]:.2f} s (its figure {timing.seconds(kind):.1f} s)"
        for kind in took
    ]
    slow = [k for k, t in took.items() if t > SLOW * timing.seconds(k) + 1.0]
    if slow:
        return Check(name, False, f"{'; '.join(said)}: too slow; {_fallback(panel)}")
    return Check(name, True, f"initialised; {'; '.join(said)}; BUSY answered")


__all__ = ["Check", "Machine", "add_parser", "diagnose", "report", "run"]
