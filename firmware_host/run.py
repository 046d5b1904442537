"""`keystand run`: the stand service with the drivers a profile names.

Off a Pi the `desktop` profile runs simulated panels and the simulator page on
127.0.0.1. With `--script FILE` (and no page or keyboard) the run ends once the
script is done and both screens show its result, which is how the power-cut
tests drive it. Drivers come from `keystand.drivers.factory` by the profile's
names; this module names no driver class.

A run is three steps: the plan (`run_plan.make`: the arguments, the settings
file and the profile, checked), the build (`build`: the panels, the stand, the
service and, through `inputs_setup.attach`, the inputs), and `serve`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import logging
import os
import signal
import stat
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from . import games, run_plan
from .cliutil import (
    EXIT_RETRY,
    HardwareError,
    InUse,
    UsageError,
    add_card_source,
    add_game,
    path_arg,
)
from .rules import KeystandError
from .store import default_state_dir

if TYPE_CHECKING:
    from keystand.drivers.display import Panel
    from keystand.drivers.inputs import InputDriver

    from .notify import Notifier
    from .profile import Profile
    from .rules import Seat
    from .run_plan import Plan
    from .service import Service
    from .stand import Stand

log = logging.getLogger("keystand")

STOP_TIMEOUT = 30.0  # seconds for the last frames and the neutral picture
SCREENS = "screens"  # in the state dir: what each simulated panel last showed


def add_parser(sub: Any) -> None:
    from . import profile as profiles  # the run reads its profile anyway

    p = sub.add_parser(
        "run",
        help="run the stand service (simulated drivers off a Pi)",
        description="Run the stand: inputs -> referee -> journal -> both screens. "
        "SIGINT, SIGTERM or SIGHUP stops it: the screens are blanked to a neutral picture first.",
    )
    p.add_argument(
        "--profile",
        help=f"an installed profile ({', '.join(sorted(profiles.shipped()))}) or a profile "
        "file's path (default: the settings file's, else desktop)",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="the settings file: profile, languages, the games' defaults, refresh policy "
        "(default: /etc/keystand/keystand.toml if it exists)",
    )
    p.add_argument("--state-dir", type=path_arg, help=f"default: {default_state_dir()}")
    p.add_argument(
        "--script", metavar="FILE", help="feed a script (touch/press/wait lines; - stdin)"
    )
    add_card_source(p, required=False)
    add_game(
        p,
        default=None,
        help=f"the game of the next new game: {', '.join(games.SHIPPED)}, or a game installed "
        f"beside keystand (default: the menu's last choice, else {games.DEFAULT}); the card "
        "and the script are read as that game's",
    )
    p.add_argument("--port", type=int, help="the simulator page's port (0: any free one)")
    p.add_argument("--speed", type=float, help="simulated panel pace: 1 real time, 0 no waiting")
    p.add_argument("--no-page", action="store_true", help="do not serve the simulator page")
    p.add_argument(
        "--emulate",
        type=path_arg,
        metavar="DIR",
        help="run the profile's real drivers over emulated hardware; write each seat's SPI "
        "transfer log (SEAT.spi) and each image its panel got (SEAT-NNNN.png) in DIR "
        "(an earlier run's files of those names are removed first)",
    )
    p.add_argument(
        "--emulate-fault",
        action="append",
        default=[],
        metavar="SEAT:FAULT",
        help="with --emulate: A:busy-stuck or B:unplugged (a panel), grid:noise (the grid)",
    )
    p.add_argument(
        "--shown-log",
        type=Path,
        metavar="FILE",
        help="append 'SEAT GAME RECORDS' for each game frame a panel has finished showing "
        "and 'SEAT neutral' for each neutral picture",
    )


class Emulation:
    """`--emulate DIR`: the emulated hardware of each seat's panel, what its
    controller decoded, and the files in DIR.

    A run's files in DIR are its own: the files an earlier run wrote there (by
    their names only: `SEAT-NNNN.png`, `SEAT.spi`, `grid-tty`, `grid-tty.new`) are
    removed first, so the frames counted and compared at the end are this run's.
    Nothing else in DIR is touched."""

    def __init__(self, folder: Path, faults: Mapping[str, str]) -> None:
        from keystand.drivers import factory

        self.folder = folder
        self.faults = faults
        self.removed = self._clear(folder)
        self.pins = factory.emulated_pins()
        self.hardware: dict[str, Any] = {}

    @staticmethod
    def _clear(folder: Path) -> int:
        """Remove what an earlier run wrote in folder (files and links named as
        the emulation names them, never a folder); how many went."""
        import re

        from .rules import Seat

        seats = "".join(seat.value for seat in Seat)
        ours = re.compile(rf"[{seats}]-[0-9]{{4}}\.png|[{seats}]\.spi|grid-tty(\.new)?")
        try:
            found = sorted(folder.iterdir())
        except OSError as e:
            raise UsageError(f"--emulate {str(folder)!r}: {e.strerror or e}") from e
        removed = 0
        for path in found:
            if not ours.fullmatch(path.name) or (path.is_dir() and not path.is_symlink()):
                continue
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as e:
                raise UsageError(
                    f"--emulate {str(folder)!r}: cannot remove {path.name} of an earlier run: "
                    f"{e.strerror or e}"
                ) from e
            removed += 1
        return removed

    def decoded(self, seat: str, rotation: int) -> Any:
        """What seat's controller shows, upright as the seat reads it."""
        shown = self.hardware[seat].shown
        return shown.rotate(rotation, expand=True) if rotation else shown

    def close(self) -> None:
        for hardware in self.hardware.values():
            hardware.close()


def _panels(
    profile: Profile, speed: float | None, emulation: Emulation | None, state_dir: Path
) -> dict[Seat, Panel]:
    from keystand.drivers import factory

    from .rules import Seat

    driver = profile.stand.driver
    panels: dict[Seat, Panel] = {}
    for seat, cfg in profile.panels.items():
        pace = cfg.speed if speed is None else speed
        options: dict[str, Any] = {}
        if driver == "sim":
            # What each simulated panel last showed, kept as e-ink keeps it (its
            # folder is made once the start is decided: `_take_state_dir`).
            options = {"speed": pace, "remember": state_dir / SCREENS / f"{seat}.png"}
        else:
            options = {
                "seat": seat,
                "wiring": {
                    "rst": cfg.rst,
                    "dc": cfg.dc,
                    "busy": cfg.busy,
                    "pwr": None if cfg.pwr < 0 else cfg.pwr,
                    "spi_device": cfg.spi_device,
                },
                "busy_timeout": cfg.busy_timeout or None,
                "reset_wait": cfg.reset_wait or None,
                "vendor_reset": cfg.vendor_reset,
            }
        if emulation is None:
            panels[Seat(seat)] = factory.make_panel(
                driver, cfg.model, rotation=cfg.rotation, **options
            )
            continue
        from keystand.drivers.display.record import FrameFiles

        options.pop("seat", None)
        panel, hardware = factory.make_emulated_panel(
            driver,
            cfg.model,
            rotation=cfg.rotation,
            seat=seat,
            pin_factory=emulation.pins,
            speed=pace,
            fault=emulation.faults.get(seat),
            log=emulation.folder / f"{seat}.spi",
            # A stuck panel is found in seconds, not the real panel's half minute.
            busy_timeout=options["busy_timeout"] or max(2.0, 30 * pace),
            record=False,
            wiring=options["wiring"],
            reset_wait=options["reset_wait"],
            vendor_reset=options["vendor_reset"],
        )
        panel.on_frame = FrameFiles(emulation.folder, seat)
        emulation.hardware[seat] = hardware
        panels[Seat(seat)] = panel
    return panels


def _hardware(error: Exception, hint: str, prefix: str = "") -> KeystandError:
    """A start refused for its hardware, as the exit status systemd reads: a GPIO
    chip or SPI device the machine lacks or refuses is lasting (no restart loop),
    a line another program holds may free itself; any other refusal is a bad
    setting."""
    from keystand.drivers.display.hal import PanelBusError
    from keystand.drivers.gpio import GpioClaimError

    message = f"{prefix}{error} {hint}".rstrip()
    if isinstance(error, GpioClaimError):
        return HardwareError(message, lasting=error.trouble.lasting)
    if isinstance(error, PanelBusError):  # SPI off, refused, or spidev missing
        return HardwareError(message, lasting=True)
    return UsageError(message)


def _say(err: TextIO, text: str) -> None:
    """A line on stderr that cannot stop the stop: once the terminal is gone (a
    closed SSH session: SIGHUP, then EIO on every write) the rest is said to
    /dev/null, and the screens are still blanked."""
    try:
        print(text, file=err, flush=True)
    except OSError:
        with contextlib.suppress(OSError, ValueError):  # no descriptor (a test's StringIO)
            fd = err.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)


def _report_emulation(emulation: Emulation, panels: dict[Seat, Panel], err: TextIO) -> None:
    """Say, per seat, whether the controller ends showing the last image its
    driver was handed (the emulator decoded it from the bytes on the wire)."""
    from PIL import Image, ImageChops

    emulation.close()
    if emulation.removed:
        _say(
            err,
            f"keystand: emulate: {emulation.removed} files of an earlier run in "
            f"{emulation.folder} were removed at the start",
        )
    for seat, panel in panels.items():
        files = sorted(emulation.folder.glob(f"{seat.value}-[0-9][0-9][0-9][0-9].png"))
        if not files:
            _say(err, f"keystand: emulate: seat {seat.value}: no frame reached the panel")
            continue
        with Image.open(files[-1]) as last:
            sent = last.convert("1")
        decoded = emulation.decoded(seat.value, panel.rotation).convert("1")
        same = sent.size == decoded.size and not ImageChops.difference(sent, decoded).getbbox()
        _say(
            err,
            f"keystand: emulate: seat {seat.value}: {len(files)} frames; the controller shows "
            + (f"{files[-1].name} pixel for pixel" if same else f"NOT {files[-1].name}"),
        )


def _status_line(service: Service) -> str:
    """What `systemctl status keystand` says: the game, as the public record has it."""
    snap = service.snapshot
    state = snap.public.get("state") or {}
    line = f"{snap.phase.value}: game {snap.game or '-'}"
    if state:
        line += (
            f", {state.get('status')}, {state.get('phase')}, turns left {state.get('turns_left')}"
        )
    if snap.public.get("cannot_save"):
        line += ", CANNOT SAVE"
    return line


def _shutdown(service: Service, notifier: Any, ping: float | None) -> bool:
    """`service.shutdown`, pinging the watchdog meanwhile: the loop is blanking the
    screens under its own deadline (STOP_TIMEOUT), no longer turning."""
    deadline = time.monotonic() + STOP_TIMEOUT + 5
    service.stop()
    while ping is not None and time.monotonic() < deadline:
        if service.wait_stopped(min(ping, max(0.0, deadline - time.monotonic()))):
            break
        notifier.watchdog()
    return service.shutdown(max(0.0, deadline - time.monotonic()))


class ShownLog:
    """`--shown-log`: a line for each frame a panel has finished showing.

    Each line is one write(2) on an O_APPEND descriptor, fsynced before the
    panel's worker goes on: no line waits in a buffer for the process's end. A
    frame finished after `close()` (a panel that outlived the stop's deadline)
    still gets its line: the file is opened again for it. A line the disk
    refuses is said once in the log; it never fails the panel's frame.
    `opened=False`: the file is made only by `open()`, once the start is decided
    (a refused start writes nothing)."""

    def __init__(self, path: Path, *, opened: bool = True) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.fd: int | None = self._open() if opened else None
        self.complained = False

    def open(self) -> None:
        with self.lock:
            if self.fd is None:
                self.fd = self._open()

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def __call__(self, seat: Seat, image: object, refresh: object, tag: object) -> None:
        from .panel_worker import NEUTRAL

        if tag == NEUTRAL:
            line = f"{seat.value} neutral\n"
        elif isinstance(tag, tuple) and tag[0] is not None:
            line = f"{seat.value} {tag[0]} {tag[1]}\n"
        else:
            return  # a frame of no journaled game (the disk refused its start)
        with self.lock:
            try:
                fd = self.fd if self.fd is not None else self._open()
                try:
                    os.write(fd, line.encode())
                    os.fsync(fd)
                finally:
                    if fd != self.fd:
                        os.close(fd)
            except OSError as e:
                if not self.complained:
                    self.complained = True
                    log.warning("--shown-log %s: %s (line %r lost)", self.path, e, line.strip())

    def close(self) -> None:
        with self.lock:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    logging.basicConfig(
        level=logging.INFO, format="keystand: %(levelname)s %(message)s", stream=err
    )
    # The plan and the build make most of the 30,000 objects a stand holds for its
    # whole life (modules, classes, the stand itself) and little garbage: the
    # cyclic collector's 30 passes over them as they come cost about 5 ms of CPU
    # of a 190 ms start here (issue 33). It is off until they are built, then
    # they are frozen (gc.freeze: no later pass walks them again, the idle
    # stand's included; the few cycles already dead by then, about 500 objects
    # of the command line's parser, are kept with them) and it is on again.
    # Unfrozen at the end, for a caller in the same process (the tests).
    gc.disable()
    try:
        plan = run_plan.make(args, sys.stdin)
        # Another run's state dir is refused now, before any driver is made; the
        # lock itself is taken (and the state dir made) only once the start is
        # decided (`serve`), so a refused start writes nothing in it.
        probe_state_dir(plan.state_dir)
        built = build(plan, err)
        gc.freeze()
    finally:
        gc.enable()
    try:
        return serve(plan, built, out, err)
    finally:
        gc.unfreeze()


def _lock_fd(path: Path, flags: int) -> int | None:
    """A descriptor of the state dir's lock file, refused (exit 2) if it is no
    regular file; None: there is none (only with flags lacking O_CREAT)."""
    not_a_file = f"{str(path)!r} is not a file: move it away, keystand writes it"
    # No link followed (its target would be written), no FIFO's writer waited for.
    flags |= os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except FileNotFoundError:
        if flags & os.O_CREAT:
            raise UsageError(f"cannot open {str(path)!r}: its folder is gone") from None
        return None
    except OSError as e:
        if e.errno in (errno.EISDIR, errno.ELOOP):
            raise UsageError(not_a_file) from None
        if e.errno == errno.ENOTDIR and not flags & os.O_CREAT:
            return None  # the state dir is no folder: the plan said so already
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(not_a_file)
    return fd


def _in_use(fd: int, state_dir: Path) -> InUse:
    holder = os.pread(fd, 16, 0).decode("ascii", "replace").strip()
    os.close(fd)
    pid = f" (pid {holder})" if holder.isdigit() else ""
    return InUse(
        f"state dir {str(state_dir)!r} is in use by another keystand run{pid}: "
        "stop it first (sudo systemctl stop keystand, for the service's), "
        "or give another --state-dir"
    )


def probe_state_dir(state_dir: Path) -> None:
    """InUse (exit 1) if another run holds the state dir now; UsageError if its
    lock file is no file. Writes nothing: a lock file that is not there is not
    made (the state dir was in use by nobody), and one that is there is only
    tried and let go again."""
    import fcntl

    from .store import LOCK

    try:
        fd = _lock_fd(state_dir / LOCK, os.O_RDONLY)
    except OSError:
        return  # unreadable: `claim_state_dir` says what is wrong, when it matters
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _in_use(fd, state_dir) from None
    except OSError:
        pass  # a filesystem without locks: `claim_state_dir` says so
    os.close(fd)  # let go: the lock is taken once the start is decided


def claim_state_dir(state_dir: Path) -> int | None:
    """Hold the state dir for this run (an advisory lock on its `stand.lock`, which
    names the holder's pid), or InUse if another run holds it: two stands on one
    journal would number their records from the same point, and the next start
    would cut one stand's moves as damage. The kernel lets go when the process
    ends, however it ends (a power cut, kill -9); closing the descriptor sooner.
    None: no lock can be had (no inode left, a filesystem without locks): the
    stand runs unguarded and the log says so, as it runs on a full disk.

    Called once the start is decided (the drivers made, the inputs started):
    it makes the state dir if it is missing, and the lock file."""
    import fcntl

    from .store import LOCK

    unguarded = "cannot hold the state dir (%s): a second run on it is not refused"
    try:
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as e:
        raise run_plan.unwritable(state_dir, e) from e
    path = state_dir / LOCK
    try:
        fd = _lock_fd(path, os.O_RDWR | os.O_CREAT)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):  # a full disk: the stand runs on
            log.warning(unguarded, e)
            return None
        raise UsageError(f"cannot open {str(path)!r}: {e.strerror or e}") from None
    assert fd is not None  # O_CREAT: made if missing
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _in_use(fd, state_dir) from None
    except OSError as e:  # a filesystem without locks (ENOLCK): the stand runs on
        os.close(fd)
        log.warning(unguarded, e)
        return None
    with contextlib.suppress(OSError):  # a full disk: the lock holds, unnamed
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


@dataclass
class Built:
    """What a plan is made into: the drivers, the stand and the service, not started."""

    panels: dict[Seat, Panel]
    emulation: Emulation | None
    stand: Stand
    service: Service
    page: InputDriver | None  # the simulator page (its address is printed)
    shown_log: ShownLog | None
    notifier: Notifier
    ping: float | None  # the watchdog's interval (None: no watchdog)
    done: threading.Event  # set by a stop signal, a script's end, nothing to run, the loop's end


def build(plan: Plan, err: TextIO) -> Built:
    """The panels, the stand, the service and its inputs the plan asks for (the
    service, Pillow and the drivers load only here, when the stand runs)."""
    from keystand.drivers import factory
    from keystand.drivers.display import PanelError

    from .inputs_setup import attach
    from .notify import Notifier, watchdog_interval
    from .stand import Settings, Stand
    from .store import Store

    emulation = (
        None if plan.emulate is None else Emulation(plan.emulate.folder, plan.emulate.faults)
    )
    try:
        panels = _panels(plan.profile, plan.speed, emulation, plan.state_dir)
    except (PanelError, factory.DriverError) as e:  # no GPIO, no SPI, no vendor package
        hint = f"(keystand doctor --profile {plan.profile_name} says what to fix)"
        raise _hardware(e, hint) from e
    stand = Stand(
        # Made once the start is decided; the journal as the plan read it (read once).
        Store(
            plan.state_dir,
            create=False,
            recover_for=plan.profile.stand.recover_for,
            seen=plan.seen,
        ),
        settings=Settings(
            undo_window=plan.profile.stand.undo_window,
            reveal_delay=plan.profile.stand.reveal_delay,
            lang=plan.lang,
            options=plan.options,
        ),
        new_card=plan.new_card(),
    )
    shown_log = ShownLog(plan.shown_log, opened=False) if plan.shown_log else None
    # Under systemd (Type=notify): READY, a STATUS line, WATCHDOG from the loop.
    notifier = Notifier.from_env()
    ping = watchdog_interval()
    done = threading.Event()
    service = _service(plan, stand, panels, shown_log, notifier, ping, done)
    attached = attach(
        service,
        stand,
        plan,
        say=lambda text: _say(err, text),
        finished=done.set,
        pins=emulation.pins if emulation else None,
        decoded=emulation.decoded if emulation else None,
    )
    if emulation is not None and attached.wired.hardware is not None:
        emulation.hardware["grid"] = attached.wired.hardware  # closed with the panels' hardware
    return Built(panels, emulation, stand, service, attached.page, shown_log, notifier, ping, done)


def _service(
    plan: Plan,
    stand: Stand,
    panels: dict[Seat, Panel],
    shown_log: ShownLog | None,
    notifier: Notifier,
    ping: float | None,
    done: threading.Event,
) -> Service:
    from . import screens
    from .drivers.display import TIMINGS
    from .notify import Heartbeat
    from .panel_worker import RefreshPolicy
    from .service import Service

    service = Service(
        stand,
        panels,
        render=screens.renderer(screens.places(plan.profile)),
        blank=screens.blank,
        describe=screens.public,
        policy=lambda panel: RefreshPolicy(
            max_partials=plan.max_partials, fast_full=TIMINGS[panel.model.name].fast_is_quicker
        ),
        idle_sleep=plan.idle_sleep,
        tick=0.5 if ping is None else min(0.5, ping / 4),
        on_shown=shown_log,
        heartbeat=Heartbeat(notifier, ping, status=lambda: _status_line(service)),
        on_stopped=done.set,  # the loop stopped by itself (the journal lost)
    )
    return service


def serve(plan: Plan, built: Built, out: TextIO, err: TextIO) -> int:
    """Start the inputs, boot the stand, run until a stop signal (or the script's
    end), then stop: the screens blanked to the neutral picture."""
    from keystand.drivers.inputs import InputError

    service = built.service
    # The inputs claim their pins, buses and port before the stand deals or
    # resumes a game: a start refused here has written nothing.
    try:
        service.start_inputs()
    except OSError as e:  # the page's port is taken
        raise UsageError(f"cannot serve the simulator page: {e.strerror or e}") from e
    except InputError as e:  # a key's pin or the I2C bus cannot be had
        raise _hardware(e, "", prefix=f"profile {plan.profile.name!r}: ") from e
    try:
        held = _take_state_dir(plan, built)
    except BaseException:
        for driver in reversed(service.drivers):  # refused: the inputs let go again
            with contextlib.suppress(Exception):
                driver.stop()
        raise
    try:
        return _serve(plan, built, out, err)
    finally:
        if held is not None:
            os.close(held)


def _take_state_dir(plan: Plan, built: Built) -> int | None:
    """The start is decided: everything that could refuse it has been checked and
    the drivers hold their hardware. Only now is anything written: the state dir
    and its lock (`claim_state_dir`), its folders, the shown log."""
    held = claim_state_dir(plan.state_dir)
    try:
        built.stand.store.make()
        if plan.profile.stand.driver == "sim":
            (plan.state_dir / SCREENS).mkdir(mode=0o700, exist_ok=True)
        if built.shown_log is not None:
            built.shown_log.open()
    except OSError as e:
        if held is not None:
            os.close(held)
        raise run_plan.unwritable(plan.state_dir, e) from e
    return held


def _serve(plan: Plan, built: Built, out: TextIO, err: TextIO) -> int:
    service, stand = built.service, built.stand
    resumed = stand.boot(plan.boot_game)
    if resumed is not None and plan.boot_game and stand.game.name != plan.boot_game:
        # --game sets the next new game's; the game in play is never thrown away unasked.
        log.info(
            "a %s game is in play: it goes on; %s starts with the next new game (menu > New game)",
            stand.game.name,
            plan.boot_game,
        )
    if resumed is not None and not resumed.recovery.clean:
        log.warning("journal repaired on start: %s", resumed.recovery)
    for skipped in resumed.skipped if resumed else ():
        log.warning("journal record not used: %s", skipped)
    if stand.faults.saving:
        log.error(
            "the stand cannot save (%s); the screens say so until it can", stand.faults.saving
        )
    # SIGHUP: the terminal of a foreground run has closed (an SSH session, `make sim`).
    for stop_signal in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(stop_signal, lambda *_: built.done.set())
    service.start(stop_timeout=STOP_TIMEOUT)
    if built.page is not None:
        url = getattr(built.page, "url", "?")
        print(f"keystand: the simulator page is at {url}", file=out, flush=True)
    built.notifier.ready(f"ready: profile {plan.profile.name}")
    # Woken only by what ends the run (a stop signal's handler runs here, in the
    # main thread), not twice a second for nothing (issue 33: an idle stand).
    built.done.wait()
    _stop(built, err)
    if service.failed is not None:
        # Exit 1: systemd's Restart=on-failure starts it again (its start limit
        # decides how often), and the start repairs the journal and says so.
        _say(err, f"keystand: stopped: {service.failed}; start it again (systemd does)")
        return EXIT_RETRY
    return 0


def _stop(built: Built, err: TextIO) -> None:
    service, notifier = built.service, built.notifier
    _say(err, "keystand: stopping: blanking the screens...")
    notifier.stopping("stopping: blanking the screens")
    clean = _shutdown(service, notifier, built.ping)
    if built.shown_log is not None:
        built.shown_log.close()
    if built.emulation is not None:
        _report_emulation(built.emulation, built.panels, err)
    if clean and not service.unblanked:
        _say(err, "keystand: stopped; both screens show the neutral picture")
        notifier.status("stopped: both screens show the neutral picture")
    else:
        which = ", ".join(service.unblanked) or "a panel"
        _say(
            err,
            f"keystand: stopped, but {which} did not show the neutral picture: it may still "
            "show the key (check its cable, then start and stop the stand again)",
        )


__all__ = ["Built", "Emulation", "ShownLog", "add_parser", "build", "run", "serve"]
