"""The screens with each key's label beside it (issue 31, item 1): goldens of the
shipped builds' screens drawn through the stand's own path (`screens.render`
with the profile's key places), the contact sheet docs/keys.png, the strip
apart from the grid, and the labels on the emulated minimal build's panels.

Goldens are looked at by a person before they are committed;
KEYSTAND_UPDATE_GOLDEN=1 rewrites them and the sheet.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pytest
from command import keystand
from PIL import Image, ImageChops

from keystand import games, layouts, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import KeyName
from keystand.rules import Card, Mission, Seat
from keystand.rules.duet import Duet
from keystand.stand import Menu, Settings, Stand
from keystand.store import Store

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "keys"
SHEET = ROOT / "docs" / "keys.png"
UPDATE = os.environ.get("KEYSTAND_UPDATE_GOLDEN") == "1"
CODE = "YAKM-S9ED-D1RD"  # the goldens' card (tests/golden/scripts)
CLASSIC_CODE = "9CY-EPF-ZXQ"  # classic's goldens' card (tests/golden/classic/scripts): blue starts
ORDER = tuple(KeyName)  # clue, pass, undo, menu: every shipped build's order

# The shipped builds' mountings: (model, rotation, edge of the keys).
BUILDS = {
    "minimal": ("epd2in7_V2", 90, "left"),
    "touch-serial": ("epd2in9_V2", 90, "bottom"),
    "touch-mpr121": ("epd4in2_V2", 0, "bottom"),
    "touch-mpr121-4in26": ("epd4in26", 0, "bottom"),
}


@dataclass(frozen=True)
class Scene:
    """A moment at the table: rules lines played, whose screen, and the stand's own
    state beside the game (keys only, a seat picking, the end shown, a menu)."""

    lines: tuple[str, ...]
    seat: Seat
    cursor_keys: bool = True
    picking: bool = False
    revealed: bool = False
    menu: bool = False
    mission: str = "9-9"
    langs: tuple[str, ...] = ("en",)
    builds: tuple[str, ...] = ("minimal",)
    extra: dict[str, str] = field(default_factory=dict)
    game: str = "duet"  # classic: seat A faces the spymasters, B the operatives
    number: str | None = None  # classic: the clue's number the spymasters are choosing
    menu_index: int = 3  # the menu's entry chosen (`menu`)


A_CLUE = ("clue A",)
FOUND = ("clue A", "touch 2 0")  # B finds one of A's agents
SCENES = {
    "first-clue": Scene((), Seat.A, builds=tuple(BUILDS)),
    "guess-pick": Scene(A_CLUE, Seat.B, langs=("en", "de", "ru"), builds=tuple(BUILDS)),
    "guess-found": Scene(FOUND, Seat.B, builds=tuple(BUILDS)),
    "picking": Scene(FOUND, Seat.B, picking=True, langs=("en", "de", "ru")),
    "giver": Scene(FOUND, Seat.A),
    "touch-guess": Scene(FOUND, Seat.B, cursor_keys=False, builds=("touch-serial", "touch-mpr121")),
    "sudden": Scene(("clue A", "touch 2 0", "pass B"), Seat.A, mission="1-1"),
    "end-held": Scene(("clue A", "touch 0 4"), Seat.B),
    "end-shown": Scene(("clue A", "touch 0 4"), Seat.B, revealed=True),
    "menu": Scene(A_CLUE, Seat.A, menu=True, langs=("en", "de", "ru"), builds=tuple(BUILDS)),
    # Classic: the spymasters' clue key chooses the clue's number (Clue…), then +1, -1,
    # Back and the clue with it (Clue 2); the operatives see the number and the
    # guesses left, and the key once the end is final.
    "classic-clue": Scene((), Seat.A, game="classic", builds=tuple(BUILDS)),
    "classic-number": Scene(
        (), Seat.A, game="classic", number="2", langs=("en", "de", "ru"), builds=tuple(BUILDS)
    ),
    "classic-unlimited": Scene((), Seat.A, game="classic", number="unlimited"),
    "classic-guess": Scene(
        ("clue blue 2", "touch 0 0"),
        Seat.B,
        game="classic",
        langs=("en", "de", "ru"),
        builds=tuple(BUILDS),
    ),
    # The classic menu at Clue number (on): a group that keeps the count sets it off.
    "classic-menu": Scene(
        (),
        Seat.A,
        game="classic",
        menu=True,
        menu_index=4,
        langs=("en", "de", "ru"),
        builds=tuple(BUILDS),
    ),
    "classic-end-shown": Scene(
        ("clue blue 2", "touch 1 3"), Seat.B, game="classic", revealed=True, builds=tuple(BUILDS)
    ),
}


def stand_at(scene: Scene, build: str = "minimal") -> Stand:
    """A stand (no store: nothing is saved) at the scene's moment, on `build`
    (only the keys-only build picks words with a cursor)."""
    game = games.get(scene.game)
    if scene.game == "duet":
        state = Duet.start(Card.from_code(CODE), Mission.parse(scene.mission))
    else:
        state = game.start(game.card_from_code(CLASSIC_CODE))
    for line in scene.lines:
        state, _ = state.apply(game.parse_event(line))
    s = Stand(cast(Store, None), settings=Settings(), state=state)
    s.cursor_keys = scene.cursor_keys and build == "minimal"
    if not s.playing and not scene.revealed:
        s.ended_at = 0.0  # the end held back, undo still possible
    if scene.picking:
        s.choosing.picking.add(scene.seat)
        s.choosing.cursors[scene.seat] = 12
    if scene.menu:
        s.menus.open[scene.seat] = Menu(scene.seat, items=s.menu_items(), index=scene.menu_index)
    if scene.number is not None:
        s.choosing.numbering[scene.seat] = scene.number
    return s


def frame(scene: Scene, build: str, lang: str) -> Image.Image:
    model, rotation, edge = BUILDS[build]
    s = stand_at(scene, build)
    s.settings = Settings(lang=(lang, lang))
    panel = SimPanel(model, rotation=rotation, speed=0)
    return screens.render(s, scene.seat, panel, {scene.seat: screens.KeyPlace(edge, ORDER)})


def goldens() -> list[tuple[str, str, str]]:
    return [
        (name, build, lang)
        for name, scene in SCENES.items()
        for build in scene.builds
        for lang in scene.langs
    ]


def path_of(name: str, build: str, lang: str) -> Path:
    return GOLDEN / build / (name + ("" if lang == "en" else f"-{lang}") + ".png")


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


@pytest.mark.parametrize(("name", "build", "lang"), goldens())
def test_golden(name: str, build: str, lang: str) -> None:
    image = frame(SCENES[name], build, lang)
    path = path_of(name, build, lang)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
    assert path.is_file(), f"no golden {path}: run with KEYSTAND_UPDATE_GOLDEN=1 and look at it"
    assert same(image, Image.open(path)), f"{path.relative_to(ROOT)} changed"


def sheet() -> Image.Image:
    """The minimal build's goldens in English, twice their size (the labels read)."""
    names = [n for n, sc in SCENES.items() if "minimal" in sc.builds]
    shots = [Image.open(path_of(n, "minimal", "en")).convert("L") for n in names]
    w, h = shots[0].size
    cols = 3
    rows = -(-len(shots) // cols)
    out = Image.new("L", (cols * (w + 8) + 8, rows * (h + 8) + 8), 150)
    for k, shot in enumerate(shots):
        out.paste(shot, (8 + (k % cols) * (w + 8), 8 + (k // cols) * (h + 8)))
    return out.resize((out.width * 2, out.height * 2), Image.NEAREST)


def test_contact_sheet_is_current() -> None:
    """docs/keys.png shows exactly the minimal build's goldens."""
    if UPDATE:
        sheet().save(SHEET)
    assert same(sheet(), Image.open(SHEET)), "docs/keys.png is out of date"


@pytest.mark.parametrize("build", list(BUILDS))
def test_the_labels_keep_to_their_strip_and_the_grid_to_the_screen(build: str) -> None:
    model, rotation, edge = BUILDS[build]
    spec = layouts.panel(model, rotation, edge)
    strip = spec.strip
    assert strip is not None
    scene = SCENES["guess-found"]
    image = frame(scene, build, "en")
    at = stand_at(scene, build)
    view = at.game.view(at.state, scene.seat, screens.context(at, scene.seat))
    _, boxes = layouts.render_with_boxes(view, spec, "en", (layouts.KeyLabel("pick"),) * 4)
    x0, y0, x1, y1 = strip
    for box in boxes.values():  # no word's box in the strip
        assert box[2] <= x0 or box[0] >= x1 or box[3] <= y0 or box[1] >= y1
    # Ink in every band with a label, none in a band without.
    labels = screens.key_labels(at, scene.seat, screens.KeyPlace(edge, ORDER))
    for label, band in zip(labels, layouts.keys.bands(spec), strict=True):
        ink = ImageChops.invert(image.crop(band).convert("L")).getbbox()
        inner = 2  # the line apart from the screen runs along the band's inner edge
        if label.word is None:
            assert ink is None or (ink[2] - ink[0] <= inner or ink[3] - ink[1] <= inner)
        else:
            assert ink is not None


def test_render_keys_draws_the_stands_labels(tmp_path: Path) -> None:
    """`keystand render --keys` draws what the stand's screen draws at rest."""
    script = tmp_path / "s.txt"
    script.write_text("\n".join(FOUND) + "\n")
    out = tmp_path / "b.png"
    done = keystand(
        "render", "--card-code", CODE, "--script", script, "--seat", "B",
        "--panel", "epd4in2_V2", "--keys", "bottom", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert same(Image.open(out), frame(SCENES["touch-guess"], "touch-mpr121", "en"))


def test_a_mounting_with_no_room_for_labels_is_refused_in_one_line(tmp_path: Path) -> None:
    done = keystand(
        "render", "--card-code", CODE, "--seat", "A", "--panel", "epd2in9_V2",
        "--rotation", "0", "--keys", "left", "--out", tmp_path / "x.png",
    )  # fmt: skip
    assert done.returncode == 2
    assert "no room for key labels along its left edge" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_emulated_minimal_build_shows_each_keys_label(tmp_path: Path) -> None:
    """`keystand run --profile minimal --emulate`: the real key driver on emulated
    pins, the real panel driver into the emulated controller. B picks a word: the
    last frame B's controller shows is the stand's picking screen, labels and all,
    pixel for pixel; then End turn ends the turn and journals no touch."""
    pytest.importorskip("gpiozero")
    card = Card.from_code(CODE)
    agent = min(card.agents(Seat.A))
    script = tmp_path / "game.txt"
    script.write_text("press A clue\npress B clue\n")
    out, state = tmp_path / "out", tmp_path / "state"
    done = keystand(
        "run", "--profile", "minimal", "--emulate", out, "--script", script,
        "--card-code", CODE, "--speed", "0", "--state-dir", state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    s = stand_at(Scene(A_CLUE, Seat.B, picking=True))
    s.choosing.cursors.clear()  # the cursor where a first pick puts it: B's top left
    want = screens.render(
        s, Seat.B, SimPanel("epd2in7_V2", rotation=90, speed=0),
        {Seat.B: screens.KeyPlace("left", ORDER)},
    )  # fmt: skip
    shown = [png for png in sorted(out.glob("B-[0-9]*.png")) if same(Image.open(png), want)]
    assert shown, "B's controller never showed the picking screen with its labels"
    # The same stand again: pick, move to one of A's agents on B's own screen, guess
    # it, then End turn (pressed short): the turn ends, and no second word is touched.
    row, col = divmod(agent, 5)
    moves = ["press B clue"] * (4 - col) + ["press B pass"] * (4 - row)
    script.write_text("\n".join(["press B clue", *moves, "press B menu", "press B pass"]) + "\n")
    done = keystand(
        "run", "--profile", "minimal", "--emulate", out, "--script", script,
        "--speed", "0", "--state-dir", state,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = json.loads(keystand("state", "--state-dir", state, "--json").stdout)
    assert got["covered"] == [agent] and got["misses"] == {"A": [], "B": []}
    assert got["phase"] == "awaiting_clue" and got["passes"] == 1
