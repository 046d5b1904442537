"""A bad card in a file (`--card-file FILE`, or `-` for stdin) is named as a bad
script line is: the file first ("stdin" for -), then the line where the card
text spans lines, then what is wrong; an empty file says it is empty. Every
command that reads a card file, Duet and classic, through `keystand.cli.main`.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from keystand.cli import main
from keystand.rules import Card
from keystand.rules.cardcode import unrank
from keystand.rules.classic_card import ClassicCard

DUET = unrank(12345)
CLASSIC = ClassicCard.from_code("9CY-EPF-ZXQ")


def rows(keys: str) -> str:
    """25 keys as five lines of five."""
    return "\n".join(keys[i : i + 5] for i in range(0, 25, 5))


def side(card: Card, name: str) -> str:
    return "".join(k.value for k in (card.a if name == "A" else card.b))


A, B = side(DUET, "A"), side(DUET, "B")
C = "".join(k.value for k in CLASSIC.keys)

# The commands that take --card-file, each with what it needs besides the card.
COMMANDS = {
    "card show": ["card", "show"],
    "play": ["play", "--script", "/dev/null"],
    "render": ["render", "--seat", "A", "--panel", "epd2in7_V2", "--out", "{tmp}/x.png"],
    "run": ["run", "--no-page", "--state-dir", "{tmp}/state"],
}


def run(
    command: str, game: str, card_file: str, tmp_path: Path, stdin: str = ""
) -> tuple[int, str, str]:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command]]
    argv += ["--game", game, "--card-file", card_file]
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(argv, out=out, err=err)
    finally:
        sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def one_line(status: int, out: str, err: str) -> str:
    assert (status, out) == (2, ""), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "card2.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_bad_character_names_the_file_and_its_line(tmp_path: Path, command: str) -> None:
    bad_a = A[:12] + "Q" + A[13:]  # cell 12: row 2, the file's line 3
    path = write(tmp_path, f"{rows(bad_a)}\n/\n{rows(B)}\n")
    err = one_line(*run(command, "duet", path, tmp_path))
    assert err.startswith(f"keystand {command.split()[0]}: {path} line 3: bad card: side A: ")
    assert "character 'Q' at cell 12" in err


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_classic_bad_character_names_the_file_and_its_line(tmp_path: Path, command: str) -> None:
    bad = C[:21] + "B" + C[22:]  # cell 21: row 4, line 5
    path = write(tmp_path, rows(bad) + "\n")
    err = one_line(*run(command, "classic", path, tmp_path))
    assert err.startswith(f"keystand {command.split()[0]}: {path} line 5: bad card: character 'B'")
    assert err.endswith("(blue is U)")


def test_a_short_side_names_the_lines_it_stands_on(tmp_path: Path) -> None:
    path = write(tmp_path, f"{rows(A)}\n/\n{rows(B)[:-6]}\n")  # side B: four rows, lines 7-10
    err = one_line(*run("card show", "duet", path, tmp_path))
    assert err == f"keystand card: {path} lines 7-10: bad card: side B: 20 cells, expected 25"


def test_a_card_on_one_line_names_the_file_only(tmp_path: Path) -> None:
    path = write(tmp_path, f"{A}/{B[:24]}\n")
    err = one_line(*run("card show", "duet", path, tmp_path))
    assert err == f"keystand card: {path}: bad card: side B: 24 cells, expected 25"


def test_a_whole_card_error_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, f"{rows(A)}\n{rows(B)}\n")  # no '/'
    err = one_line(*run("card show", "duet", path, tmp_path))
    assert err.startswith(f"keystand card: {path}: bad card: a Duet card is two sides")


@pytest.mark.parametrize("game", ["duet", "classic"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_empty_card_file_says_it_is_empty(tmp_path: Path, command: str, game: str) -> None:
    path = write(tmp_path, "")
    err = one_line(*run(command, game, path, tmp_path))
    assert err == f"keystand {command.split()[0]}: {path}: is empty, no card text in it"


def test_a_blank_card_file_says_it_is_blank(tmp_path: Path) -> None:
    path = write(tmp_path, "\n  \n")
    err = one_line(*run("card show", "duet", path, tmp_path))
    assert err == f"keystand card: {path}: is blank, no card text in it"


def test_stdin_is_named_stdin(tmp_path: Path) -> None:
    bad_b = B[:20] + "Z" + B[21:]  # side B's cell 20: its fifth row, line 11
    err = one_line(*run("card show", "duet", "-", tmp_path, stdin=f"{rows(A)}\n/\n{rows(bad_b)}"))
    assert err.startswith("keystand card: stdin line 11: bad card: side B: character 'Z'")
    err = one_line(*run("card show", "classic", "-", tmp_path, stdin=""))
    assert err == "keystand card: stdin: is empty, no card text in it"


def test_a_good_card_file_still_reads(tmp_path: Path) -> None:
    path = write(tmp_path, f"{rows(A)}\n/\n{rows(B)}\n")
    status, out, err = run("card show", "duet", path, tmp_path)
    assert (status, err) == (0, "")
    assert out.endswith(f"\ncard {DUET.text}\ncode {DUET.code}\n")
