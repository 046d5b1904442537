"""`keystand play|card|render --game classic` as other tools call them: the real
command in a subprocess, the JSON against docs/design.md "Contracts" (classic).

Card 9CY-EPF-ZXQ, as the spymasters see it (blue starts, 9 blue agents):

    U U . U U      blue  0 1 3 4 7 16 18 21 22
    R R U X R      red   5 6 9 12 14 17 23 24
    . . R . R      assassin 8
    . U R U .
    . U U R R
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import card_text
import pytest
from command import keystand
from PIL import Image

from keystand.cli import main
from keystand.rules.classic_card import ClassicCard

CODE = "9CY-EPF-ZXQ"
CARD = ClassicCard.from_code(CODE)
BLUE_CELLS = sorted(CARD.agents(CARD.starting))

CLASSIC_FIELDS = [
    "status",
    "winner",
    "reason",
    "phase",
    "turn",
    "guesses_left",
    "agents_left",
    "covered",
    "rejected",
]


def play(script: str) -> dict[str, object]:
    done = keystand(
        "play", "--game", "classic", "--card-code", CODE, "--script", "-", "--json", stdin=script
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == CLASSIC_FIELDS  # the contract's fields, no others
    return data


def touches(cells: list[int]) -> str:
    return "".join(f"touch {c // 5} {c % 5}\n" for c in cells)


def test_won_by_the_last_agent() -> None:
    assert CARD.starting.value == "blue"
    data = play("clue blue unlimited\n" + touches(BLUE_CELLS))
    assert data == {
        "status": "over",
        "winner": "blue",
        "reason": "all_found",
        "phase": "over",
        "turn": None,
        "guesses_left": None,
        "agents_left": {"red": 8, "blue": 0},
        "covered": BLUE_CELLS,
        "rejected": [],
    }


def test_won_by_the_other_teams_touch_on_the_assassin() -> None:
    data = play("clue blue 1\ntouch 0 0\n# the assassin\ntouch 1 3\n")
    assert data == {
        "status": "over",
        "winner": "red",
        "reason": "assassin",
        "phase": "over",
        "turn": None,
        "guesses_left": None,
        "agents_left": {"red": 8, "blue": 8},
        "covered": [0, 8],
        "rejected": [],
    }


def test_the_plus_one_rule() -> None:
    # blue 1: two guesses, both right; the second ends the turn by itself.
    first = play("clue blue 1\ntouch 0 0\n")
    assert (first["turn"], first["phase"], first["guesses_left"]) == ("blue", "guessing", 1)
    data = play("clue blue 1\ntouch 0 0\ntouch 0 1\ntouch 0 3\nclue red 2\n" + touches([5, 6]))
    assert data["turn"] == "red" and data["phase"] == "guessing"
    assert data["guesses_left"] == 1  # 2 + 1 - 2
    assert data["rejected"] == [{"line": 4, "event": "touch 0 3", "reason": "no_clue"}]
    data = play("clue blue 1\ntouch 0 0\ntouch 0 1\nclue red 2\n" + touches([5, 6, 9]))
    assert (data["turn"], data["phase"], data["guesses_left"]) == ("blue", "awaiting_clue", None)
    assert data["agents_left"] == {"red": 5, "blue": 7}
    assert data["covered"] == [0, 1, 5, 6, 9]


def test_a_penalty_and_its_refusals_in_the_json() -> None:
    data = play("clue blue 2\npenalty 0 0\npenalty 1 0\nclue red\ntouch 0 0\npass red\n")
    # penalty 0 0: a blue word, not red's; penalty 1 0: red covers its own word.
    assert data["rejected"] == [
        {"line": 2, "event": "penalty 0 0", "reason": "penalty_not_their_word"},
        {"line": 6, "event": "pass red", "reason": "pass_no_turn"},  # blue's turn now
    ]
    assert data["covered"] == [0, 5]  # red's touch of a blue word ended red's turn
    assert (data["turn"], data["agents_left"]) == ("blue", {"red": 7, "blue": 8})


def test_text_output_and_bad_input() -> None:
    done = keystand(
        "play", "--game", "classic", "--card-code", CODE, "--script", "-", stdin="clue blue\n"
    )
    assert done.returncode == 0 and "classic, 1 events: playing" in done.stdout
    # Each team's count in words, not as a Python dict.
    assert "agents left: red 8, blue 9" in done.stdout.splitlines()
    assert "{" not in done.stdout
    # A classic code without --game: the error says which game it belongs to.
    bad = keystand("play", "--card-code", CODE, "--script", "-", stdin="")
    assert bad.returncode == 2
    assert "9 symbols is a classic card code: --game classic" in bad.stderr
    bad = keystand("play", "--game", "classic", "--card", "GGGGG", "--script", "-", stdin="")
    assert bad.returncode == 2 and "bad card" in bad.stderr and "'G'" in bad.stderr
    bad = keystand(
        "play", "--game", "classic", "--card-code", CODE, "--script", "-", stdin="clue green 2\n"
    )
    assert bad.returncode == 2 and "line 1" in bad.stderr and "green" in bad.stderr
    bad = keystand(
        "play", "--game", "classic", "--card-code", CODE, "--mission", "9-9", "--script", "-"
    )
    assert bad.returncode == 2 and "--mission: classic has no such choice" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_card_new_for_classic() -> None:
    done = keystand("card", "new", "--game", "classic", "--seed", "7", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    card = ClassicCard.parse(data["card"])
    assert card.code == data["code"] and ClassicCard.from_code(data["code"]) == card
    again = keystand("card", "new", "--game", "classic", "--seed", "7", "--json")
    assert json.loads(again.stdout) == data  # the same seed, the same card
    shown = keystand("card", "show", "--game", "classic", "--card-code", data["code"])
    assert shown.stdout.splitlines()[-2:] == [f"card {card.text}", f"code {card.code}"]
    duet = keystand("card", "new", "--seed", "7", "--json")  # the default is still Duet
    assert "/" in json.loads(duet.stdout)["card"]


# `keystand card show --game classic --card-code 9CY-EPF-ZXQ`, to the byte.
SHOWN = """\
Classic key card: the spymasters' key in table order, as the spymasters see the
grid (row 0 farthest from them, column 0 their leftmost). The operatives sit
across the table. A script's touch R C names the word at row R, column C.

        the spymasters' key
column  0 1 2 3 4
row 0   U U . U U
row 1   R R U X R
row 2   . . R . R
row 3   . U R U .
row 4   . U U R R

R red agent, U blue agent, . bystander, X assassin; blue starts (9 agents, red 8)
card UU.UU RRUXR ..R.R .URU. .UURR
code 9CY-EPF-ZXQ
"""


def test_card_show_prints_the_spymasters_key_labelled() -> None:
    shown = keystand("card", "show", "--game", "classic", "--card-code", CODE)
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, SHOWN, "")
    printed = card_text.read(shown.stdout)
    assert list(printed.grids) == ["the spymasters' key"]
    grid = printed.grids["the spymasters' key"]
    assert card_text.in_table_order(grid, 5) == "".join(k.value for k in CARD.keys)
    # The labels are touch R C's: where the grid says X, a touch meets the assassin.
    [(row, col)] = [rc for rc, mark in grid.items() if mark == "X"]
    assert play(f"clue blue 2\ntouch {row} {col}\n")["reason"] == "assassin"
    marks, starts = printed.legend.split("; ")
    names = dict(part.split(" ", 1) for part in marks.split(", "))
    assert names == {"R": "red agent", "U": "blue agent", ".": "bystander", "X": "assassin"}
    assert starts == "blue starts (9 agents, red 8)"


def test_card_new_names_the_team_that_starts() -> None:
    said = set()
    for seed in range(12):
        out = io.StringIO()
        assert main(["card", "new", "--game", "classic", "--seed", str(seed)], out=out) == 0
        printed = card_text.read(out.getvalue())
        card = ClassicCard.from_code(printed.code)
        other = card.starting.other.value
        assert (
            printed.legend.split("; ")[1] == f"{card.starting.value} starts (9 agents, {other} 8)"
        )
        said.add(card.starting.value)
    assert said == {"red", "blue"}  # both legends seen


@pytest.mark.parametrize("seat", ["spymasters", "operatives", "A", "b"])
def test_render_for_classic(tmp_path: Path, seat: str) -> None:
    """A role's name, or the letter of the seat whose panel faces it (docs/games.md)."""
    from keystand import layouts
    from keystand.games.classic import views as classic_views
    from keystand.rules.classic import Classic
    from keystand.rules.classic_events import parse_event

    script = "clue blue 2\ntouch 0 0\ntouch 2 0\n"
    (tmp_path / "s.txt").write_text(script)
    out = tmp_path / f"{seat}.png"
    done = keystand(
        "render", "--game", "classic", "--card-code", CODE, "--script", str(tmp_path / "s.txt"),
        "--seat", seat, "--panel", "epd2in7_V2", "--out", str(out), "--geometry",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    state = Classic.replay(CARD, [parse_event(line) for line in script.splitlines()])
    spymasters = seat in ("spymasters", "A")
    build = classic_views.spymasters if spymasters else classic_views.operatives
    image, boxes = layouts.render_with_boxes(build(state), layouts.panel("epd2in7_V2"))
    with Image.open(out) as got:
        assert got.convert("1").tobytes() == image.tobytes()
    assert json.loads(done.stdout) == {str(i): list(boxes[i]) for i in sorted(boxes)}


def test_render_names_the_classic_seats() -> None:
    done = keystand(
        "render", "--game", "classic", "--card-code", CODE, "--seat", "C",
        "--panel", "epd2in7_V2", "--out", "/dev/null",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "keystand render: seat 'C': a classic seat is spymasters (A) or operatives (B)"
    )
