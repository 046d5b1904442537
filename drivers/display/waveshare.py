"""Real Waveshare panels: the vendor's model files, unmodified, one instance per panel.

PyPI's `waveshare-epaper` ships upstream's model files. Each panel runs its own
copy of its model module, executed from the installed file with that panel's
`PanelHal` bound as `epdconfig`: the vendor's own `epdconfig.py` (which probes
/proc/cpuinfo, loads .so files and claims fixed pins at import) never runs, and
two panels share no module state. Only the models whose record
(keystand.panel_models) names a vendor file and its recipe load.
"""

from __future__ import annotations

import builtins
import functools
import importlib.machinery
import json
import os
import sys
import time
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from PIL import Image

from keystand.panel_models import PANELS, Call, Recipe, refusal

from .. import PI_INSTALL
from .base import Panel, PanelError, Refresh
from .hal import PanelHal, SpidevBus, SpiDevice, Wiring

if TYPE_CHECKING:
    from gpiozero import Factory

VENDOR_DISTRIBUTION = "waveshare-epaper"
VENDOR_VERSION = "1.4.0"
VENDOR_DIR = "epaper/e-Paper/RaspberryPi_JetsonNano/python/lib/waveshare_epd"
INSTALL_HINT = (
    f"on the Pi: {PI_INSTALL}; on a desktop: "
    f"pip install --no-deps {VENDOR_DISTRIBUTION}=={VENDOR_VERSION}"
)


class VendorMissing(PanelError, ImportError):
    """The vendor package is absent, another version, or its model file was changed."""


# Each model's recipe (how keystand's refresh kinds map onto its vendor file's
# methods) is data in its record (keystand.panel_models).
RECIPES: dict[str, Recipe] = {m.name: m.vendor for m in PANELS.values() if m.vendor is not None}


@dataclass(frozen=True)
class VendorFile:
    """One vendor model file as installed, checked against the package's RECORD."""

    model: str
    path: Path
    version: str
    sha256: str


# Where a passed check is remembered: in the install itself (the venv), written
# by systemd/install.sh as root (the service cannot write there) or by any start
# that can. A start whose file still has the remembered size, times and inode
# skips importlib.metadata's RECORD, hashlib and base64 (about 70 ms on the Pi
# path here: issue 33); a changed or reinstalled file is checked again.
CHECKED = Path(sys.prefix) / "share" / "keystand" / "vendor-checked.json"


def _signature(path: Path) -> list[int]:
    found = path.stat()
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino]


def _remembered(model: str, checked: Path) -> VendorFile | None:
    """The check remembered for `model`, if its file has not changed since."""
    try:
        entry = json.loads(checked.read_text())[model]
        path = Path(entry["path"])
        if entry["version"] != VENDOR_VERSION or entry["signature"] != _signature(path):
            return None
        return VendorFile(model, path, entry["version"], entry["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember(found: VendorFile, checked: Path) -> None:
    """Keep a passed check for the next start; an install it cannot write (the
    service's read-only /opt) keeps nothing and checks again next time."""
    try:
        try:
            known = json.loads(checked.read_text())
        except (OSError, ValueError):
            known = {}
        if not isinstance(known, dict):
            known = {}
        known[found.model] = {
            "path": str(found.path),
            "version": found.version,
            "sha256": found.sha256,
            "signature": _signature(found.path),
        }
        checked.parent.mkdir(parents=True, exist_ok=True)
        spare = checked.with_name(f".{checked.name}.{os.getpid()}")
        spare.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
        os.replace(spare, checked)
    except OSError:
        pass


def vendor_file(model: str, *, checked: Path | None = None) -> VendorFile:
    """Find the installed model file; refuse another version or a changed file.
    A check passed before on the same file (`checked`, CHECKED unless given) is
    taken as it stands."""
    checked = CHECKED if checked is None else checked
    refused = refusal("waveshare", model)
    if refused is not None:
        raise ValueError(refused)
    found = _remembered(model, checked)
    if found is None:
        found = check_vendor_file(model)
        _remember(found, checked)
    return found


def check_vendor_file(model: str) -> VendorFile:
    """The whole check: the distribution's version, its RECORD's entry for the
    model file and the file's sha256 against it."""
    import base64
    import hashlib
    from importlib import metadata

    module = RECIPES[model].module

    try:
        dist = metadata.distribution(VENDOR_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise VendorMissing(f"{VENDOR_DISTRIBUTION} is not installed; {INSTALL_HINT}") from None
    if dist.version != VENDOR_VERSION:
        raise VendorMissing(
            f"{VENDOR_DISTRIBUTION} {dist.version} is installed; keystand is built and tested "
            f"against {VENDOR_VERSION}: {INSTALL_HINT}"
        )
    wanted = f"{VENDOR_DIR}/{module}.py"
    entry = next((f for f in dist.files or () if f.as_posix() == wanted), None)
    if entry is None:
        raise VendorMissing(f"{VENDOR_DISTRIBUTION} {dist.version} has no {wanted}")
    path = Path(str(entry.locate()))
    try:
        data = path.read_bytes()
    except OSError as error:
        raise VendorMissing(f"{path}: {error.strerror or error}; {INSTALL_HINT}") from error
    digest = hashlib.sha256(data)
    if entry.hash is not None and entry.hash.mode == "sha256":
        recorded = entry.hash.value
        found = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
        if found != recorded:
            raise VendorMissing(
                f"{path} is not the file {VENDOR_DISTRIBUTION} {dist.version} installed "
                f"(sha256 {found}, RECORD says {recorded}); keystand runs the vendor's files "
                f"unmodified: reinstall it"
            )
    return VendorFile(model, path, dist.version, digest.hexdigest())


def check_vendor_files() -> list[VendorFile]:
    """Every supported model's file checked and the checks remembered: what
    systemd/install.sh runs as root once the vendor's package is installed."""
    found = [check_vendor_file(model) for model in RECIPES]
    for one in found:
        _remember(one, CHECKED)
    return found


class _UnusedModule(types.ModuleType):
    """Stands in for a module a vendor file imports and never uses (RPi.GPIO)."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(
            f"{self.__name__}.{name}: keystand does not load {self.__name__}; the vendor file "
            f"imports it without using it, and pins go through the panel's HAL"
        )


def _vendor_builtins(model: str, epdconfig: object) -> dict[str, Any]:
    """Builtins whose `__import__` answers `from . import epdconfig` with this panel's
    HAL and `import RPi.GPIO` with a stand-in; every other import is the real one."""
    real_import = builtins.__import__
    rpi = types.ModuleType("RPi")
    rpi.GPIO = _UnusedModule("RPi.GPIO")  # type: ignore[attr-defined]
    package = types.SimpleNamespace(epdconfig=epdconfig)

    def vendor_import(
        name: str,
        globals_: dict[str, Any] | None = None,
        locals_: dict[str, Any] | None = None,
        fromlist: tuple[str, ...] | list[str] | None = (),
        level: int = 0,
    ) -> Any:
        if level == 1 and name == "" and tuple(fromlist or ()) == ("epdconfig",):
            return package
        if level == 0 and name in ("RPi", "RPi.GPIO"):
            return rpi
        if level != 0:
            raise ImportError(
                f"{model} imports {'.' * level}{name} {list(fromlist or ())}: keystand provides "
                f"only epdconfig to the vendor's model files"
            )
        return real_import(name, globals_, locals_, fromlist or (), level)

    return {**builtins.__dict__, "__import__": vendor_import}


@functools.cache
def _vendor_code(path: str, sha256: str) -> types.CodeType:
    """The model file's code, once per process (two seats of one model share it),
    through Python's own bytecode cache: the .pyc pip wrote at install is read,
    not the source compiled again, while the source is unchanged (`sha256` keys
    the cache on the file checked)."""
    name = Path(path).stem
    code = importlib.machinery.SourceFileLoader(name, path).get_code(name)
    if code is None:
        raise VendorMissing(f"{path}: no code in the vendor's model file")
    return code


def load_vendor_module(model: str, epdconfig: object, *, label: str = "") -> types.ModuleType:
    """Execute the vendor's model file as a new module bound to `epdconfig`.

    Each call gives an independent module (its own EPD class and tables)."""
    source = vendor_file(model)
    code = _vendor_code(str(source.path), source.sha256)
    name = f"{__package__}.vendor.{model}" + (f"[{label}]" if label else "")
    module = types.ModuleType(name, f"Waveshare's {model}.py, bound to {epdconfig!r}")
    module.__file__ = str(source.path)
    module.__dict__["__builtins__"] = _vendor_builtins(model, epdconfig)
    exec(code, module.__dict__)
    return module


def native_buffer(frame: Image.Image) -> bytearray:
    """The controller's RAM bytes for a native 1-bit frame: rows top to bottom, MSB
    leftmost, 1 white, each row padded to a whole byte. The same bytes the vendor's
    `getbuffer` makes (tests check it), without its per-pixel Python loop."""
    return bytearray(frame.convert("1").tobytes("raw", "1"))


def rolled(buffer: bytearray, row_bytes: int, rows: int) -> bytearray:
    """`buffer` turned down by `rows` rows (the last rows first): what a recipe's
    `roll_rows` hands the vendor so the glass shows the frame as drawn."""
    if not rows:
        return buffer
    cut = len(buffer) - rows * row_bytes
    return buffer[cut:] + buffer[:cut]


class VendorEPD(Protocol):
    """What `ByteRuns` uses of a vendor EPD instance, and the methods it replaces."""

    width: int
    height: int
    dc_pin: int
    cs_pin: int
    display: Callable[[bytes | bytearray], None]
    display_Fast: Callable[[bytes | bytearray], None]
    display_Base: Callable[[bytes | bytearray], None]
    display_Partial: Callable[[bytes | bytearray, int, int, int, int], None]
    send_data2: Callable[[bytes | bytearray | list[int]], None]

    def reset(self) -> None: ...
    def send_command(self, command: int) -> None: ...
    def send_data(self, data: int) -> None: ...
    def TurnOnDisplay(self) -> None: ...
    def TurnOnDisplay_Fast(self) -> None: ...
    def TurnOnDisplay_Partial(self) -> None: ...


class ByteRuns:
    """The frame methods of a model file that sends a frame one `send_data` call a
    byte (the 2.7" V2: 5,808 calls a frame, each four HAL calls), with the same
    commands, resets and waits in the same order and each run of frame bytes handed
    to the HAL in one call, as the other models' `send_data2` does. Only how the
    bytes are handed over differs: tests/test_waveshare.py compares the byte
    streams with the vendor's own methods', for every frame kind and window.
    """

    def __init__(self, epd: VendorEPD, hal: PanelHal) -> None:
        self.epd, self.hal = epd, hal

    def install(self) -> None:
        """Put these methods in place of the vendor's on its EPD instance."""
        epd = self.epd
        epd.display = lambda image: self.frame(image, (0x24,), epd.TurnOnDisplay)
        epd.display_Fast = lambda image: self.frame(image, (0x24,), epd.TurnOnDisplay_Fast)
        epd.display_Base = lambda image: self.frame(image, (0x24, 0x26), epd.TurnOnDisplay)
        epd.display_Partial = self.partial
        epd.send_data2 = self.send

    def send(self, data: bytes | bytearray | list[int]) -> None:
        """The vendor's `send_data`, for a run of bytes at once."""
        hal, epd = self.hal, self.epd
        hal.digital_write(epd.dc_pin, 1)
        hal.digital_write(epd.cs_pin, 0)
        hal.spi_writebyte2(data)
        hal.digital_write(epd.cs_pin, 1)

    def _rows(self) -> tuple[int, int]:
        epd = self.epd
        return -(-epd.width // 8), epd.height  # bytes a row (rounded up), rows

    def frame(
        self, image: bytes | bytearray, rams: tuple[int, ...], turn_on: Callable[[], None]
    ) -> None:
        """display, display_Fast, display_Base: each RAM command, then the frame."""
        width, height = self._rows()
        for ram in rams:
            self.epd.send_command(ram)
            self.send(image[: width * height])
        turn_on()

    def partial(
        self, image: bytes | bytearray, x_start: int, y_start: int, x_end: int, y_end: int
    ) -> None:
        """display_Partial: the vendor's window arithmetic and command sequence, kept
        as written (its operator precedence included), then the window's bytes."""
        epd = self.epd
        xs, xe = x_start, x_end
        if (xs % 8 + xe % 8 == 8 & xs % 8 > xe % 8) | xs % 8 + xe % 8 == 0 | (xe - xs) % 8 == 0:
            xs, xe = xs // 8, xe // 8
        else:
            xs = xs // 8
            xe = xe // 8 if xe % 8 == 0 else xe // 8 + 1
        width, height = self._rows()
        xe, ye = xe - 1, y_end - 1
        ys = y_start
        epd.reset()
        for command, data in (
            (0x3C, (0x80,)),
            (0x44, (xs & 0xFF, xe & 0xFF)),
            (0x45, (ys & 0xFF, (ys >> 8) & 0x01, ye & 0xFF, (ye >> 8) & 0x01)),
            (0x4E, (xs & 0xFF,)),
            (0x4F, (ys & 0xFF, (ys >> 8) & 0x01)),
        ):
            epd.send_command(command)
            for byte in data:
                epd.send_data(byte)
        epd.send_command(0x24)
        first, last = max(xs, 0), min(xe, width - 1)
        window = bytearray()
        if first <= last:
            for row in range(max(ys, 0), min(ye, height - 1) + 1):
                window += image[row * width + first : row * width + last + 1]
        if window:
            self.send(window)
        epd.TurnOnDisplay_Partial()


class LutEPD(Protocol):
    """What `LutRun` uses of a vendor EPD instance, and the method it replaces."""

    lut: Callable[[Sequence[int]], None]
    send_data2: Callable[[bytes | bytearray | list[int]], None]

    def send_command(self, command: int) -> None: ...
    def ReadBusy(self) -> None: ...


class LutRun:
    """The 2.9" V2 file's `lut`, which its `SetLut` calls before every partial
    refresh: the 153 waveform bytes after command 0x32, sent one `send_data` call a
    byte (four HAL calls each, 612 a partial), handed over in one run of the
    vendor's own `send_data2`; the command before and the wait after kept. The
    byte stream is the vendor's (tests/test_waveshare.py)."""

    BYTES = 153  # the vendor's `for i in range(0, 153)`

    def __init__(self, epd: LutEPD) -> None:
        self.epd = epd

    def install(self) -> None:
        self.epd.lut = self.lut

    def lut(self, lut: Sequence[int]) -> None:
        self.epd.send_command(0x32)
        self.epd.send_data2(list(lut[: self.BYTES]))
        self.epd.ReadBusy()


class WavesharePanel(Panel):
    """One real panel: the vendor's EPD class for `model_name` over its own HAL.

    `wiring` gives its pins and SPI device; `spi` replaces the real `/dev/spidevB.D`
    (the emulator passes its recording device); `delay` waits the vendor's fixed
    delays; `hal_class` is `StockPathHal` to measure the vendor's own traffic, and
    `whole_buffers=False` keeps a byte-wise model's own frame loops (`ByteRuns`);
    `reset_wait` is the wait around a hardware reset before BUSY takes over (the
    model's datasheet figure, its record's `reset_wait`, unless given), `vendor_reset`
    the vendor's own fixed waits instead (see `hal`).
    `busy_timeout` defaults to four times the model's full refresh + 5 s.
    """

    def __init__(
        self,
        model_name: str,
        *,
        seat: str,
        wiring: Wiring,
        rotation: int = 0,
        pin_factory: Factory | None = None,
        spi: SpiDevice | None = None,
        busy_timeout: float | None = None,
        rise_timeout: float = 0.5,
        delay: Callable[[float], None] = time.sleep,
        hal_class: type[PanelHal] = PanelHal,
        reset_wait: float | None = None,
        vendor_reset: bool = False,
        whole_buffers: bool = True,
    ) -> None:
        super().__init__(model_name, rotation=rotation)
        self.seat = seat
        vendor_file(self.model.name)  # refuse a missing vendor before claiming pins
        self.recipe = RECIPES[self.model.name]
        if busy_timeout is None:
            busy_timeout = 4 * self.model.timing.full + 5
        self.hal = hal_class(
            seat,
            self.model.name,
            wiring,
            spi if spi is not None else SpidevBus(wiring.spi_bus, wiring.spi_device),
            pin_factory=pin_factory,
            busy_timeout=busy_timeout,
            rise_timeout=rise_timeout,
            delay=delay,
            reset_wait=None if vendor_reset else reset_wait or self.model.reset_wait,
        )
        try:
            self.module = load_vendor_module(self.model.name, self.hal, label=seat)
            self.epd = self.module.EPD()
            if whole_buffers and self.recipe.bytewise:
                ByteRuns(self.epd, self.hal).install()
            if whole_buffers and self.recipe.lut_bytewise:
                LutRun(self.epd).install()
        except BaseException:
            self.hal.close()
            raise
        self.counts: dict[Refresh, int] = dict.fromkeys(Refresh, 0)
        self.upgraded = 0  # partials drawn as full refreshes: nothing known on the glass
        self._awake = False  # the controller is initialised (not reset, asleep or off)
        self._glass: bytes | None = None  # the RAM bytes of the picture on the glass
        self._old_valid = False  # RAM 0x26 holds that picture
        self._mode: Refresh | None = None  # the refresh kind the last init readied

    def __repr__(self) -> str:
        return (
            f"WavesharePanel({self.model.name!r}, seat={self.seat!r}, "
            f"wiring={self.hal.wiring!r}, rotation={self.rotation})"
        )

    def _display(self, frame: Image.Image, refresh: Refresh) -> Refresh:
        buffer = rolled(native_buffer(frame), -(-frame.width // 8), self.recipe.roll_rows)
        kind = refresh
        if kind is Refresh.PARTIAL and self._glass is None:
            kind = Refresh.FULL  # nothing known on the glass to draw the difference from
            self.upgraded += 1
        recipe, epd = self.recipe, self.epd
        with self._vendor_call(f"{kind.value} refresh"):
            if kind is Refresh.FULL:
                # A fresh init before every full or fast refresh: a partial leaves
                # its own registers behind (border, RAM options, LUT).
                self._call(recipe.init)
                if not recipe.full_sets_base:
                    self._write_old_image(buffer)
                getattr(epd, recipe.full)(buffer)
            elif kind is Refresh.FAST:
                self._call(recipe.init_fast)
                if not recipe.fast_sets_base:
                    self._write_old_image(buffer)
                getattr(epd, recipe.fast)(buffer)
            else:
                # A file with its own partial init needs it after any other init.
                other_mode = recipe.init_partial is not None and self._mode is not Refresh.PARTIAL
                if not self._awake or not self._old_valid or other_mode:
                    self._call(recipe.wakes_partial)  # also puts the RAM counters at 0, 0
                if not self._old_valid and self._glass is not None:
                    self._write_old_image(self._glass)
                if recipe.partial_takes_window:
                    getattr(epd, recipe.partial)(buffer, 0, 0, epd.width, epd.height)
                else:
                    getattr(epd, recipe.partial)(buffer)
            self._awake = self._old_valid = True
            self._glass = bytes(buffer)
        self._mode = kind
        self.counts[kind] += 1
        return kind

    def _call(self, call: Call) -> None:
        """Call the vendor method `call` names with its arguments."""
        getattr(self.epd, call.method)(*call.args)

    def _write_old_image(self, buffer: bytes | bytearray) -> None:
        """Put `buffer` in RAM 0x26 without a refresh, through the vendor's own
        send_command/send_data: the "old image" a partial refresh compares with.
        Called right after an init (which leaves the address counters at 0, 0)."""
        epd = self.epd
        epd.send_command(0x26)
        send_all = getattr(epd, "send_data2", None)
        if send_all is not None:
            send_all(buffer)
        else:
            for byte in buffer:  # one vendor call per byte; the HAL sends one write
                epd.send_data(byte)

    def _sleep(self) -> None:
        with self._vendor_call("sleep"):
            self.epd.sleep()
        self._awake = False
        if self.hal.switches_power:
            self._old_valid = False  # the controller's RAM went with its power

    def _close(self) -> None:
        self.hal.close()
        self._awake = self._old_valid = False

    def probe(self) -> bool:
        """Wake the controller without changing the picture; True when BUSY answered a
        command (so an unplugged panel raises `PanelUnplugged`), False when this
        model's plain init has no such command to check."""
        probe = self.recipe.probe
        with self._vendor_call("probe"):
            self._call(self.recipe.init if probe is None else probe)
        self._awake = False  # a probe's registers are not a refresh's: init again
        self._mode = None
        return probe is not None

    def _forget(self) -> None:
        """After a failure the controller's state and the glass are unknown: the next
        frame starts from a reset and a full refresh."""
        self._awake = self._old_valid = False
        self._glass = None

    @contextmanager
    def _vendor_call(self, what: str) -> Iterator[None]:
        """Run vendor code. On any failure the controller's state is unknown, so the
        next frame starts from a reset and a full refresh; an error that is not a
        PanelError becomes one naming the seat, so the service treats it as this
        panel's fault."""
        try:
            yield
            self.hal.flush()  # so nothing of this call waits for the next one
        except PanelError:
            self._forget()
            raise
        except Exception as error:
            self._forget()
            raise PanelError(
                f"seat {self.seat} ({self.model.name}): {what} failed in the vendor code: {error!r}"
            ) from error
