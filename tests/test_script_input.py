"""Script text through the real `keystand play` and `keystand run` processes: one
rule for files and standard input (drivers/inputs/script.py): UTF-8 with a leading
byte-order mark allowed, lines end at `\\n` or `\\r\\n` only, no other control
character in a line, and every refusal is one short line naming the line, exit 2.

The processes run under a strict UTF-8 locale (C.UTF-8, no UTF-8 mode), the
default of most desktops, where reading standard input as text would raise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from keystand.drivers.inputs import ScriptLineError, parse_script
from keystand.rules import generate

CODE = generate(5).code
STRICT = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONUTF8", "PYTHONIO"))},
    "LC_ALL": "C.UTF-8",
    "PYTHONUTF8": "0",
}


def play(
    *args: str, stdin: bytes = b"", timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "keystand", "play", "--card-code", CODE, *args],
        input=stdin,
        capture_output=True,
        env=STRICT,
        timeout=timeout,
    )


def one_line_error(result: subprocess.CompletedProcess[bytes]) -> str:
    """The one line a refused script prints: exit 2, no traceback."""
    assert result.returncode == 2, result.stderr
    err = result.stderr.decode("utf-8")
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


def test_binary_on_stdin_is_refused_naming_the_line():
    result = play("--script", "-", stdin=b"clue A\ntouch 0 0\n\xff\xfe\x00 junk\n")
    err = one_line_error(result)
    assert "stdin line 3: not UTF-8 text (byte 0xff at column 1)" in err


def test_a_byte_order_mark_on_stdin_reads_as_in_a_file(tmp_path):
    text = "\ufeffclue A\ntouch 0 0\n".encode()
    from_stdin = play("--script", "-", "--json", stdin=text)
    path = tmp_path / "bom.txt"
    path.write_bytes(text)
    from_file = play("--script", str(path), "--json")
    assert from_stdin.returncode == from_file.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)
    assert json.loads(from_stdin.stdout)["phase"] != "awaiting_clue"  # the clue counted


@pytest.mark.parametrize(
    ("char", "name"),
    [
        ("\f", "U+000C"),
        ("\v", "U+000B"),
        ("\x00", "U+0000"),
        ("\x85", "U+0085"),
        ("\u2028", "U+2028 line separator"),
        ("\u2029", "U+2029 paragraph separator"),
        ("\r", "U+000D"),
    ],
)
def test_a_control_character_inside_a_line_is_refused_naming_the_line(tmp_path, char, name):
    """A form feed or U+2028 must not split one line into two events (the line numbers
    after it would be wrong, and one line would become two)."""
    path = tmp_path / "game.txt"
    path.write_text(f"clue A\n# a comment\ntouch 0 0{char}touch 1 1\npass B\n", encoding="utf-8")
    err = one_line_error(play("--script", str(path)))
    assert "line 3:" in err and name in err


def test_crlf_and_tabs_are_fine(tmp_path):
    path = tmp_path / "game.txt"
    path.write_bytes(b"clue A\r\ntouch\t0 0\r\n\r\n")
    result = play("--script", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["rejected"] == []


def test_a_ten_megabyte_bad_line_gives_a_short_message(tmp_path):
    path = tmp_path / "huge.txt"
    path.write_bytes(b"clue A\ntouch " + b"9" * 10_000_000 + b" 1\n")
    err = one_line_error(play("--script", str(path)))
    assert len(err) < 200, err
    assert "line 2:" in err and "characters" in err


def test_a_binary_file_is_reported_by_line(tmp_path):
    path = tmp_path / "image.png"
    path.write_bytes(b"clue A\ntouch 0 0\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8")
    err = one_line_error(play("--script", str(path)))
    assert f"{path} line 3:" in err
    assert len(err) < 200


def test_keystand_run_reads_stdin_by_the_same_rule(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "keystand",
            "run",
            "--no-page",
            "--state-dir",
            str(tmp_path / "state"),
            "--script",
            "-",
        ],
        input=b"clue A\ntouch 0 0" + "\u2028".encode() + b"touch 1 1\n",
        capture_output=True,
        env=STRICT,
        timeout=60,
    )
    err = one_line_error(result)
    assert "stdin line 2:" in err and "U+2028" in err


def test_a_hundred_thousand_events_finish(tmp_path):
    """Linear time: N events cost O(N) to apply. Bounded by nothing but the time-out
    (the figure is in BENCHMARKS.md, measured by bench/rules_bench.py)."""
    turn = ["clue A", "touch 0 0", "undo", "undo", "clue B", "penalty", "undo", "undo"]
    lines = (turn * (100_000 // len(turn)))[:100_000]
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = play("--script", str(path), "--json", timeout=600)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["status"] == "playing" and state["phase"] == "awaiting_clue"
    assert state["turns_left"] == 9 and state["rejected"] == []


def test_the_parser_takes_text_and_bytes_alike():
    text = "clue A\r\ntouch 1 2 # a comment\n"
    assert (
        parse_script(text)
        == parse_script(text.encode())
        == parse_script(b"\xef\xbb\xbf" + text.encode())
    )
    with pytest.raises(ScriptLineError) as e:
        parse_script("clue A\ntouch 1\u20282\n", source="s.txt")
    assert (e.value.line, e.value.source) == (2, "s.txt")


def test_an_unknown_word_lists_every_line_run_takes():
    """`keystand run --script` takes every line: the list names them all."""
    with pytest.raises(ScriptLineError) as e:
        parse_script("bogus\n", source="s.txt")
    assert str(e.value) == (
        "s.txt line 1: 'bogus': unknown event 'bogus' "
        "(expected touch, clue, pass, undo, penalty, press, wait)"
    )


def test_every_line_number_is_the_editors(tmp_path: Path):
    """The line a message names is the line an editor shows: only `\\n` ends a line."""
    with pytest.raises(ScriptLineError) as e:
        parse_script(b"clue A\n\n# x\r\n\ntouch 5 5\n")
    assert e.value.line == 5


@pytest.mark.parametrize(
    "line",
    [
        "touch \u0662 \u0663",
        "touch \uff12 3",
        "touch +2 3",
        "touch 1_0 2",
        "wait \u0665\u0660\u0660",
        "wait +500",
        "wait 1_000",
    ],
)
def test_a_scripts_numbers_are_ascii_digits_as_a_card_codes_are(line: str) -> None:
    """Issue 35: int() takes Arabic-Indic and fullwidth digits, signs and
    underscores, so Arabic-Indic `touch 2 3` played as `touch 2 3`. Every reader refuses them:
    the stand's script, and each game's script for play and render."""
    from keystand import games
    from keystand.script import ScriptError

    with pytest.raises(ScriptLineError, match="line 1: "):
        parse_script(line + "\n")
    for game in games.SHIPPED:
        with pytest.raises(ScriptError, match="line 1: "):
            games.get(game).input_script(line + "\n")
        if line.startswith("touch"):
            with pytest.raises(ScriptError, match="line 1: "):
                games.get(game).script(line + "\n")


def test_a_journal_record_of_look_alike_digits_is_not_replayed_as_a_touch() -> None:
    from keystand.rules import EventError, parse_event
    from keystand.rules.classic_events import parse_event as classic_event

    for parse in (parse_event, classic_event):
        assert str(parse("touch 2 3")) == "touch 2 3"
        with pytest.raises(EventError, match="ROW and COL are numbers"):
            parse("touch \u0662 \u0663")  # Arabic-Indic 2 and 3
