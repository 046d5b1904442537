"""A third game, defined only in the tests (tests/keystand_practice: a 4 x 5 grid,
trivial rules), installed the way any game packaged apart from keystand is (a
`keystand.games` entry point), goes through everything a shipped game does:
the registry, `play`, `render`, `run --script` on the desktop and on each
emulated real build, the journal across a restart, and the menu's Game entry.
Nothing of keystand names it: the seam and its grid carry it (issue 21)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import urllib.error
import urllib.request
from io import StringIO
from pathlib import Path

import card_text
import practice_plugin
import pytest
from keystand_practice import GAME
from keystand_practice.rules import Practice

from keystand import cli, games, screens
from keystand.drivers.display import SimPanel
from keystand.drivers.inputs import InputEvent, KeyName, Press, Touch
from keystand.drivers.inputs.simulator import SimulatorPage
from keystand.menu import Item
from keystand.panel_models import PANELS
from keystand.rules import Seat
from keystand.settings import Settings
from keystand.stand import Stand
from keystand.store import Store

CARD = GAME.generate(1).text  # ".G... G.G.G ....G GXG.G"
# Agents at (0, 1), (1, 0) and (3, 4); a bystander at (0, 0); the assassin at (3, 1).
SCRIPT = "press A clue\ntouch 0 1\nwait 50\ntouch 1 0\nwait 50\ntouch 3 4\npress B pass\n"
COVERED = [1, 5, 19]


@pytest.fixture
def practice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The practice game installed for this test (the tests folder is on sys.path)."""
    folder = practice_plugin.install(tmp_path / "plugin")
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_the_card_is_as_the_comments_say() -> None:
    keys = "".join(CARD.split())
    assert [i for i in (1, 5, 19) if keys[i] == "G"] == COVERED
    assert keys[0] == "." and keys[16] == "X"


def test_the_registry_finds_an_installed_game_after_the_shipped_ones(practice: Path) -> None:
    assert games.names() == ("duet", "classic", "practice")
    assert games.get(" Practice ") is GAME
    assert games.of_state(GAME.start(GAME.generate(2))) is GAME
    assert cli._parser().parse_args(["run", "--game", "practice"]).game == "practice"


def test_without_it_the_game_is_unknown_and_the_error_names_the_games() -> None:
    with pytest.raises(games.GameError, match=r"'practice': expected one of duet, classic$"):
        games.get("practice")
    err = StringIO()
    assert cli.main(["card", "new", "--game", "practice"], out=StringIO(), err=err) == 2
    assert "game 'practice': expected one of duet, classic" in err.getvalue()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("keystand_nowhere:GAME", r"entry point keystand_nowhere:GAME\): No module named"),
        ("keystand_practice.rules:GRID", "gives a game called None"),
    ],
)
def test_a_broken_installed_game_is_named_not_a_crash(
    value: str, error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[keystand.games]\nbroken = {value}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(games.GameError, match=error):
        games.get("broken")
    assert games.get("duet").name == "duet"  # the shipped games are unharmed


def test_play_prints_its_board_and_json(practice: Path, tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("clue\ntouch 0 1\ntouch 0 0\ntouch 0 2\n")  # the last: no clue
    out = StringIO()
    argv = ["play", "--game", "practice", "--card", CARD, "--script", str(script)]
    assert cli.main(argv, out=out, err=StringIO()) == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == "practice, 4 events: playing"
    assert lines[2:6] == ["  . G · · ·", "  · · · · ·", "  · · · · ·", "  · · · · ·"]
    out = StringIO()
    assert cli.main([*argv, "--json"], out=out, err=StringIO()) == 0
    summary = json.loads(out.getvalue())
    assert summary["covered"] == [0, 1] and summary["phase"] == "awaiting_clue"


def test_play_refuses_a_touch_off_its_grid_by_line(practice: Path, tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("clue\ntouch 4 0\n")  # a 5x5 word: the practice grid has 4 rows
    err = StringIO()
    argv = ["play", "--game", "practice", "--card", CARD, "--script", str(script)]
    assert cli.main(argv, out=StringIO(), err=err) == 2
    assert err.getvalue().strip().endswith("line 2: touch 4 0: rows are 0..3, columns 0..4")


@pytest.mark.parametrize("panel", tuple(PANELS))
def test_render_draws_its_grid_of_four_rows_of_five_half_turned_for_b(
    practice: Path, tmp_path: Path, panel: str
) -> None:
    boxes = {}
    for seat in "AB":
        out = StringIO()
        argv = ["render", "--game", "practice", "--card", CARD, "--seat", seat]
        argv += ["--panel", panel, "--out", str(tmp_path / f"{seat}.png"), "--geometry"]
        assert cli.main(argv, out=out, err=StringIO()) == 0, seat
        boxes[seat] = {int(k): tuple(v) for k, v in json.loads(out.getvalue()).items()}
    a = boxes["A"]
    assert sorted(a) == list(range(20))
    assert len({box[0] for box in a.values()}) == 5  # five columns
    assert len({box[1] for box in a.values()}) == 4  # four rows
    assert a[0][:2] < a[4][:2] and a[0][1] < a[5][1]  # A reads the table as it lies
    assert all(boxes["B"][cell] == a[19 - cell] for cell in a)  # B: a half turn


def run(build: str, folder: Path, state: Path, script: str, *extra: str) -> None:
    (folder / "game.txt").write_text(script)
    argv = [sys.executable, "-m", "keystand", "run", "--profile", build, "--game", "practice"]
    argv += ["--script", str(folder / "game.txt"), "--speed", "0", "--state-dir", str(state)]
    done = subprocess.run(
        [*argv, *extra],
        capture_output=True,
        text=True,
        timeout=300,
        env=practice_plugin.environ(folder / "plugin"),
    )
    assert done.returncode == 0, done.stderr


def covered(state: Path) -> list[int]:
    found = Store.reader(state).peek()
    assert found is not None
    assert isinstance(found[0], Practice)
    return sorted(found[0].covered)


@pytest.mark.parametrize("build", ["desktop", "minimal", "touch-mpr121", "touch-serial"])
def test_run_plays_its_script_on_each_build_and_resumes_it(
    build: str, practice: Path, tmp_path: Path
) -> None:
    """On the desktop's simulated panels, and on the real builds' drivers over
    emulated controllers, keys and grids (the serial grid and the MPR121 take the
    practice grid's shape); a second run resumes the journaled game."""
    state = tmp_path / "state"
    emulate = () if build == "desktop" else ("--emulate", str(tmp_path / "out"))
    extra = ("--no-page", *emulate)
    run(build, tmp_path, state, SCRIPT, "--card", CARD, *extra)
    assert covered(state) == COVERED
    run(build, tmp_path, state, "press B clue\ntouch 0 0\n", *extra)
    assert covered(state) == [0, *COVERED]


def choose_game(stand: Stand) -> None:
    """Seat A's menu > Game, chosen twice (a game is in play)."""
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    while stand.menus[Seat.A].item is not Item.GAME:
        stand.handle(Press("A", KeyName.PASS), 0.0)
    stand.handle(Press("A", KeyName.MENU), 0.0)
    stand.handle(Press("A", KeyName.MENU), 0.0)


def test_the_menu_deals_it_and_the_stand_takes_its_grid(
    practice: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The practice game's card is CARD (its (3, 4) an agent); the others' are their own.
    stand = Stand(
        Store(tmp_path / "state"), settings=Settings(game="duet"), new_card=lambda: GAME.generate(1)
    )
    stand.boot()
    for name in ("classic", "practice"):  # the Game entry: the next game there is
        choose_game(stand)
        assert stand.game.name == name and stand.settings.game == name
    assert screens.public(stand)["grid"] == {"rows": 4, "cols": 5}
    stand.handle(Press("B", KeyName.CLUE), 1.0)
    with caplog.at_level(logging.WARNING, logger="keystand.stand"):
        assert not stand.handle(Touch(4, 0), 2.0)  # a 5x5 word the practice grid has not
    assert "touch 4 0: off the 4x5 grid of practice; ignored" in caplog.text
    assert stand.handle(Touch(3, 4), 3.0)
    assert sorted(stand.state.covered) == [19]
    stand.handle(Touch(3, 4), 3.1)  # the same finger again: a bounce, not a refusal shown
    assert stand.state.last.code == "covered" and not stand.refusal.shown
    for seat in Seat:  # each screen draws the practice grid
        panel = SimPanel("epd2in7_V2", rotation=90, speed=0)
        image = screens.render(stand, seat, panel)
        assert image.size == (264, 176)
    resumed = Stand(Store(tmp_path / "state"))
    resumed.boot()
    assert resumed.game is GAME and sorted(resumed.state.covered) == [19]
    choose_game(resumed)  # round again: Duet, and the practice game left is history
    assert resumed.game.name == "duet"
    left = Store.reader(tmp_path / "state").history()[0]
    assert (left["game"], left["result"], left["mission"]) == ("practice", "abandoned", "practice")


def test_the_page_deals_and_takes_the_grid_the_status_names() -> None:
    """The page's table is the game in play's: a switch of games in the menu
    reshapes it (the status names the grid); before any status it is its own."""
    status: dict[str, object] = {}
    queued: list[InputEvent] = []
    page = SimulatorPage(screens=dict, png=lambda seat: None, status=lambda: status, port=0)
    page.start(queued.append, lambda report: None)
    try:

        def post(line: str) -> tuple[int, dict[str, object]]:
            request = urllib.request.Request(page.url + "input", data=line.encode())
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return answer.status, json.load(answer)
            except urllib.error.HTTPError as e:
                return e.code, json.load(e)

        def grid() -> object:
            with urllib.request.urlopen(page.url + "status", timeout=30) as answer:
                return json.load(answer)["grid"]

        assert grid() == {"rows": 5, "cols": 5}
        assert post("touch 4 0")[0] == 200
        status["grid"] = {"rows": 4, "cols": 5}  # the menu dealt the practice game
        assert grid() == {"rows": 4, "cols": 5}
        code, answer = post("touch 4 0")
        assert code == 400 and answer["error"] == "'touch 4 0': rows are 0..3, columns 0..4"
        assert post("touch 3 4")[0] == 200
    finally:
        page.stop()
    assert queued == [Touch(4, 0), Touch(3, 4)]


def test_the_menu_names_an_installed_game_by_its_own_name(practice: Path, tmp_path: Path) -> None:
    """The strings name the shipped games in each language; a game installed
    beside keystand is named as it names itself."""
    stand = Stand(Store(tmp_path / "state"), settings=Settings(game="practice"))
    stand.boot()
    stand.handle(Press("A", KeyName.MENU, long=True), 0.0)
    line = screens.menu_view(stand, Seat.A).lines[stand.menu_items().index(Item.GAME)]
    assert line.value_key is None and line.value_text == "practice"
    image = screens.render(stand, Seat.A, SimPanel("epd2in7_V2", rotation=90, speed=0))
    assert image.size == (264, 176)


def test_card_show_prints_its_grid_of_four_rows_labelled(practice: Path, tmp_path: Path) -> None:
    """`keystand card show` lays out any game's key at its own shape, its labels the
    table coordinates `touch R C` takes."""
    out = StringIO()
    assert cli.main(["card", "show", "--game", "practice", "--card", CARD], out=out) == 0
    printed = card_text.read(out.getvalue())
    assert printed.about.startswith("Practice key card: the one key both seats see")
    grid = printed.grids["the key"]
    assert sorted(grid) == [(r, c) for r in range(4) for c in range(5)]
    assert card_text.in_table_order(grid, 5) == "".join(CARD.split())
    assert (printed.text, printed.legend) == (CARD, "G agent, X assassin, . bystander")
    [(row, col)] = [rc for rc, mark in grid.items() if mark == "X"]
    script = tmp_path / "game.txt"
    script.write_text(f"clue\ntouch {row} {col}\n")
    out = StringIO()
    argv = ["play", "--game", "practice", "--card", CARD, "--script", str(script), "--json"]
    assert cli.main(argv, out=out) == 0
    assert json.loads(out.getvalue())["status"] == "lost"
