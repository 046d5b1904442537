"""What a failed GPIO claim means, in one line a person can act on.

A claim goes through gpiozero to its back end, and each layer has its own
errors: gpiozero's (`PinUnknownPi` off a Pi, `BadPinFactory`, `GPIOPinInUse`),
the OS's, and lgpio's own `lgpio.error` (for a gpiochip that is missing or
refused, a line another process holds), which is neither a gpiozero error nor
an OSError. `diagnose` sorts them by what fixes them, naming the chip or pin.
Nothing here imports gpiozero or lgpio: errors are recognised by their types'
names, so a desktop without either can still explain them.
"""

from __future__ import annotations

import contextlib
import enum
import glob
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass


class GpioTrouble(enum.Enum):
    NOT_A_PI = "not_a_pi"  # gpiozero found no Raspberry Pi revision
    NO_BACKEND = "no_backend"  # no pin library at all (lgpio not installed)
    NO_CHIP = "no_chip"  # /dev/gpiochipN is missing
    NO_PERMISSION = "no_permission"  # the chip is there, its permissions refuse us
    BUSY = "busy"  # another process (or device) holds the line
    OTHER = "other"

    @property
    def lasting(self) -> bool:
        """True when starting again cannot help: the machine must change first. A
        busy line is freed when its holder stops; a refused chip may only be
        waiting for udev to give it the gpio group early in boot."""
        return self in (GpioTrouble.NOT_A_PI, GpioTrouble.NO_BACKEND, GpioTrouble.NO_CHIP)


@dataclass(frozen=True)
class GpioDiagnosis:
    trouble: GpioTrouble
    detail: str  # what is wrong and the fix, without the pin (the caller names it)


def _kind(error: BaseException) -> tuple[str, str]:
    cls = type(error)
    return cls.__module__.split(".", 1)[0], cls.__name__


def chips() -> list[str]:
    """The gpiochip devices this machine has."""
    return sorted(glob.glob("/dev/gpiochip*"))


def _chip_trouble(chip_paths: list[str]) -> GpioDiagnosis:
    if not chip_paths:
        return GpioDiagnosis(
            GpioTrouble.NO_CHIP,
            "no GPIO chip (/dev/gpiochip0 is missing): this is not a Raspberry Pi, or the "
            "service cannot see the device",
        )
    refused = [p for p in chip_paths if not os.access(p, os.R_OK | os.W_OK)]
    if refused:
        return GpioDiagnosis(
            GpioTrouble.NO_PERMISSION,
            f"{refused[0]}: permission denied (add the user to group gpio: "
            "sudo usermod -aG gpio $USER, then log in again)",
        )
    return GpioDiagnosis(
        GpioTrouble.NO_CHIP,
        f"cannot open the GPIO chip ({', '.join(chip_paths)}): is it a Raspberry Pi's?",
    )


def diagnose(error: BaseException, chip_paths: list[str] | None = None) -> GpioDiagnosis | None:
    """What `error`, raised while claiming a GPIO line, means; None if it is not a
    GPIO error at all (a bug, which should keep its traceback)."""
    module, name = _kind(error)
    text = str(error).strip("'\"")
    if module == "lgpio":
        found = chips() if chip_paths is None else chip_paths
        if "busy" in text.lower():
            return GpioDiagnosis(
                GpioTrouble.BUSY,
                "the line is busy: another program holds it (is keystand already running? "
                "sudo systemctl stop keystand)",
            )
        if "gpiochip" in text or "permi" in text:
            return _chip_trouble(found)
        return GpioDiagnosis(GpioTrouble.OTHER, f"lgpio: {text}")
    if module == "gpiozero":
        if name == "PinUnknownPi":
            return GpioDiagnosis(
                GpioTrouble.NOT_A_PI,
                f"not a Raspberry Pi ({text}); off a Pi, --emulate DIR runs the real "
                "drivers on emulated pins",
            )
        if name in ("BadPinFactory", "PinFactoryFallback"):
            return GpioDiagnosis(
                GpioTrouble.NO_BACKEND,
                f"no GPIO library ({text}): pip install 'keystand[pi]' brings lgpio",
            )
        if name == "GPIOPinInUse":
            return GpioDiagnosis(GpioTrouble.BUSY, f"already in use in this program ({text})")
        return GpioDiagnosis(GpioTrouble.OTHER, f"{name}: {text}")
    if isinstance(error, ImportError):
        return GpioDiagnosis(
            GpioTrouble.NO_BACKEND,
            f"no GPIO library ({error}): pip install 'keystand[pi]' brings lgpio",
        )
    if isinstance(error, OSError):
        found = chips() if chip_paths is None else chip_paths
        if isinstance(error, PermissionError | FileNotFoundError):
            return _chip_trouble(found)
        return GpioDiagnosis(GpioTrouble.OTHER, error.strerror or str(error))
    return None


def _private(folder: str) -> bool:
    try:
        st = os.stat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


@contextlib.contextmanager
def lgpio_workdir(env: MutableMapping[str, str] = os.environ) -> Iterator[str]:
    """A fresh folder of our own for lgpio's notification pipes, removed after.

    lgpio makes `.lgd-nfyN` in $LG_WD (else the working directory) and never
    removes it; a pipe another user left in a shared folder such as /tmp makes
    the next claim fail ("xCreatePipe: Can't set permissions"). The folder is
    made inside $LG_WD when that is already ours alone (the unit's
    RuntimeDirectory), else in the temporary folder, mode 0700 either way.
    Set before lgpio is loaded: it reads LG_WD once.
    """
    given = env.get("LG_WD")
    base = given if given and _private(given) else None
    folder = tempfile.mkdtemp(prefix="keystand-lgpio-", dir=base)
    env["LG_WD"] = folder
    try:
        yield folder
    finally:
        if given is None:
            env.pop("LG_WD", None)
        else:
            env["LG_WD"] = given
        shutil.rmtree(folder, ignore_errors=True)


__all__ = ["GpioDiagnosis", "GpioTrouble", "chips", "diagnose", "lgpio_workdir"]
