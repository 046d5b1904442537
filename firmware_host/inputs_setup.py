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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keystand.drivers import factory
from keystand.drivers.inputs import InputDriver

from .cliutil import UsageError
from .inputkinds import Built, Wiring
from .profile import cursor_keys
from .rules import Grid
from .rules.card import GRID
from .store import atomic_write

if TYPE_CHECKING:
    from PIL.Image import Image

    from keystand.drivers.inputs.emulated import Twin
    from keystand.drivers.inputs.touchfilter import Orientation

    from .profile import Profile
    from .run_plan import Plan
    from .service import Service
    from .stand import Stand

    Decoded = Callable[[str, int], Image]  # an emulated panel's picture: seat, rotation

log = logging.getLogger(__name__)

GRID_FILE = "grid.json"


def load_orientation(state_dir: Path, *, mirror: bool, grid: Grid = GRID) -> Orientation:
    """The calibrated orientation of a mat under the game's `grid`, the
    profile's mirror kept; unturned if none is saved (or the file is not one
    keystand wrote, or its turns do not suit the grid: the log says so)."""
    from keystand.drivers.inputs.touchfilter import Orientation  # a grid's only

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
    """The profile's wired inputs (keys, a grid, ...), as drivers the service runs."""

    grid: InputDriver | None = None
    hardware: Any = None  # the emulated grid (`--emulate`)
    pins: Any = None  # the emulation's pin factory
    drivers: list[InputDriver] = field(default_factory=list)
    twins: list[Twin] = field(default_factory=list)  # what plays a script on them (`--emulate`)

    def script(self, steps: Any, service: Service, on_done: Any, speed: float = 1.0) -> InputDriver:
        """The script input: played on the emulated devices when there are some,
        each line taken before the next; else lines become events."""
        if self.hardware is None and self.pins is None:
            return factory.make_input("script", steps=steps, on_done=on_done)
        return factory.make_emulated_script(
            steps, sync=lambda: _handled(service), twins=self.twins, speed=speed, on_done=on_done
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
    """The drivers of the kinds the profile wires, each built as its kind
    declares; the stand told about the grid's orientation and whether the
    guesser uses a cursor. Under `--emulate` pass the emulation's `pins` and its
    folder."""
    kinds = profile.input.kinds
    inputs = Inputs(pins=pins if emulate is not None else None)
    stand.cursor_keys = cursor_keys(kinds)
    wired = [(k, s) for k, s in profile.input.wired() if k.wired]
    grid = next((k for k, _ in wired if k.grid), None)
    if noise and grid is None:
        raise UsageError(
            f"--emulate-fault grid:noise: profile {profile.name!r} has no touch grid "
            f"(its inputs: {', '.join(kinds) or 'none'})"
        )
    wiring = Wiring(pins=inputs.pins, emulate=emulate, noise=noise)
    orientation = None
    if grid is not None:  # the touch filter is loaded for a grid only (issue 33)
        from keystand.drivers.inputs.touchfilter import TouchFilter

        t = profile.input.touch
        shape = stand.game.grid  # the drivers take the game's grid as two numbers
        orientation = load_orientation(state_dir, mirror=t.mirror, grid=shape)
        touch_filter = TouchFilter(
            dwell=t.dwell,
            palm=t.palm,
            bounce=t.bounce,
            stuck=t.stuck,
            rows=shape.rows,
            cols=shape.cols,
        )
        wiring = replace(
            wiring,
            touch_filter=touch_filter,
            orientation=orientation,
            rows=shape.rows,
            cols=shape.cols,
        )
    twins: dict[str, Twin] = {}
    for kind, settings in wired:
        made = (
            kind.emulate(settings, wiring)
            if emulate is not None
            else Built(kind.build(settings, wiring))
        )
        inputs.drivers.append(made.driver)
        if made.twin is not None:
            twins[kind.name] = made.twin
        if kind.grid:
            inputs.grid, inputs.hardware = made.driver, made.hardware
    # A script line plays on the first twin that takes it: the first in the
    # profile's `kinds`, as its author listed them, whichever kinds are installed.
    inputs.twins = [twins[name] for name in kinds if name in twins]
    if inputs.grid is not None and orientation is not None:
        on_grid = inputs.grid

        def calibrated(new: Orientation) -> None:
            save_orientation(state_dir, new)  # on disk before the grid turns
            _inner(on_grid).orientation = new  # one assignment: atomic

        stand.calibration.attach(orientation, calibrated)
    return inputs


def _inner(driver: InputDriver) -> Any:
    """The grid driver itself (under `--emulate` it is tapped)."""
    return getattr(driver, "inner", driver)


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
