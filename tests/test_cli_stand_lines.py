"""`keystand play` and `render --script` play the referee alone: a `press` or a
`wait` line, which only `keystand run` takes (README "The command line"), is
refused by its line number, in every game's script (Duet, classic and the tests'
practice game, installed as any game apart from keystand is): exit 2 and one
line, as for a malformed line, and nothing played or drawn."""

from __future__ import annotations

import io
import json
from pathlib import Path

import practice_plugin
import pytest

from keystand import games
from keystand.cli import main

# Each game's first event on its card `generate(3)` (classic's: blue starts; an
# agent of blue's at (0, 0), then (1, 1) is red's).
BEFORE = {"duet": "clue A", "classic": "clue blue 2\ntouch 0 0", "practice": "clue"}
WHY = {
    "wait": "wait lines are for keystand run --script only (the referee alone has no clock)",
    "press": "press lines are for keystand run --script only (they need the stand's keys)",
}
LINES = [
    ("wait 500", "wait"),
    ("WAIT 0  # a comment after it", "wait"),
    ("wait soon", "wait"),  # malformed too: named for what it is, a stand's line
    ("press A clue", "press"),
    ("press b menu long", "press"),
]


@pytest.fixture(params=list(BEFORE))
def game(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name: str = request.param
    if name == "practice":
        monkeypatch.syspath_prepend(str(practice_plugin.install(tmp_path / "plugin")))
    return name


@pytest.mark.parametrize("command", ["play", "render"])
@pytest.mark.parametrize(("line", "verb"), LINES)
def test_a_stand_line_is_refused_by_its_number(
    game: str, command: str, line: str, verb: str, tmp_path: Path
) -> None:
    script = tmp_path / "game.txt"
    script.write_text(f"{BEFORE[game]}\n# the stand's line next\n{line}\ntouch 1 1\n")
    png = tmp_path / "seat.png"
    argv = [command, "--game", game, "--card", games.get(game).generate(3).text]
    argv += ["--script", str(script)]
    if command == "render":
        argv += ["--seat", "A", "--panel", "epd2in7_V2", "--out", str(png)]
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, out=out, err=err) == 2
    body = line.split("#")[0].strip()
    number = BEFORE[game].count("\n") + 3
    assert err.getvalue() == f"keystand {command}: {script} line {number}: {body!r}: {WHY[verb]}\n"
    assert out.getvalue() == "" and not png.exists()


def test_without_them_the_same_script_plays(game: str, tmp_path: Path) -> None:
    """The refusal is the stand's lines', not the script's: the rest plays."""
    script = tmp_path / "game.txt"
    script.write_text(f"{BEFORE[game]}\n# no stand line\ntouch 1 1\n")
    argv = ["play", "--game", game, "--card", games.get(game).generate(3).text]
    out, err = io.StringIO(), io.StringIO()
    assert main([*argv, "--script", str(script), "--json"], out=out, err=err) == 0
    assert err.getvalue() == ""
    assert json.loads(out.getvalue())["covered"]  # the touch was played
