"""`keystand render` as docs/design.md ("Contracts", which other tools rely on) names it:

    keystand render --card CARD [--script FILE] --seat A|B --panel MODEL --out PNG [--geometry]

writes what that seat's screen shows, upright as the seat reads it; with
--geometry it prints a JSON object mapping each table cell index to its box
[x0, y0, x1, y1] in that PNG. Also --card-code/--card-file, --mission,
--loose-order, --lang, --rotation and --all (every screen of the game). Bad
input: exit 2, one line on stderr, no traceback.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from keystand.cli import main
from keystand.games.duet import views
from keystand.layouts import MODELS, panel, render
from keystand.rules import Card, Mission, Seat
from keystand.rules.duet import Duet
from keystand.script import parse_script

CODE = "YAKM-S9ED-D1RD"
CARD = Card.from_code(CODE)
SCRIPTS = Path(__file__).parent / "golden" / "scripts"
MIDGAME = SCRIPTS / "midgame.txt"
LANDSCAPE = {
    "epd2in13_V4": (250, 122),
    "epd2in7_V2": (264, 176),
    "epd2in9_V2": (296, 128),
    "epd4in2_V2": (400, 300),
    "epd4in26": (800, 480),
}


def keystand(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def state_after(script: Path | None, mission: str = "9-9") -> Duet:
    state = Duet.start(CARD, Mission.parse(mission))
    if script is not None:
        for step in parse_script(script.read_text()):
            state, _ = state.apply(step.event)
    return state


def load(path: Path) -> Image.Image:
    with Image.open(path) as im:
        im.load()
        return im


def same(a: Image.Image, b: Image.Image) -> bool:
    return (
        a.size == b.size and ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None
    )


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("seat", ["A", "B"])
def test_render_writes_the_seats_screen_upright(model, seat, tmp_path):
    out = tmp_path / "screen.png"
    code, stdout, err = keystand(
        "render", "--card-code", CODE, "--script", str(MIDGAME), "--seat", seat,
        "--panel", model, "--out", str(out),
    )  # fmt: skip
    assert (code, stdout, err) == (0, "", "")
    image = load(out)
    assert image.size == LANDSCAPE[model]
    assert image.mode == "1"  # one bit: black and white, as the panel shows it
    want = render(views.for_seat(state_after(MIDGAME), Seat(seat)), panel(model))
    assert same(image, want)


def test_geometry_maps_every_cell_to_its_box_and_seat_b_is_turned(tmp_path):
    boxes = {}
    for seat in "AB":
        code, stdout, err = keystand(
            "render", "--card", CARD.text, "--seat", seat, "--panel", "epd2in9_V2",
            "--out", str(tmp_path / f"{seat}.png"), "--geometry",
        )  # fmt: skip
        assert code == 0 and err == ""
        boxes[seat] = json.loads(stdout)
        assert sorted(boxes[seat], key=int) == [str(i) for i in range(25)]
        w, h = load(tmp_path / f"{seat}.png").size
        for x0, y0, x1, y1 in boxes[seat].values():
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
    a, b = boxes["A"], boxes["B"]
    gx0 = min(v[0] for v in a.values())
    gy0 = min(v[1] for v in a.values())
    gx1 = max(v[2] for v in a.values())
    gy1 = max(v[3] for v in a.values())
    for i in range(25):
        r, c = divmod(i, 5)
        # Seat A reads the table like a page; seat B sees table (r, c) at (4-r, 4-c).
        assert b[str(i)] == a[str(5 * (4 - r) + (4 - c))]
        x0, y0, x1, y1 = a[str(i)]
        assert b[str(i)] == [gx0 + gx1 - x1, gy0 + gy1 - y1, gx0 + gx1 - x0, gy0 + gy1 - y0]
        if c:
            assert a[str(i)][0] > a[str(i - 1)][0]
        if r:
            assert a[str(i)][1] > a[str(i - 5)][1]


def test_geometry_boxes_hold_the_cells_picture(tmp_path):
    """The box a seat's geometry names for a cell is where that cell is drawn: the
    seat's own agent is a black disc in the middle of its box."""
    for seat in Seat:
        out = tmp_path / f"{seat.value}.png"
        code, stdout, _ = keystand(
            "render", "--card-code", CODE, "--seat", seat.value, "--panel", "epd2in7_V2",
            "--out", str(out), "--geometry",
        )  # fmt: skip
        assert code == 0
        image = load(out)
        for i, (x0, y0, x1, y1) in ((int(k), v) for k, v in json.loads(stdout).items()):
            middle = image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2))
            assert (middle == 0) == (i in CARD.agents(seat)), (seat, i)


def test_all_writes_every_screen_of_the_game(tmp_path):
    out = tmp_path / "screens"
    code, stdout, err = keystand(
        "render", "--card-code", CODE, "--script", str(MIDGAME), "--seat", "B",
        "--panel", "epd2in13_V4", "--out", str(out), "--all", "--lang", "ru",
    )  # fmt: skip
    assert code == 0 and err == ""
    steps = parse_script(MIDGAME.read_text())
    files = sorted(out.glob("*.png"))
    assert [f.name for f in files] == [f"{n:03d}.png" for n in range(len(steps) + 1)]
    assert stdout.split() == [str(f) for f in files]
    state = Duet.start(CARD)
    for n, f in enumerate(files):
        if n:
            state, _ = state.apply(steps[n - 1].event)
        assert same(load(f), render(views.for_seat(state, Seat.B), panel("epd2in13_V4"), "ru"))


def test_all_with_geometry_prints_the_boxes_of_each_file(tmp_path):
    code, stdout, _ = keystand(
        "render", "--card-code", CODE, "--script", str(SCRIPTS / "lost.txt"), "--seat", "A",
        "--panel", "epd4in2_V2", "--out", str(tmp_path), "--all", "--geometry",
    )  # fmt: skip
    assert code == 0
    index = json.loads(stdout)
    assert sorted(index) == ["000.png", "001.png", "002.png", "003.png"]
    assert all(len(boxes) == 25 for boxes in index.values())


def test_language_mission_order_and_rotation_are_honoured(tmp_path):
    def screen(*extra: str) -> Image.Image:
        out = tmp_path / "x.png"
        code, _, err = keystand(
            "render", "--card-code", CODE, "--script", str(MIDGAME), "--seat", "A",
            "--panel", "epd2in7_V2", "--out", str(out), *extra,
        )  # fmt: skip
        assert code == 0, err
        return load(out)

    english = screen()
    assert not same(english, screen("--lang", "de"))
    assert not same(english, screen("--mission", "11-11"))  # more turns left
    assert same(english, screen("--loose-order"))  # nothing in this game depends on it
    assert screen("--rotation", "0").size == (176, 264)  # mounted on end: portrait
    assert same(english, screen("--rotation", "270"))  # upright whichever way it hangs
    sudden = tmp_path / "sd.png"
    assert keystand(
        "render", "--card-code", CODE, "--script", str(SCRIPTS / "sudden.txt"), "--seat", "B",
        "--panel", "epd2in9_V2", "--out", str(sudden), "--mission", "2-1",
    )[0] == 0  # fmt: skip
    want = render(
        views.for_seat(state_after(SCRIPTS / "sudden.txt", "2-1"), Seat.B), panel("epd2in9_V2")
    )
    assert same(load(sudden), want)


def test_card_file_and_stdin_script(tmp_path, monkeypatch):
    card_file = tmp_path / "card.txt"
    card_file.write_text(CARD.text + "\n")
    out = tmp_path / "x.png"
    monkeypatch.setattr("sys.stdin", io.StringIO(MIDGAME.read_text()))
    code, _, err = keystand(
        "render", "--card-file", str(card_file), "--script", "-", "--seat", "a",
        "--panel", "epd2in13_V4", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert same(
        load(out), render(views.for_seat(state_after(MIDGAME), Seat.A), panel("epd2in13_V4"))
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--panel", "epd7in5_V2"], "epd2in13_v4"),
        (["--seat", "C"], "seat"),
        (["--lang", "fr"], "language"),
        (["--mission", "9-10"], "mission"),
        (["--rotation", "45"], "rotation"),
        (["--script", "/nonexistent/script.txt"], "cannot read"),
        (["--card", "GGG / XXX"], "card"),
        (["--out", "/nonexistent/dir/x.png"], "cannot write"),
        (["--rotation", "ninety"], "rotation"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, says, tmp_path):
    base = {
        "--card-code": CODE, "--seat": "A", "--panel": "epd2in9_V2",
        "--out": str(tmp_path / "x.png"),
    }  # fmt: skip
    argv = ["render"]
    given = dict(zip(args[::2], args[1::2], strict=True))
    if "--card" in given:
        base.pop("--card-code")
    for k, v in {**base, **given}.items():
        argv += [k, v]
    code, stdout, err = keystand(*argv)
    assert code == 2
    assert stdout == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert says in err.lower()


def test_a_bad_script_line_is_named(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("clue A\ntouch 9 9\n")
    code, _, err = keystand(
        "render", "--card-code", CODE, "--script", str(script), "--seat", "A",
        "--panel", "epd2in9_V2", "--out", str(tmp_path / "x.png"),
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "line 2" in err


def test_missing_arguments_exit_2_in_one_line(tmp_path):
    code, _, err = keystand("render", "--card-code", CODE, "--panel", "epd2in9_V2")
    assert code == 2 and err.count("\n") == 1 and "--seat" in err
