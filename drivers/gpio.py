"""What a failed GPIO claim means, in one line a person can act on.

A claim goes through gpiozero to its back end, and each layer has its own
errors: gpiozero's (`PinUnknownPi` off a Pi, `BadPinFactory`, `GPIOPinInUse`),
the OS's, and lgpio's own `lgpio.error` (for a gpiochip that is missing or
refused, a line another process holds), which is neither a gpiozero error nor
an OSError. `diagnose` sorts them by what fixes them, naming the chip or pin.
Nothing here imports gpiozero or lgpio: errors are recognised by their types'
names, so a desktop without either can still explain them.

lgpio also has two habits a caller must plan for: on import it makes its
notification pipe `.lgd-nfyN` in $LG_WD and leaves it there, and it changes
the process's working directory to $LG_WD (lgUtil.c, lguGetWorkDir).
`lgpio_session` gives each run a folder of its own; `keep_cwd` undoes the
directory change around a claim.
"""

from __future__ import annotations

import contextlib
import enum
import glob
import importlib.util
import os
import stat
import sys
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

from keystand.errors import KeystandError

from . import PI_INSTALL

INSTALL_HINT = f"{PI_INSTALL} brings lgpio"


class GpioTrouble(enum.Enum):
    NOT_A_PI = "not_a_pi"  # gpiozero found no Raspberry Pi revision
    NO_BACKEND = "no_backend"  # no pin library at all (lgpio not installed)
    NO_CHIP = "no_chip"  # /dev/gpiochipN is missing
    NO_PERMISSION = "no_permission"  # the chip is there, its permissions refuse us
    NO_PIPE = "no_pipe"  # lgpio cannot make its notification pipe in $LG_WD
    BUSY = "busy"  # another process (or device) holds the line
    OTHER = "other"

    @property
    def lasting(self) -> bool:
        """True when starting again cannot help: the machine or its settings must
        change first (a chip that is missing or refused stays so until someone
        adds it, its group or the unit's DeviceAllow=). A line another program
        holds is freed when that program stops; an unknown error gets the benefit
        of the doubt (systemd's StartLimitBurst= still ends the retries)."""
        return self not in (GpioTrouble.BUSY, GpioTrouble.OTHER)


@dataclass(frozen=True)
class GpioDiagnosis:
    trouble: GpioTrouble
    detail: str  # what is wrong and the fix, without the pin (the caller names it)
    chip: str | None = None  # the gpiochip device it is about, when one is known


class GpioClaimError(KeystandError, OSError):
    """A GPIO line that cannot be had. Carries the pin, the chip device when
    one is known and `trouble`, which says what fixes it; the drivers' own
    errors (a panel's, a key's) add their family to it."""

    def __init__(
        self, message: str, *, pin: int, trouble: GpioTrouble, chip: str | None = None
    ) -> None:
        super().__init__(message)
        self.pin, self.trouble, self.chip = pin, trouble, chip


def _kind(error: BaseException) -> tuple[str, str]:
    cls = type(error)
    return cls.__module__.split(".", 1)[0], cls.__name__


def chips() -> list[str]:
    """The gpiochip devices this machine has."""
    return sorted(glob.glob("/dev/gpiochip*"))


def has_lgpio() -> bool:
    """lgpio is loaded or could be, without loading it (that would make its pipe)."""
    if "lgpio" in sys.modules:
        return True
    try:
        return importlib.util.find_spec("lgpio") is not None
    except (ImportError, ValueError):
        return False


def _chip_trouble(chip_paths: list[str], said: str = "") -> GpioDiagnosis:
    if not chip_paths:
        return GpioDiagnosis(
            GpioTrouble.NO_CHIP,
            "no GPIO chip (/dev/gpiochip0 is missing): this is not a Raspberry Pi, or the "
            "service cannot see the device",
            "/dev/gpiochip0",
        )
    refused = [p for p in chip_paths if not os.access(p, os.R_OK | os.W_OK)]
    if refused:
        return GpioDiagnosis(
            GpioTrouble.NO_PERMISSION,
            f"{refused[0]}: permission denied (add the user to group gpio: "
            "sudo usermod -aG gpio $USER, then log in again)",
            refused[0],
        )
    return GpioDiagnosis(
        GpioTrouble.NO_CHIP,
        f"cannot use the GPIO chip ({', '.join(chip_paths)}{': ' + said if said else ''}): "
        "is it a Raspberry Pi's?",
        chip_paths[0],
    )


def _lgpio_trouble(text: str, chip_paths: list[str]) -> GpioDiagnosis:
    if "busy" in text.lower() or "in use" in text:
        return GpioDiagnosis(
            GpioTrouble.BUSY,
            "the line is busy: another program holds it (is keystand already running? "
            "sudo systemctl stop keystand)",
        )
    if "gpiochip" in text or "permi" in text:
        return _chip_trouble(chip_paths, text)
    return GpioDiagnosis(GpioTrouble.OTHER, f"lgpio: {text}")


def _gpiozero_trouble(name: str, text: str, chip_paths: list[str]) -> GpioDiagnosis:
    if name == "PinUnknownPi":
        return GpioDiagnosis(
            GpioTrouble.NOT_A_PI,
            f"not a Raspberry Pi ({text}); off a Pi, --emulate DIR runs the real "
            "drivers on emulated pins",
        )
    if name in ("BadPinFactory", "PinFactoryFallback"):
        if not has_lgpio():
            return _no_backend(text, chip_paths)
        # lgpio is there but refused: gpiozero's fallbacks hid its own error.
        found = _chip_trouble(chip_paths)
        if found.trouble is GpioTrouble.NO_PERMISSION or not chip_paths:
            return found
        return GpioDiagnosis(
            GpioTrouble.OTHER,
            f"lgpio is installed but would not start ({text}); "
            "GPIOZERO_PIN_FACTORY=lgpio shows its own error",
        )
    if name == "GPIOPinInUse":
        return GpioDiagnosis(GpioTrouble.BUSY, f"already in use in this program ({text})")
    return GpioDiagnosis(GpioTrouble.OTHER, f"{name}: {text}")


def _no_backend(said: str, chip_paths: list[str]) -> GpioDiagnosis:
    """No GPIO library: where there is no GPIO chip either, this is most likely a
    desktop, where installing lgpio would only lead to "not a Raspberry Pi"."""
    off_a_pi = (
        "; no GPIO chip either: off a Pi, --emulate DIR runs the real drivers on emulated "
        "pins; on a Pi, "
        if not chip_paths
        else ": "
    )
    return GpioDiagnosis(
        GpioTrouble.NO_BACKEND, f"no GPIO library ({said}){off_a_pi}{INSTALL_HINT}"
    )


def _import_trouble(error: ImportError, chip_paths: list[str]) -> GpioDiagnosis:
    if error.name == "lgpio" or not has_lgpio():
        return _no_backend(str(error), chip_paths)
    # Installed, but its compiled part will not load here (a wheel for a newer
    # glibc or another Python): installing "keystand[pi]" again changes nothing.
    return GpioDiagnosis(
        GpioTrouble.NO_BACKEND,
        f"lgpio is installed but does not load ({error}): reinstall it for this "
        "system (pip install --force-reinstall lgpio)",
    )


def _os_trouble(error: OSError, chip_paths: list[str]) -> GpioDiagnosis:
    if ".lgd-nfy" in str(error.filename or ""):
        # lgpio's C side could not make the pipe; its Python side then opens
        # ".lgd-nfy-3" (the negative error code in the name).
        where = os.environ.get("LG_WD") or os.getcwd()
        return GpioDiagnosis(
            GpioTrouble.NO_PIPE,
            f"lgpio cannot make its notification pipe in {where} (LG_WD): give it a "
            "writable folder of its own",
        )
    if isinstance(error, PermissionError | FileNotFoundError):
        return _chip_trouble(chip_paths)
    return GpioDiagnosis(GpioTrouble.OTHER, error.strerror or str(error))


def diagnose(error: BaseException, chip_paths: list[str] | None = None) -> GpioDiagnosis | None:
    """What `error`, raised while claiming a GPIO line, means; None if it is not a
    GPIO error at all (a bug, which should keep its traceback)."""
    module, name = _kind(error)
    found = chips() if chip_paths is None else chip_paths
    if module == "lgpio":
        return _lgpio_trouble(str(error).strip("'\""), found)
    if module == "gpiozero":
        return _gpiozero_trouble(name, str(error), found)
    if isinstance(error, ImportError):
        return _import_trouble(error, found)
    if isinstance(error, OSError):
        return _os_trouble(error, found)
    return None


@contextlib.contextmanager
def keep_cwd() -> Iterator[None]:
    """Undo lgpio's change of working directory: it moves the process into
    $LG_WD when it loads (inside gpiozero's first claim), and a relative path
    used afterwards (--state-dir, --shown-log) would land in lgpio's folder."""
    try:
        here: str | None = os.getcwd()
    except OSError:  # already in a removed folder: nothing to go back to
        here = None
    try:
        yield
    finally:
        if here is not None:
            with contextlib.suppress(OSError):
                os.chdir(here)


def _private(folder: str) -> bool:
    try:
        st = os.stat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _restore(env: MutableMapping[str, str], name: str, value: str | None) -> None:
    if value is None:
        env.pop(name, None)
    else:
        env[name] = value


@contextlib.contextmanager
def lgpio_workdir(env: MutableMapping[str, str] = os.environ) -> Iterator[str | None]:
    """A fresh folder of our own for lgpio's notification pipes, removed after.

    lgpio makes `.lgd-nfyN` in $LG_WD (else the working directory) and never
    removes it; a pipe another user left in a shared folder such as /tmp makes
    the next claim fail ("xCreatePipe: Can't set permissions"). The folder is
    made inside $LG_WD when that is already ours alone (the unit's
    RuntimeDirectory), else in the temporary folder, mode 0700 either way.
    Set before lgpio is loaded: it reads LG_WD once. Yields None, changing
    nothing, when no folder can be made (a full or read-only temporary folder):
    a run that needs no GPIO must not fail for it, and one that does says why
    at its claim.
    """
    import shutil  # here, not at import: with tempfile they load bz2 and lzma
    import tempfile

    given = env.get("LG_WD")
    base = given if given and _private(given) else None
    try:
        folder = os.path.abspath(tempfile.mkdtemp(prefix="keystand-lgpio-", dir=base))
    except OSError:
        yield None
        return
    env["LG_WD"] = folder
    try:
        yield folder
    finally:
        _restore(env, "LG_WD", given)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def lgpio_session(env: MutableMapping[str, str] = os.environ) -> Iterator[str | None]:
    """What a command that may claim real pins runs in: its own lgpio folder
    (`lgpio_workdir`), and lgpio as gpiozero's back end unless
    GPIOZERO_PIN_FACTORY names another, as under the unit. Left to itself,
    gpiozero tries each library it knows and, when all fail, says only
    "Unable to load any default pin factory!": lgpio's own error (the chip
    missing or refused, a busy line) would be lost, and doctor would test
    another back end than the service uses."""
    factory = env.get("GPIOZERO_PIN_FACTORY")
    env.setdefault("GPIOZERO_PIN_FACTORY", "lgpio")
    try:
        with lgpio_workdir(env) as folder:
            yield folder
    finally:
        _restore(env, "GPIOZERO_PIN_FACTORY", factory)


__all__ = [
    "GpioClaimError",
    "GpioDiagnosis",
    "GpioTrouble",
    "chips",
    "diagnose",
    "has_lgpio",
    "keep_cwd",
    "lgpio_session",
    "lgpio_workdir",
]
