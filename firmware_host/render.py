"""`keystand render`: what one seat's screen shows, as a PNG (docs/design.md "Contracts").

    keystand render --card CARD [--script FILE] --seat A|B --panel MODEL --out PNG
                    [--geometry] [--lang en|de|ru] [the game's own options]
                    [--rotation DEG] [--keys EDGE] [--all]
    keystand render --game classic --card CARD [--script FILE]
                    --seat spymasters|operatives ...

The PNG is upright as the seat reads it. `--geometry` prints a JSON object
mapping each table cell index ("0".."24") to its box [x0, y0, x1, y1] in that
PNG (x1, y1 exclusive). `--all` takes a directory for `--out` and writes every
screen of the scripted game for that seat, 000.png before the first event, then
one numbered PNG after each event (refused ones too); with `--geometry` it
prints {"000.png": {...}, ...}.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from . import games
from .cliutil import (
    EXIT_USAGE,
    GAME_HELP,
    add_card_source,
    add_game,
    add_game_options,
    game_options,
    load_card,
    read_bytes,
)
from .panel_models import PANELS
from .rules import KeystandError, Seat

if TYPE_CHECKING:  # Pillow and the layouts load only when a screen is drawn
    from PIL import Image

    from .layouts import Box, KeyLabels, PanelSpec

# The panels `keystand render` knows: one record each (the layouts' list is the
# same, and cannot be imported here without Pillow).
PANEL_NAMES = tuple(PANELS)
WIDE = tuple(m.diagonal for m in PANELS.values() if m.width > m.height)  # landscape native
KEY_EDGES = ("left", "right", "top", "bottom")  # keystand.layouts.EDGES (the same test)
LANGUAGE_NAMES = ("en", "de", "ru")


class RenderError(KeystandError, ValueError):
    """An argument of `keystand render` that names nothing usable."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `render` to the `keystand` command's subparsers."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "render",
        help="draw one seat's screen of a scripted game as a PNG",
        description="Draw what one seat's screen shows after a script of events, upright "
        "as the seat reads it. --geometry prints each table cell's box in the PNG as JSON.",
    )
    add_card_source(p)
    p.add_argument(
        "--script",
        metavar="FILE",
        help="the game's events before the screen, as keystand play takes them (no press or "
        "wait lines); - for stdin (default: none)",
    )
    p.add_argument(
        "--seat",
        required=True,
        metavar="A|B",
        help="whose screen: A or B, or the name its game gives that seat "
        "(each game's own: `--game NAME`)",
    )
    add_game(p, default=games.DEFAULT, help=GAME_HELP)
    p.add_argument("--panel", required=True, metavar="MODEL", help=", ".join(PANEL_NAMES))
    p.add_argument("--out", required=True, metavar="PNG", help="the PNG (a directory with --all)")
    p.add_argument(
        "--geometry", action="store_true", help="print each cell's box [x0, y0, x1, y1] as JSON"
    )
    p.add_argument(
        "--lang", default="en", metavar="LANG", help=f"{'|'.join(LANGUAGE_NAMES)} (default en)"
    )
    add_game_options(p)  # each game's own (Duet's --mission, --loose-order, --first)
    p.add_argument(
        "--rotation",
        type=int,
        metavar="DEG",
        help="how the panel is mounted, in degrees clockwise from the picture to the "
        "panel's own frame: 0 or 180 draw the panel's native shape (portrait on every "
        f"model but the {' and the '.join(WIDE)}), 90 or 270 the other way round; the PNG "
        "is always upright as the seat reads it (default: landscape)",
    )
    p.add_argument(
        "--keys",
        metavar="EDGE",
        choices=KEY_EDGES,
        help="the seat's keys sit along this edge of the screen: draw what each does now "
        f"beside it, clue, pass, undo, menu in that order ({', '.join(KEY_EDGES)}; default: "
        "no labels)",
    )
    p.add_argument(
        "--all", action="store_true", help="every screen of the game, numbered PNGs in --out"
    )
    return p


def _spec(args: argparse.Namespace) -> PanelSpec:
    from .layouts import panel

    try:
        return panel(args.panel, args.rotation, args.keys)
    except ValueError as e:
        raise RenderError(str(e)) from None


def _seat(text: str, game: games.Game) -> Seat:
    try:
        return game.parse_seat(text)
    except ValueError as e:
        raise RenderError(str(e)) from None


def _states(args: argparse.Namespace, stdin: TextIO, game: games.Game) -> list[Any]:
    """The game before the first event and after each one."""
    card = load_card(args, stdin, game)
    assert card is not None  # the card source is required
    options = game_options(args, game)
    state = game.start(card, options)
    states = [state]
    if args.script is not None:
        source = "stdin" if args.script == "-" else args.script
        for step in game.script(read_bytes(args.script, "script", stdin), source=source):
            state, _ = state.apply(step.event)
            states.append(state)
    return states


def _save(image: Image.Image, path: Path) -> None:
    try:
        image.save(path, format="PNG")
    except OSError as e:
        raise RenderError(f"cannot write {str(path)!r}: {e.strerror or e}") from None


def _labels(args: argparse.Namespace, state: object, seat: Seat) -> KeyLabels | None:
    """What each key does at `state` on a stand with a touch grid (`--keys`)."""
    if args.keys is None:
        return None
    from keystand.drivers.inputs import KeyName

    from .screens import KeyPlace, labels_of

    return labels_of(state, seat, KeyPlace(args.keys, tuple(KeyName)))


def _geometry(boxes: dict[int, Box]) -> dict[str, list[int]]:
    return {str(i): list(boxes[i]) for i in sorted(boxes)}


def run(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO | None = None) -> int:
    """Carry out `keystand render`; 0 when done, 2 with one line on `err` for bad input."""
    try:
        return _run(args, out, stdin or sys.stdin)
    except KeystandError as e:
        print(f"keystand render: {e}", file=err)
        return EXIT_USAGE


def _run(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    from .layouts import languages, render_with_boxes

    game = games.get(args.game)
    seat = _seat(args.seat, game)
    spec = _spec(args)
    if args.lang not in languages():
        raise RenderError(f"language {args.lang!r}: expected one of {', '.join(languages())}")
    states = _states(args, stdin, game)
    target = Path(args.out)
    if not args.all:
        view = game.view(states[-1], seat, games.Context())
        image, boxes = render_with_boxes(view, spec, args.lang, _labels(args, states[-1], seat))
        _save(image, target)
        if args.geometry:
            json.dump(_geometry(boxes), out)
            out.write("\n")
        return 0
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RenderError(f"cannot make directory {args.out!r}: {e.strerror or e}") from None
    index: dict[str, Any] = {}
    for n, state in enumerate(states):
        view = game.view(state, seat, games.Context())
        image, boxes = render_with_boxes(view, spec, args.lang, _labels(args, state, seat))
        name = f"{n:03d}.png"
        _save(image, target / name)
        index[name] = _geometry(boxes)
        if not args.geometry:
            print(target / name, file=out)
    if args.geometry:
        json.dump(index, out)
        out.write("\n")
    return 0
