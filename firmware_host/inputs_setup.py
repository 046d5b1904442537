"""A profile's real inputs for `keystand run`: the seats' keys and the touch grid,
made by the driver factory, and the grid's calibration kept in the state dir.

The pins are gpiozero's own choice on a Pi (`pin_factory=None`: gpiozero picks
lgpio or whatever the Pi has) and the emulation's MockFactory under
`--emulate`, never the mock otherwise. Under `--emulate` the grid runs over
emulated hardware and a script is played on it (`EmulatedScript`): each
`press` and `touch` line goes through the real drivers and is taken before the
next line.

`attach` is the input half of `keystand run`'s builder: the plan's simulator page,
keyboard, keys, grid and script, added to the service in that order.

The grid's orientation (how the mat lies on the table: quarter turns, and the
mirror the profile gives) is `<state dir>/grid.json`, written when seat A's
top-left word is touched in the menu's "Calibrate grid".
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keystand.drivers import factory
from keystand.drivers.inputs import InputDriver
from keystand.drivers.inputs.touchfilter import Orientation, TouchFilter

from .cliutil import UsageError
from .profile import cursor_keys
from .rules import Grid
from .rules.card import GRID
from .store import atomic_write

if TYPE_CHECKING:
    from PIL.Image import Image

    from .profile import Profile
    from .run_plan import Plan
    from .service import Service
    from .stand import Stand

    Decoded = Callable[[str, int], Image]  # an emulated panel's picture: seat, rotation

log = logging.getLogger(__name__)

GRID_FILE = "grid.json"
GRIDS = ("mpr121", "serial-grid")


def load_orientation(state_dir: Path, *, mirror: bool, grid: Grid = GRID) -> Orientation:
    """The calibrated orientation of a mat under the game's `grid`, the
    profile's mirror kept; unturned if none is saved (or the file is not one
    keystand wrote, or its turns do not suit the grid: the log says so)."""
    path = state_dir / GRID_FILE
    unturned = Orientation(0, mirror, grid.rows, grid.cols)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        turns = data["turns"] if isinstance(data, dict) else None
        if isinstance(turns, bool) or turns not in (0, 1, 2, 3):
            raise ValueError(f"turns {turns!r}: expected 0, 1, 2 or 3")
        return Orientation(turns, mirror, grid.rows, grid.cols)
    except FileNotFoundError:
        return unturned
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("%s: %s; the grid is taken as unturned until calibrated", path, e)
        return unturned


def save_orientation(state_dir: Path, orientation: Orientation) -> None:
    """Written whole (atomic replace, fsync) before the grid uses it."""
    atomic_write(
        state_dir / GRID_FILE,
        json.dumps({"turns": orientation.turns, "shown": str(orientation)}, sort_keys=True) + "\n",
    )


@dataclass
class Inputs:
    """The profile's keys and grid, as drivers the service runs."""

    keys: InputDriver | None = None
    grid: InputDriver | None = None
    hardware: Any = None  # the emulated grid (`--emulate`)
    pins: Any = None  # the emulation's pin factory
    drivers: list[InputDriver] = field(default_factory=list)

    def script(self, steps: Any, service: Service, on_done: Any, speed: float = 1.0) -> InputDriver:
        """The script input: played on the emulated keys and grid when there are
        some, each line taken before the next; else lines become events."""
        if self.hardware is None and self.pins is None:
            return factory.make_input("script", steps=steps, on_done=on_done)
        return factory.make_emulated_script(
            steps,
            sync=lambda: _handled(service),
            keys=self.keys if self.pins is not None else None,
            pins=self.pins,
            grid=self.grid if self.hardware is not None else None,
            finger=self.hardware,
            speed=speed,
            on_done=on_done,
        )


def _handled(service: Service) -> threading.Event:
    """An event the service loop sets once it has handled everything submitted so far."""
    done = threading.Event()
    service.submit_then(done.set)
    return done


def build(
    profile: Profile,
    stand: Stand,
    state_dir: Path,
    *,
    pins: Any = None,
    emulate: Path | None = None,
    noise: bool = False,
) -> Inputs:
    """The keys and the grid the profile names; the stand told about the grid's
    orientation and whether the guesser uses a cursor. Under `--emulate` pass
    the emulation's `pins` and its folder."""
    kinds = profile.input.kinds
    inputs = Inputs(pins=pins if emulate is not None else None)
    stand.cursor_keys = cursor_keys(kinds)
    if "keys" in kinds and profile.input.keys is not None:
        k = profile.input.keys
        keys = factory.make_input(
            "keys",
            pins=k.pins,
            hold_time=k.hold_time,
            bounce_time=k.bounce_time,
            pull_up=k.pull_up,
            pin_factory=pins if emulate is not None else None,
        )
        inputs.keys = factory.tapped(keys) if emulate is not None else keys
    grid_kind = next((k for k in kinds if k in GRIDS), None)
    if noise and grid_kind is None:
        raise UsageError(
            f"--emulate-fault grid:noise: profile {profile.name!r} has no touch grid "
            f"(its inputs: {', '.join(kinds) or 'none'})"
        )
    if grid_kind is not None:
        t = profile.input.touch
        shape = stand.game.grid  # the drivers take the game's grid as two numbers
        orientation = load_orientation(state_dir, mirror=t.mirror, grid=shape)
        options: dict[str, Any] = {
            "touch_filter": TouchFilter(
                dwell=t.dwell,
                palm=t.palm,
                bounce=t.bounce,
                stuck=t.stuck,
                rows=shape.rows,
                cols=shape.cols,
            ),
            "orientation": orientation,
            "rows": shape.rows,
            "cols": shape.cols,
        }
        if grid_kind == "mpr121":
            m = profile.input.mpr121
            assert m is not None  # the profile says which table a kind needs
            options |= {
                "electrodes": m.electrodes,
                "bus": m.bus,
                "touch_threshold": m.touch_threshold,
                "release_threshold": m.release_threshold,
                "poll": m.poll,
            }
        else:
            s = profile.input.serial
            assert s is not None
            options |= {"port": s.port, "baudrate": s.baudrate}
        if emulate is not None:
            grid, inputs.hardware = factory.make_emulated_grid(
                grid_kind, folder=emulate, noise=noise, **options
            )
            inputs.grid = factory.tapped(grid)
        else:
            grid = inputs.grid = factory.make_input(grid_kind, **options)

        def calibrated(new: Orientation) -> None:
            save_orientation(state_dir, new)  # on disk before the grid turns
            grid.orientation = new  # type: ignore[attr-defined]  # one assignment: atomic

        stand.grid = orientation
        stand.on_calibrated = calibrated
    inputs.drivers = [d for d in (inputs.keys, inputs.grid) if d is not None]
    return inputs


@dataclass
class Attached:
    """What `attach` added that the run still needs: the page (its address is
    printed) and the keys and grid (their emulated hardware is closed at the end)."""

    page: InputDriver | None
    wired: Inputs


def attach(
    service: Service,
    stand: Stand,
    plan: Plan,
    *,
    say: Callable[[str], None],
    finished: Callable[[], None],
    pins: Any = None,
    decoded: Decoded | None = None,
) -> Attached:
    """The plan's inputs, added to the service. A script that nobody plays beside
    calls `finished` once the loop has handled its last line, and so does a run
    with no input at all; under `--emulate` pass the emulation's `pins` and what
    each panel's controller `decoded` (the page shows that)."""
    page = None
    if plan.page is not None:
        page = factory.make_input(
            "simulator",
            screens=lambda: _frames(service),
            png=lambda seat: _png(service, seat, decoded),
            status=lambda: _status(service, plan.profile),
            host=plan.page.host,
            port=plan.page.port,
            rows=stand.game.grid.rows,  # the page's table: the game's grid
            cols=stand.game.grid.cols,
        )
        service.add_input(page)
    if plan.keyboard:
        service.add_input(factory.make_input("keyboard", complain=say))
    emulate = plan.emulate
    wired = build(
        plan.profile,
        stand,
        plan.state_dir,
        pins=pins,
        emulate=emulate.folder if emulate else None,
        noise=emulate is not None and emulate.noise,
    )
    for driver in wired.drivers:
        service.add_input(driver)
    if plan.steps is not None:
        on_done = None if plan.interactive else lambda: service.submit_then(finished)
        service.add_input(wired.script(plan.steps, service, on_done=on_done))
    elif not plan.interactive and not wired.drivers:
        say("keystand: no input to run (the profile has no simulator or keyboard)")
        finished()
    return Attached(page, wired)


def _status(service: Service, profile: Profile) -> dict[str, Any]:
    snap = service.snapshot  # one immutable object: read from the page's threads
    return {
        **snap.public,
        # Where each seat's keys sit beside its screen: the page puts its buttons there.
        "keys": {
            seat: {"edge": p.keys, "order": list(p.key_order)}
            for seat, p in profile.panels.items()
            if p.keys != "none"
        },
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


def _png(service: Service, seat_name: str, decoded: Decoded | None) -> bytes | None:
    """What seat `seat_name`'s panel shows now, as a PNG (white before its first
    frame); with `--emulate`, what its emulated controller decoded."""
    from io import BytesIO

    from . import screens

    panel = next((p for s, p in service.panels.items() if s.value == seat_name), None)
    if panel is None:
        return None
    if decoded is not None:
        image = decoded(seat_name, panel.rotation)
    else:
        image = panel.shown or screens.starting(panel)
    buf = BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()
