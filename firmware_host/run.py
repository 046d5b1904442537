"""`keystand run`: the stand service with the drivers a profile names.

Off a Pi the `desktop` profile runs simulated panels and the simulator page on
127.0.0.1. With `--script FILE` (and no page or keyboard) the run ends once the
script is done and both screens show its result, which is how the power-cut
tests drive it.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from io import BytesIO
from pathlib import Path
from typing import Any, TextIO

from keystand.drivers.display import Panel, SimPanel
from keystand.drivers.inputs import Act, ScriptInput, parse_line, parse_script
from keystand.drivers.inputs.script import ScriptLineError
from keystand.drivers.inputs.simulator import ScreenFrame, SimulatorPage

from . import profile as profiles
from .panel_worker import RefreshPolicy
from .rules import KeystandError, Seat
from .service import Service
from .stand import Settings, Stand
from .store import Store, default_state_dir

log = logging.getLogger("keystand")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run the stand service (simulated drivers off a Pi)",
        description="Run the stand: inputs -> referee -> journal -> both screens.",
    )
    p.add_argument(
        "--profile", default="desktop", help="hardware/NAME.toml or a path (default desktop)"
    )
    p.add_argument("--state-dir", type=Path, help=f"default: {default_state_dir()}")
    p.add_argument("--script", metavar="FILE", help="feed a script (touch/press/wait lines)")
    p.add_argument("--port", type=int, help="the simulator page's port (0: any free one)")
    p.add_argument("--speed", type=float, help="simulated panel pace: 1 real time, 0 no waiting")
    p.add_argument("--no-page", action="store_true", help="do not serve the simulator page")
    p.add_argument(
        "--shown-log",
        type=Path,
        metavar="FILE",
        help="append 'SEAT GAME RECORDS' for every frame a panel has finished showing",
    )


def _panels(profile: profiles.Profile, speed: float | None) -> dict[Seat, Panel]:
    if profile.driver != "sim":
        raise profiles.ProfileError(
            profile.name, "stand.driver", "the Waveshare driver is not built yet (use sim)"
        )
    return {
        Seat(seat): SimPanel(
            cfg.model, rotation=cfg.rotation, speed=cfg.speed if speed is None else speed
        )
        for seat, cfg in profile.panels.items()
    }


def _frames(service: Service) -> dict[str, ScreenFrame]:
    out = {}
    for seat, worker in service.workers.items():
        panel = worker.panel
        assert isinstance(panel, SimPanel)
        last = panel.frames[-1].refresh.value if panel.frames else None
        out[seat.value] = ScreenFrame(
            number=sum(panel.counts.values()),
            busy=panel.busy,
            refresh=panel.refreshing.value if panel.refreshing else last,
            model=panel.model.name,
        )
    return out


def _png(service: Service, seat_name: str) -> bytes | None:
    """What seat `seat_name`'s panel shows now, as a PNG (the page fetches it)."""
    from . import screens

    try:
        seat = Seat(seat_name)
    except ValueError:
        return None
    worker = service.workers.get(seat)
    if worker is None:
        return None
    panel = worker.panel
    assert isinstance(panel, SimPanel)
    buf = BytesIO()
    (panel.shown or screens.blank(service.stand, seat, panel)).save(buf, "PNG")
    return buf.getvalue()


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import screens  # Pillow layouts load only when the stand runs

    logging.basicConfig(
        level=logging.INFO, format="keystand: %(levelname)s %(message)s", stream=err
    )
    profile = profiles.load(args.profile)
    state_dir = args.state_dir or default_state_dir()
    steps = None
    if args.script:
        data = sys.stdin.buffer.read() if args.script == "-" else _read(args.script)
        try:
            steps = parse_script(data, source="stdin" if args.script == "-" else args.script)
        except ScriptLineError as e:
            raise KeystandError(str(e)) from None
    panels = _panels(profile, args.speed)
    stand = Stand(
        Store(state_dir),
        settings=Settings(
            undo_window=profile.undo_window,
            reveal_delay=profile.reveal_delay,
            lang=(profile.lang, profile.lang),
        ),
    )
    resumed = stand.boot()
    shown_log = open(args.shown_log, "a", encoding="utf-8") if args.shown_log else None  # noqa: SIM115

    def log_shown(seat: Seat, image: object, refresh: object, tag: object) -> None:
        if shown_log is not None and isinstance(tag, tuple):
            shown_log.write(f"{seat.value} {tag[0]} {tag[1]}\n")
            shown_log.flush()

    service = Service(
        stand,
        panels,
        render=screens.render,
        blank=screens.blank,
        policy=lambda: RefreshPolicy(max_partials=profile.max_partials),
        idle_sleep=profile.idle_sleep,
        on_shown=log_shown,
    )
    if resumed is not None and not resumed.recovery.clean:
        log.warning("journal repaired on start: %s", resumed.recovery)
    for skipped in resumed.skipped if resumed else ():
        log.warning("journal record not used: %s", skipped)
    service.start_workers()
    loop = threading.Thread(target=service.run, name="service-loop", daemon=True)
    loop.start()

    page = None
    interactive = "keyboard" in profile.inputs
    if "simulator" in profile.inputs and not args.no_page and not (steps and args.port is None):
        page = SimulatorPage(
            screens=lambda: _frames(service),
            png=lambda seat: _png(service, seat),
            emit=service.submit,
            status=lambda: screens.status(service),
            host=profile.host,
            port=profile.port if args.port is None else args.port,
        ).start()
        print(f"keystand: the simulator page is at {page.url}", file=out, flush=True)
        interactive = True

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    if steps is not None:
        ScriptInput(
            steps,
            service.submit,
            on_done=None if interactive else lambda: service.submit_then(done.set),
        ).start()
    if "keyboard" in profile.inputs and not steps:
        threading.Thread(target=_keyboard, args=(service, err), daemon=True).start()
    if not interactive and steps is None:
        print("keystand: no input to run (profile has no simulator/keyboard)", file=err)
        done.set()
    while not done.wait(0.5):
        pass
    service.stop()
    loop.join(5)  # the loop ends after the input in hand
    if page:
        page.stop()
    service.shutdown(timeout=20)  # the last frames, then the neutral picture
    if shown_log is not None:
        shown_log.close()
    return 0


def _keyboard(service: Service, err: TextIO) -> None:
    """Script lines typed on standard input (touch 1 2, press A clue, ...)."""
    for number, line in enumerate(sys.stdin, start=1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            event = parse_line(body)
            if isinstance(event, Act):  # the table's hardware: touches and keys only
                raise ValueError(f"{body!r}: type touch or press lines (press A clue, ...)")
        except ValueError as e:
            print(f"keystand: keyboard line {number}: {e}", file=err)
            continue
        if isinstance(event, float):
            time.sleep(event)
        else:
            service.submit(event)


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()  # decoded by the script parser's one rule
    except OSError as e:
        raise KeystandError(f"cannot read script {path!r}: {e.strerror or e}") from e


__all__ = ["add_parser", "run"]
