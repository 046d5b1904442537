"""`keystand card new` and `keystand card show`, called through `keystand.cli.main`.

Exit codes (cli.py): 0 done, 2 a user error with one line on stderr and no
traceback. Card text is docs/design.md's "Contracts"; the distribution is
docs/rules.md's "The table and the key card", counted here independently.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import card_text
import pytest
from notes_table import NOTES_PAIRS

from keystand.cli import main
from keystand.rules import Card, Key

CODE = r"[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}"
CODE_LINE_RE = re.compile(rf"^code ({CODE})$")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def sides(text: str) -> tuple[str, str]:
    """The two sides of a card text, whitespace dropped (docs/design.md "Contracts"), read here."""
    a, b = re.sub(r"\s", "", text).upper().split("/")
    return a, b


def assert_valid_card_text(text: str) -> None:
    a, b = sides(text)
    assert len(a) == len(b) == 25
    assert Counter(a) == Counter(b) == {"G": 9, "X": 3, ".": 13}
    assert Counter(zip(a, b, strict=True)) == NOTES_PAIRS


def make_sides(seed: int) -> tuple[str, str]:
    pairs = [p for p, n in NOTES_PAIRS.items() for _ in range(n)]
    random.Random(seed).shuffle(pairs)
    return "".join(a for a, _ in pairs), "".join(b for _, b in pairs)


def card_of(a: str, b: str) -> Card:
    return Card(tuple(Key(ch) for ch in a), tuple(Key(ch) for ch in b))


REF_A, REF_B = make_sides(11)


def parse_output(out: str) -> tuple[str, str]:
    """The text and code `card new` / `card show` print on their lines of their
    own, `card TEXT` and `code CODE`, below the grids; the grids say the same."""
    printed = card_text.read(out)
    match = CODE_LINE_RE.match(f"code {printed.code}")
    assert match, printed.code
    a, b = sides(printed.text)
    assert card_text.in_table_order(printed.grids["seat A's side"], 5) == a
    assert card_text.in_table_order(printed.grids["seat B's side"], 5) == b
    return printed.text, match.group(1)


def assert_one_line_error(status: int, out: str, err: str) -> str:
    assert status == 2
    assert out == ""
    assert err.endswith("\n")
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err


# --- card new --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 987654321])
def test_card_new_prints_a_valid_card_and_its_code(seed: int) -> None:
    status, out, err = run("card", "new", "--seed", str(seed))
    assert (status, err) == (0, "")
    text, code = parse_output(out)
    assert_valid_card_text(text)
    assert Card.from_code(code) == Card.parse(text)


@pytest.mark.parametrize("seed", [0, 5, 2024])
def test_card_new_same_seed_same_output(seed: int) -> None:
    first = run("card", "new", "--seed", str(seed))
    assert first[0] == 0
    assert run("card", "new", "--seed", str(seed)) == first
    assert (
        run("card", "new", "--seed", str(seed), "--json")[1]
        == run("card", "new", "--seed", str(seed), "--json")[1]
    )


def test_card_new_different_seeds_different_cards() -> None:
    outs = {run("card", "new", "--seed", str(seed))[1] for seed in range(30)}
    assert len(outs) == 30


def test_card_new_without_a_seed_is_random() -> None:
    outs = []
    for _ in range(3):
        status, out, err = run("card", "new")
        assert (status, err) == (0, "")
        text, code = parse_output(out)
        assert_valid_card_text(text)
        assert Card.from_code(code) == Card.parse(text)
        outs.append(out)
    assert len(set(outs)) == 3


@pytest.mark.parametrize("seed", [3, 77])
def test_card_new_json(seed: int) -> None:
    status, out, err = run("card", "new", "--seed", str(seed), "--json")
    assert (status, err) == (0, "")
    assert len(out.splitlines()) == 1
    data = json.loads(out)
    assert set(data) == {"card", "code"}
    assert_valid_card_text(data["card"])
    assert re.fullmatch(CODE, data["code"])
    assert Card.from_code(data["code"]) == Card.parse(data["card"])
    # the same card as the plain output for the same seed
    text, code = parse_output(run("card", "new", "--seed", str(seed))[1])
    assert Card.parse(data["card"]) == Card.parse(text)
    assert data["code"] == code


def test_card_new_in_a_real_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "card", "new", "--seed", "8"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == run("card", "new", "--seed", "8")[1]
    text, code = parse_output(done.stdout)
    assert_valid_card_text(text)
    assert Card.from_code(code) == Card.parse(text)


# --- card show -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"{REF_A}/{REF_B}",
        f"{REF_A.lower()} / {REF_B.lower()}",
        "\n".join(REF_A[i : i + 5] for i in range(0, 25, 5))
        + "\n/\n"
        + "\n".join(" ".join(REF_B[i : i + 5]) for i in range(0, 25, 5)),
    ],
    ids=["compact", "lowercase", "rows"],
)
def test_card_show_text(text: str) -> None:
    status, out, err = run("card", "show", "--card", text)
    assert (status, err) == (0, "")
    shown, code = parse_output(out)
    assert sides(shown) == (REF_A, REF_B)
    assert Card.from_code(code) == card_of(REF_A, REF_B)


def test_card_show_file(tmp_path: Path) -> None:
    path = tmp_path / "card.txt"
    a_rows = "\n".join(REF_A[i : i + 5] for i in range(0, 25, 5))
    b_rows = "\n".join(REF_B[i : i + 5] for i in range(0, 25, 5))
    path.write_text(f"{a_rows}\n/\n{b_rows}\n", encoding="utf-8")
    status, out, err = run("card", "show", "--card-file", str(path))
    assert (status, err) == (0, "")
    shown, code = parse_output(out)
    assert sides(shown) == (REF_A, REF_B)
    assert Card.from_code(code) == card_of(REF_A, REF_B)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("form", ["as-printed", "lowercase", "no-hyphens", "spaces"])
def test_card_show_code_prints_the_card_whose_code_it_is(seed: int, form: str) -> None:
    a, b = make_sides(seed)
    card = card_of(a, b)
    code = card.code
    typed = {
        "as-printed": code,
        "lowercase": code.lower(),
        "no-hyphens": code.replace("-", ""),
        "spaces": code.replace("-", " "),
    }[form]
    status, out, err = run("card", "show", "--card-code", typed)
    assert (status, err) == (0, "")
    shown, shown_code = parse_output(out)
    assert sides(shown) == (a, b)
    assert shown_code == code
    assert Card.parse(shown).code == code


def test_card_show_of_a_new_card_code_gives_the_same_card() -> None:
    text, code = parse_output(run("card", "new", "--seed", "4242")[1])
    status, out, err = run("card", "show", "--card-code", code)
    assert (status, err) == (0, "")
    assert parse_output(out) == (text, code)


def test_card_show_json() -> None:
    card = card_of(REF_A, REF_B)
    status, out, err = run("card", "show", "--card-code", card.code.lower(), "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert set(data) == {"card", "code"}
    assert sides(data["card"]) == (REF_A, REF_B)
    assert data["code"] == card.code


# --- card show refuses bad input: exit 2, one line, no traceback ------------------------------


def _bad_cards() -> list[tuple[str, str, str]]:
    """(id, card text, a word the message must contain)."""
    wrong_char = REF_A[:12] + "Q" + REF_A[13:]
    a_list = list(REF_A)
    a_list[a_list.index("X")] = "G"  # side A: 10 agents, 2 assassins
    # side B swapped between a G/G and a ./. cell: sides fine, pairs off
    b_list = list(REF_B)
    i = next(k for k in range(25) if (REF_A[k], REF_B[k]) == ("G", "G"))
    j = next(k for k in range(25) if (REF_A[k], REF_B[k]) == (".", "."))
    b_list[i], b_list[j] = b_list[j], b_list[i]
    return [
        ("wrong-char", f"{wrong_char}/{REF_B}", "'Q'"),
        ("short-side-b", f"{REF_A}/{REF_B[:24]}", "side B"),
        ("long-side-a", f"{REF_A}G/{REF_B}", "side A"),
        ("no-slash", REF_A + REF_B, "/"),
        ("two-slashes", f"{REF_A}/{REF_B}/", "/"),
        ("counts", f"{''.join(a_list)}/{REF_B}", "side A"),
        ("pairs", f"{REF_A}/{''.join(b_list)}", "side B"),
        ("empty", "", "/"),
    ]


@pytest.mark.parametrize(
    ("text", "word"), [c[1:] for c in _bad_cards()], ids=[c[0] for c in _bad_cards()]
)
def test_card_show_bad_card(text: str, word: str) -> None:
    err = assert_one_line_error(*run("card", "show", "--card", text))
    assert word in err


def test_card_show_bad_card_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "card.txt"
    path.write_text(f"{REF_A}\n/\n{REF_B[:20]}\n", encoding="utf-8")
    err = assert_one_line_error(*run("card", "show", "--card-file", str(path)))
    assert "side B" in err


def test_card_show_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.txt"
    err = assert_one_line_error(*run("card", "show", "--card-file", str(path)))
    assert "nowhere.txt" in err


def _typo(code: str) -> str:
    k = 6
    wrong = "0" if code[k] != "0" else "1"
    return code[:k] + wrong + code[k + 1 :]


@pytest.mark.parametrize(
    ("code", "word"),
    [
        (_typo(card_of(REF_A, REF_B).code), "check"),
        ("0000-0000-000", "11"),
        ("0000-0000-00000", "13"),
        ("0000-U000-0000", "U"),
        ("", "0"),
    ],
    ids=["typo", "short", "long", "bad-symbol", "empty"],
)
def test_card_show_bad_code(code: str, word: str) -> None:
    err = assert_one_line_error(*run("card", "show", "--card-code", code))
    assert word in err


@pytest.mark.parametrize(
    "argv",
    [
        ["card", "show"],
        ["card", "new", "--seed", "not-a-number"],
        ["card", "show", "--card", "x", "--card-code", "y"],
    ],
    ids=["no-source", "bad-seed", "two-sources"],
)
def test_bad_arguments_are_a_one_line_error(argv: list[str]) -> None:
    assert_one_line_error(*run(*argv))


def test_a_negative_seed_is_refused() -> None:
    """random.Random seeds with abs(): -5 would silently give the card of 5."""
    err = assert_one_line_error(*run("card", "new", "--seed", "-5"))
    assert "seed -5: expected 0 or more" in err


def test_a_card_file_with_a_byte_order_mark_reads(tmp_path) -> None:
    from keystand.rules.cardcode import unrank

    card = unrank(12345)
    path = tmp_path / "card.txt"
    path.write_text(card.text, encoding="utf-8-sig")
    code, out, err = run("card", "show", "--card-file", str(path))
    assert (code, err) == (0, "")
    assert f"code {card.code}" in out


# --- what the text says: each seat's side, labelled in table coordinates ---------------------

# `keystand card new --seed 7` as README "The command line" shows it, to the byte.
SEED_7 = """\
Duet key card: both sides in table order, as seat A sees the table (row 0
farthest from seat A, column 0 seat A's leftmost). Seat B sits across the
table: its screen shows its side turned a half turn (row 4 at the top, column 4
at the left). A script's touch R C names the word at row R, column C.

        seat A's side   seat B's side
column  0 1 2 3 4       0 1 2 3 4
row 0   . . . G X       . . G . X
row 1   . . . X .       . . X . G
row 2   G . X . G       . . G G X
row 3   G . G G .       . G G . G
row 4   . G G G .       . G G . .

G agent, X assassin, . bystander
card ...GX ...X. G.X.G G.GG. .GGG. / ..G.X ..X.G ..GGX .GG.G .GG..
code YAKM-S9ED-D1RD
"""
README = Path(__file__).resolve().parent.parent / "README.md"


def test_card_new_prints_each_seats_side_labelled_as_readme_shows() -> None:
    assert run("card", "new", "--seed", "7") == (0, SEED_7, "")
    assert run("card", "show", "--card-code", "yakm s9ed d1rd") == (0, SEED_7, "")
    assert f"```text\n$ .venv/bin/keystand card new --seed 7\n{SEED_7}```\n" in README.read_text()


def test_the_json_is_the_contract_as_before() -> None:
    """`--json` stays byte for byte what it was: {card, code}, the card text as
    before the grids were labelled."""
    expected = (
        '{"card": "...GX ...X. G.X.G G.GG. .GGG. / ..G.X ..X.G ..GGX .GG.G .GG..", '
        '"code": "YAKM-S9ED-D1RD"}\n'
    )
    assert run("card", "new", "--seed", "7", "--json") == (0, expected, "")
    assert run("card", "show", "--card-code", "YAKM-S9ED-D1RD", "--json") == (0, expected, "")


@pytest.mark.parametrize("seed", range(8))
def test_the_labels_are_where_touch_r_c_lands(seed: int, tmp_path: Path) -> None:
    """Each seat's assassins, read off its printed grid by the labels, are where
    `keystand play`'s `touch R C` meets them when that seat gives the clue."""
    printed = card_text.read(run("card", "new", "--seed", str(seed))[1])
    assert list(printed.grids) == ["seat A's side", "seat B's side"]
    for seat in "AB":
        grid = printed.grids[f"seat {seat}'s side"]
        assert sorted(grid) == [(r, c) for r in range(5) for c in range(5)]
        assassins = [rc for rc, mark in grid.items() if mark == "X"]
        assert len(assassins) == 3
        for row, col in assassins:
            script = tmp_path / "game.txt"
            script.write_text(f"clue {seat}\ntouch {row} {col}\n")
            out = io.StringIO()
            argv = ["play", "--card-code", printed.code, "--script", str(script), "--json"]
            assert main(argv, out=out, err=io.StringIO()) == 0
            assert json.loads(out.getvalue())["reason"] == "assassin", (seat, row, col)


def test_the_legend_names_every_mark_and_the_words_say_how_b_sees_its_side(
    tmp_path: Path,
) -> None:
    printed = card_text.read(run("card", "new", "--seed", "3")[1])
    marks = {m for grid in printed.grids.values() for m in grid.values()}
    assert marks == {"G", "X", "."}
    names = dict(part.split(" ", 1) for part in printed.legend.split(", "))
    assert names == {"G": "agent", "X": "assassin", ".": "bystander"}
    # What the words say of seat B's screen is what `render` draws: row 4 at the
    # top, column 4 at the left (the half turn), and seat A's upright.
    assert "(row 4 at the top, column 4 at the left)" in printed.about
    for seat, top_left in (("A", 0), ("B", 24)):
        out = io.StringIO()
        argv = ["render", "--card-code", printed.code, "--seat", seat, "--panel", "epd2in9_V2"]
        argv += ["--out", str(tmp_path / f"{seat}.png"), "--geometry"]
        assert main(argv, out=out, err=io.StringIO()) == 0
        boxes = {int(i): box for i, box in json.loads(out.getvalue()).items()}
        assert min(boxes, key=lambda i: (boxes[i][1], boxes[i][0])) == top_left
