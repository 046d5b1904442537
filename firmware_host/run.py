"""`keystand run`: the stand service with the drivers a profile names.

Off a Pi the `desktop` profile runs simulated panels and the simulator page on
127.0.0.1. With `--script FILE` (and no page or keyboard) the run ends once the
script is done and both screens show its result, which is how the power-cut
tests drive it. Drivers come from `keystand.drivers.factory` by the profile's
names; this module names no driver class.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .cliutil import (
    HardwareError,
    UsageError,
    add_card_source,
    load_card,
    path_arg,
    read_bytes,
)
from .rules import KeystandError
from .store import default_state_dir

if TYPE_CHECKING:
    from collections.abc import Callable

    from keystand.drivers.display import Panel

    from . import games
    from .profile import Profile
    from .rules import Seat
    from .service import Service

log = logging.getLogger("keystand")

STOP_TIMEOUT = 30.0  # seconds for the last frames and the neutral picture


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run the stand service (simulated drivers off a Pi)",
        description="Run the stand: inputs -> referee -> journal -> both screens. "
        "SIGINT, SIGTERM or SIGHUP stops it: the screens are blanked to a neutral picture first.",
    )
    p.add_argument(
        "--profile",
        help="a profile installed with keystand (desktop) or a profile file's path "
        "(default: the settings file's, else desktop)",
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="the settings file: profile, languages, default mission, refresh policy "
        "(default: /etc/keystand/keystand.toml if it exists)",
    )
    p.add_argument("--state-dir", type=path_arg, help=f"default: {default_state_dir()}")
    p.add_argument(
        "--script", metavar="FILE", help="feed a script (touch/press/wait lines; - stdin)"
    )
    add_card_source(p, required=False)
    p.add_argument(
        "--game",
        choices=("duet", "classic"),
        help="the game of the next new game (default: the menu's last choice, else duet); "
        "with --game classic, the card and the script are classic's",
    )
    p.add_argument("--port", type=int, help="the simulator page's port (0: any free one)")
    p.add_argument("--speed", type=float, help="simulated panel pace: 1 real time, 0 no waiting")
    p.add_argument("--no-page", action="store_true", help="do not serve the simulator page")
    p.add_argument(
        "--emulate",
        type=path_arg,
        metavar="DIR",
        help="run the profile's real drivers over emulated hardware; write each seat's SPI "
        "transfer log (SEAT.spi) and each image its panel got (SEAT-NNNN.png) in DIR",
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


EMULATE_FAULTS = {"busy-stuck", "unplugged"}  # per seat; grid:noise is the inputs'


class Emulation:
    """`--emulate DIR`: the emulated hardware of each seat's panel, what its
    controller decoded, and the files in DIR."""

    def __init__(self, folder: Path, faults: dict[str, str]) -> None:
        from keystand.drivers import factory

        self.folder = folder
        self.faults = faults
        self.pins = factory.emulated_pins()
        self.hardware: dict[str, Any] = {}

    def decoded(self, seat: str, rotation: int) -> Any:
        """What seat's controller shows, upright as the seat reads it."""
        shown = self.hardware[seat].shown
        return shown.rotate(rotation, expand=True) if rotation else shown

    def close(self) -> None:
        for hardware in self.hardware.values():
            hardware.close()


def _faults(given: list[str]) -> dict[str, str]:
    faults: dict[str, str] = {}
    for text in given:
        where, _, what = text.partition(":")
        panel_fault = where in ("A", "B") and what in EMULATE_FAULTS
        if panel_fault or (where == "grid" and what == "noise"):
            faults[where] = what
        else:
            raise UsageError(
                f"--emulate-fault {text!r}: expected A:busy-stuck, B:busy-stuck, A:unplugged, "
                "B:unplugged or grid:noise"
            )
    return faults


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
            # What each simulated panel last showed, kept as e-ink keeps it.
            (state_dir / "screens").mkdir(mode=0o700, exist_ok=True)
            options = {"speed": pace, "remember": state_dir / "screens" / f"{seat}.png"}
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
        )
        panel.on_frame = FrameFiles(emulation.folder, seat)
        emulation.hardware[seat] = hardware
        panels[Seat(seat)] = panel
    return panels


def _card_for_first_game(
    card: games.AnyCard | None, new_card: Callable[[], games.AnyCard]
) -> Callable[[], games.AnyCard]:
    """The stand's card dealer: `card` for the first new game, then random."""
    if card is None:
        return new_card
    dealt = [card]

    def deal() -> games.AnyCard:
        return dealt.pop() if dealt else new_card()

    return deal


def _game_of(state_dir: Path, asked: str | None, script: bool) -> Any:
    """The game a run's card and script are read as: `asked` (--game), else the one
    in play in the state dir, else the menu's last choice, else Duet (read only:
    nothing is made here). A script for another game than the one in play is
    refused: its lines would go to the wrong game."""
    from . import games
    from .journal import JournalError
    from .store import Store

    in_play, saved = None, None
    if state_dir.is_dir():
        reader = Store.reader(state_dir)
        try:
            found = reader.peek()
            in_play = games.of_state(found[0]) if found else None
            saved = (reader.load_settings() or {}).get("game")
        except (JournalError, OSError):
            pass  # start-up says what is wrong with it
    if asked is None:
        return in_play or games.get(saved if saved in games.NAMES else games.DEFAULT)
    game = games.get(asked)
    if script and in_play is not None and in_play.name != game.name:
        raise UsageError(
            f"a {in_play.name} game is in play in {state_dir}: a --game {game.name} script "
            f"cannot go to it. Finish it, abandon it (menu > Game), or give another --state-dir"
        )
    return game


def _refuse_card_if_playing(state_dir: Path) -> None:
    from .journal import JournalError
    from .store import Store

    if not state_dir.is_dir():
        return
    try:
        found = Store.reader(state_dir).peek()
    except JournalError:
        return  # unreadable: boot keeps it aside and deals the new game on this card
    if found is not None:
        raise UsageError(
            f"a game is in play in {state_dir} (game {found[1]}): --card deals only a new game. "
            "Finish it, abandon it (menu > New game), or give another --state-dir"
        )


def _check_state_dir(state_dir: Path) -> None:
    """A directory keystand can write (made if missing), or exit 2 saying why.
    A disk that fills up later is not this: the stand runs and says "cannot save"."""
    import tempfile

    where = f"state dir {str(state_dir)!r}"
    if state_dir.exists() and not state_dir.is_dir():
        raise UsageError(f"{where} is not a directory")
    try:
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.TemporaryFile(dir=state_dir):
            pass
    except OSError as e:
        raise UsageError(
            f"{where} cannot be written: {e.strerror or e} (give a writable --state-dir)"
        ) from e
    _check_journal(state_dir)


def _check_journal(state_dir: Path) -> None:
    """The journal is a file if it is there: a folder is refused, and a FIFO is
    refused before anything reads it (a read of one would wait for ever)."""
    from .store import CURRENT

    journal = state_dir / CURRENT
    if journal.exists() and not journal.is_file():
        raise UsageError(f"{str(journal)!r} is not a file: move it away, keystand writes it")


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


def _check_shown_log(path: Path) -> None:
    if path.exists() and not path.is_file():
        raise UsageError(f"--shown-log {str(path)!r} is not a file")
    if not path.parent.is_dir():
        raise UsageError(
            f"--shown-log {str(path)!r}: the folder {str(path.parent)!r} does not exist"
        )


def _check_port(host: str, port: int) -> None:
    """The page's port is free now, before anything starts (0: any free one)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the page binds
        try:
            probe.bind((host, port))
        except OSError as e:
            raise UsageError(
                f"the simulator page's port {port} on {host}: {e.strerror or e} (is another "
                "keystand running? stop it, or give --port N, or --port 0 for any free port)"
            ) from e


def _status(service: Service) -> dict[str, Any]:
    snap = service.snapshot  # one immutable object: read from the page's threads
    return {
        **snap.public,
        "service": snap.phase.value,
        "error": snap.error,
        "health": [
            {"source": h.source, "health": h.health.value, "detail": h.detail} for h in snap.health
        ],
    }


def _frames(service: Service) -> dict[str, Any]:
    from keystand.drivers.inputs.simulator import ScreenFrame

    out = {}
    for seat, panel in service.panels.items():
        refreshing = panel.refreshing
        kind = refreshing or panel.last_refresh
        out[seat.value] = ScreenFrame(
            number=panel.frames_shown,
            busy=refreshing is not None,
            refresh=kind.value if kind is not None else None,
            model=panel.model.name,
        )
    return out


def _png(service: Service, seat_name: str, emulation: Emulation | None = None) -> bytes | None:
    """What seat `seat_name`'s panel shows now, as a PNG (white before its first
    frame); with `--emulate`, what its emulated controller decoded."""
    from io import BytesIO

    from . import screens

    panel = next((p for s, p in service.panels.items() if s.value == seat_name), None)
    if panel is None:
        return None
    if emulation is not None:
        image = emulation.decoded(seat_name, panel.rotation)
    else:
        image = panel.shown or screens.starting(panel)
    buf = BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


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
    refuses is said once in the log; it never fails the panel's frame."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.fd: int | None = self._open()
        self.complained = False

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
    # The service, Pillow and the drivers load only when the stand runs.
    from keystand.drivers import factory
    from keystand.drivers.inputs import InputError

    from . import config as configs
    from . import profile as profiles
    from . import rules, screens
    from .inputs_setup import build as build_inputs
    from .notify import Heartbeat, Notifier, watchdog_interval
    from .panel_worker import RefreshPolicy
    from .service import Service
    from .stand import Settings, Stand
    from .store import Store

    logging.basicConfig(
        level=logging.INFO, format="keystand: %(levelname)s %(message)s", stream=err
    )
    settings_file = configs.load(configs.find(args.config))
    profile_name = args.profile or settings_file.get("service", "profile") or "desktop"
    profile = profiles.load(profile_name)
    if args.speed is not None and not 0 <= args.speed <= 10:
        raise UsageError(f"--speed {args.speed}: expected 0..10 (1 real time, 0 no waiting)")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535 (0: any free port)")
    state_dir: Path = args.state_dir or default_state_dir()
    _check_journal(state_dir)  # before anything reads it
    game = _game_of(state_dir, args.game, bool(args.script))  # the card's and script's
    card = load_card(args, sys.stdin, game)
    steps = None
    if args.script:
        data = read_bytes(args.script, "script", sys.stdin)
        steps = game.input_script(data, source="stdin" if args.script == "-" else args.script)
    if card is not None:
        _refuse_card_if_playing(state_dir)
    if args.shown_log:
        _check_shown_log(args.shown_log)
    use_page = "simulator" in profile.input.kinds and not args.no_page
    use_page = use_page and not (steps and args.port is None)
    port = profile.input.port if args.port is None else args.port
    host = "127.0.0.1" if profile.input.host == "localhost" else profile.input.host
    if use_page:
        _check_port(host, port)
    _check_state_dir(state_dir)  # the last check: it makes the dir
    emulation = None
    if args.emulate is not None:
        if profile.stand.driver == "sim":
            raise UsageError(
                f"--emulate runs a Pi profile's real drivers; profile {profile.name!r} has "
                "simulated panels (try --profile minimal)"
            )
        try:
            args.emulate.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"--emulate {str(args.emulate)!r}: {e.strerror or e}") from e
        emulation = Emulation(args.emulate, _faults(args.emulate_fault))
    elif args.emulate_fault:
        raise UsageError("--emulate-fault needs --emulate DIR")
    from keystand.drivers.display import PanelError

    try:
        panels = _panels(profile, args.speed, emulation, state_dir)
    except (PanelError, factory.DriverError) as e:  # no GPIO, no SPI, no vendor package
        raise _hardware(e, f"(keystand doctor --profile {profile_name} says what to fix)") from e
    stand = Stand(
        Store(state_dir),
        settings=Settings(
            undo_window=profile.stand.undo_window,
            reveal_delay=profile.stand.reveal_delay,
            lang=settings_file.get("game", "languages") or (profile.stand.lang,) * 2,
            mission=rules.Mission.parse(settings_file.get("game", "mission") or "9-9"),
        ),
        new_card=_card_for_first_game(card, game.generate),
    )
    shown_log = ShownLog(args.shown_log) if args.shown_log else None
    # Under systemd (Type=notify): READY, a STATUS line, WATCHDOG from the loop.
    notifier = Notifier.from_env()
    ping = watchdog_interval()
    max_partials = settings_file.get("refresh", "max_partials")
    max_partials = profile.stand.max_partials if max_partials is None else max_partials
    service = Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        describe=screens.public,
        policy=lambda: RefreshPolicy(max_partials=max_partials),
        idle_sleep=settings_file.get("refresh", "idle_sleep") or profile.stand.idle_sleep,
        tick=0.5 if ping is None else min(0.5, ping / 4),
        on_shown=shown_log,
        heartbeat=Heartbeat(notifier, ping, status=lambda: _status_line(service)),
    )

    done = threading.Event()
    kinds = profile.input.kinds
    page = None
    interactive = False
    if use_page:
        page = factory.make_input(
            "simulator",
            screens=lambda: _frames(service),
            png=lambda seat: _png(service, seat, emulation),
            status=lambda: _status(service),
            host=host,
            port=port,
        )
        service.add_input(page)
        interactive = True
    if "keyboard" in kinds and not steps:
        service.add_input(factory.make_input("keyboard", complain=lambda m: _say(err, m)))
        interactive = True
    wired = build_inputs(
        profile,
        stand,
        state_dir,
        pins=emulation.pins if emulation else None,
        emulate=emulation.folder if emulation else None,
        noise=emulation is not None and emulation.faults.get("grid") == "noise",
    )
    if emulation is not None and wired.hardware is not None:
        emulation.hardware["grid"] = wired.hardware  # closed with the panels' hardware
    for driver in wired.drivers:
        service.add_input(driver)
    if steps is not None:
        service.add_input(
            wired.script(
                steps,
                service,
                on_done=None if interactive else lambda: service.submit_then(done.set),
            )
        )
    elif not interactive and not wired.drivers:
        print("keystand: no input to run (the profile has no simulator or keyboard)", file=err)
        done.set()

    # The inputs claim their pins, buses and port before the stand deals or
    # resumes a game: a start refused here has written nothing.
    try:
        service.start_inputs()
    except OSError as e:  # the page's port is taken
        raise UsageError(f"cannot serve the simulator page: {e.strerror or e}") from e
    except InputError as e:  # a key's pin or the I2C bus cannot be had
        raise _hardware(e, "", prefix=f"profile {profile.name!r}: ") from e
    resumed = stand.boot(args.game or (game.name if card is not None else None))
    if resumed is not None and not resumed.recovery.clean:
        log.warning("journal repaired on start: %s", resumed.recovery)
    for skipped in resumed.skipped if resumed else ():
        log.warning("journal record not used: %s", skipped)
    if stand.fault:
        log.error("the stand cannot save (%s); the screens say so until it can", stand.fault)
    # SIGHUP: the terminal of a foreground run has closed (an SSH session, `make sim`).
    for stop_signal in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(stop_signal, lambda *_: done.set())
    service.start(stop_timeout=STOP_TIMEOUT)
    if page is not None:
        print(
            f"keystand: the simulator page is at {getattr(page, 'url', '?')}", file=out, flush=True
        )
    notifier.ready(f"ready: profile {profile.name}")
    while not done.wait(0.5) and not service.stopped:
        pass
    _say(err, "keystand: stopping: blanking the screens...")
    notifier.stopping("stopping: blanking the screens")
    clean = _shutdown(service, notifier, ping)
    if shown_log is not None:
        shown_log.close()
    if emulation is not None:
        _report_emulation(emulation, panels, err)
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
    return 0


__all__ = ["add_parser", "run"]
