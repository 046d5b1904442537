"""`keystand play` as other tools call it: the real command in a subprocess.

The contract is docs/design.md "Contracts".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command import keystand

from keystand.rules import DISTRIBUTION, Card, Key

G, X, B_ = Key.AGENT, Key.ASSASSIN, Key.BYSTANDER

PLAY_FIELDS = {
    "status",
    "reason",
    "phase",
    "clue_giver",
    "guesser",
    "turns_left",
    "mistakes_left",
    "agents_found",
    "covered",
    "misses",
    "passes",
    "score",
    "rejected",
}


def build_card(fixed: dict[int, tuple[Key, Key]]) -> Card:
    """A valid card with the given (side A, side B) pairs at the given cells,
    the rest of the distribution filled in cell order."""
    left = dict(DISTRIBUTION)
    for pair in fixed.values():
        left[pair] -= 1
        assert left[pair] >= 0, f"too many {pair} cells asked for"
    rest = [pair for pair, n in left.items() for _ in range(n)]
    pairs = [fixed[i] if i in fixed else rest.pop() for i in range(25)]
    return Card(tuple(a for a, _ in pairs), tuple(b for _, b in pairs))


def script(tmp_path: Path, text: str) -> str:
    p = tmp_path / "game.txt"
    p.write_text(text, encoding="utf-8")
    return str(p)


# The table of the English rulebook's "Example Of Play" ("You" sit at seat A).
WORDS = {
    "RANCH": (0, 0),
    "RUSSIA": (0, 1),
    "NAPOLEON": (1, 2),
    "RIFLE": (1, 3),
    "DOLL": (2, 0),
    "ANT": (2, 4),
    "LUNCH": (3, 1),
    "CAESAR": (3, 3),
    "LEMONADE": (4, 2),
}


def cell_of(word: str) -> int:
    r, c = WORDS[word]
    return 5 * r + c


def test_rulebook_example_of_play(tmp_path: Path) -> None:
    """duet-rules-en.txt "Example Of Play", from "You say salad: 3" to "Your partner
    ends the turn by taking a timer token from the time bank. You have 6 turns left"."""
    card = build_card(
        {
            cell_of("RANCH"): (G, B_),  # "You cover RANCH with a green agent card"
            cell_of("RUSSIA"): (B_, G),  # tan for you; "RUSSIA was also green on her side"
            cell_of("NAPOLEON"): (G, G),  # "That word happened to be green on your side, too"
            cell_of("RIFLE"): (B_, G),  # what she meant with Waterloo: 2
            cell_of("DOLL"): (G, B_),
            cell_of("ANT"): (G, B_),
            cell_of("LUNCH"): (G, B_),
            cell_of("CAESAR"): (G, B_),
            cell_of("LEMONADE"): (X, B_),  # "that word is an assassin"
        }
    )

    def touch(word: str) -> str:
        r, c = WORDS[word]
        return f"touch {r} {c}  # {word}"

    game = "\n".join(
        [
            "clue A        # You say salad: 3",
            touch("RANCH"),
            touch("RUSSIA") + " - the incorrect guess ends the turn",
            "clue B        # she says Waterloo: 2",
            touch("NAPOLEON"),
            touch("RUSSIA"),
            "pass A        # you take a timer token",
            "clue A        # miniature: 2",
            touch("DOLL"),
            touch("LUNCH"),
            touch("CAESAR"),
            touch("ANT"),
            "pass B        # your partner ends the turn",
        ]
    )
    done = keystand("play", "--card", card.text, "--script", script(tmp_path, game), "--json")
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert set(state) == PLAY_FIELDS
    assert state["turns_left"] == 6  # "You have 6 turns left"
    # 9-9: every token is bystander side up, so each one taken is also a mistake gone.
    assert state["mistakes_left"] == 6
    assert state["agents_found"] == 7
    found = {"RANCH", "NAPOLEON", "RUSSIA", "DOLL", "LUNCH", "CAESAR", "ANT"}
    assert state["covered"] == sorted(cell_of(w) for w in found)
    # "You mark RUSSIA with a timer token ... The arrow points from you to your partner."
    assert state["misses"] == {"A": [], "B": [cell_of("RUSSIA")]}
    assert state["passes"] == 2
    assert (state["status"], state["reason"], state["phase"]) == ("playing", None, "awaiting_clue")
    # Clues alternate: she gave none since "miniature", so it is her turn to give one.
    assert (state["clue_giver"], state["guesser"]) == ("B", "A")
    assert state["score"] is None
    assert state["rejected"] == []


def test_rejections_are_listed_with_line_and_reason(tmp_path: Path) -> None:
    card = build_card({0: (G, B_), 1: (X, B_)})
    game = "# comments and blank lines are not events\n\ntouch 0 0\nclue A\npass B\n"
    done = keystand("play", "--card", card.text, "--script", script(tmp_path, game), "--json")
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert state["rejected"] == [
        {"line": 3, "event": "touch 0 0", "reason": "no_clue"},
        {"line": 5, "event": "pass B", "reason": "pass_before_guess"},
    ]
    assert state["phase"] == "guessing"


def test_lost_game_exits_zero_and_says_why(tmp_path: Path) -> None:
    card = build_card({0: (X, B_)})
    done = keystand(
        "play", "--card", card.text, "--script", script(tmp_path, "clue A\ntouch 0 0\n"), "--json"
    )
    assert done.returncode == 0
    state = json.loads(done.stdout)
    assert (state["status"], state["reason"], state["phase"]) == ("lost", "assassin", "over")


def test_card_code_and_mission_are_taken(tmp_path: Path) -> None:
    card = build_card({0: (G, B_), 1: (B_, B_)})
    game = "clue A\ntouch 0 0\npass B\nclue B\ntouch 0 1\n"
    done = keystand(
        "play",
        "--card-code",
        card.code,
        "--script",
        script(tmp_path, game),
        "--mission",
        "9-5",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    # 9-5: 4 check tokens and 5 bystander tokens; the pass takes a check token,
    # the miss a bystander token.
    assert (state["turns_left"], state["mistakes_left"]) == (7, 4)
    assert state["misses"] == {"A": [1], "B": []}


def test_loose_order_flag(tmp_path: Path) -> None:
    card = build_card({0: (G, B_), 1: (G, B_)})
    game = "clue A\ntouch 0 0\npass B\nclue A\n"
    strict = keystand("play", "--card", card.text, "--script", script(tmp_path, game), "--json")
    loose = keystand(
        "play", "--card", card.text, "--script", script(tmp_path, game), "--json", "--loose-order"
    )
    assert json.loads(strict.stdout)["rejected"] == [
        {"line": 4, "event": "clue A", "reason": "clue_out_of_turn"}
    ]
    assert json.loads(loose.stdout)["rejected"] == []


def test_script_from_stdin() -> None:
    card = build_card({0: (G, B_)})
    done = keystand(
        "play", "--card", card.text, "--script", "-", "--json", stdin="clue B\ntouch 4 4\n"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["guesser"] == "A"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("touch 5 0", "rows and columns are 0..4"),
        ("touch a b", "ROW and COL are numbers"),
        ("clue C", "expected A or B"),
        ("pass", "pass A|B"),
        ("guess 1 1", "unknown event 'guess'"),
        # the list is what play takes: no press or wait line (tests/test_cli_stand_lines.py)
        ("bogus", "unknown event 'bogus' (expected touch, clue, pass, undo, penalty)"),
        ("undo now", "expected 'undo'"),
    ],
)
def test_bad_script_line_exits_2_naming_the_line(tmp_path: Path, line: str, says: str) -> None:
    card = build_card({})
    path = script(tmp_path, f"clue A\n# fine so far\n{line}\n")
    done = keystand("play", "--card", card.text, "--script", path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"{path} line 3:" in done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--card", "GGG / ..."], "side A: 3 cells, expected 25"),
        (["--card-code", "0000-0000-0001"], "card code"),
        (["--card-file", "/nonexistent/card.txt"], "cannot read card file"),
    ],
)
def test_bad_card_exits_2(tmp_path: Path, args: list[str], says: str) -> None:
    done = keystand("play", *args, "--script", script(tmp_path, "clue A\n"), "--json")
    assert done.returncode == 2
    assert says in done.stderr
    assert "Traceback" not in done.stderr


def test_unreadable_script_and_bad_mission_exit_2(tmp_path: Path) -> None:
    card = build_card({})
    missing = keystand("play", "--card", card.text, "--script", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2
    assert "cannot read script" in missing.stderr
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00clue A")
    undecodable = keystand("play", "--card", card.text, "--script", str(binary))
    assert undecodable.returncode == 2
    assert "bin.txt line 1: not UTF-8 text (byte 0xff at column 1)" in undecodable.stderr
    bad = keystand(
        "play", "--card", card.text, "--script", script(tmp_path, ""), "--mission", "9-10"
    )
    assert bad.returncode == 2
    assert "mission '9-10'" in bad.stderr
    assert "Traceback" not in missing.stderr + undecodable.stderr + bad.stderr


def test_text_output_for_people(tmp_path: Path) -> None:
    card = build_card({0: (G, B_)})
    done = keystand("play", "--card", card.text, "--script", script(tmp_path, "touch 0 0\n"))
    assert done.returncode == 0
    assert "rejected: line 1 'touch 0 0': no clue has been given" in done.stdout
    assert "turns left 9, mistakes left 9" in done.stdout
