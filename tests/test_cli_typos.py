"""A misspelt option or command is named, with the nearest one the command
knows, for every subcommand: not argparse's "the following arguments are
required: --script" for `play --scrpt game.txt`."""

from __future__ import annotations

import argparse
from io import StringIO

import pytest

from keystand import cli


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path the parser takes (`card new`, `profile check`, ...)."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += commands(sub, (*path, name)) or [(*path, name)]
    return out


def parser_of(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = cli._parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def misspelt(option: str) -> str:
    """`--script` -> `--csript`: its first two letters swapped."""
    return f"--{option[3]}{option[2]}{option[4:]}"


CASES = [
    (path, option)
    for path in commands(cli._parser())
    for option in parser_of(path)._option_string_actions
    if option.startswith("--") and option != "--help" and option[2] != option[3]
]


def test_every_command_has_options_to_misspell() -> None:
    assert {path[0] for path, _ in CASES} >= {"play", "render", "run", "card", "history"}


@pytest.mark.parametrize(
    ("path", "option"), CASES, ids=lambda v: " ".join(v) if isinstance(v, tuple) else v
)
def test_a_misspelt_option_is_named_with_the_one_meant(path: tuple[str, ...], option: str) -> None:
    err = StringIO()
    assert cli.main([*path, misspelt(option), "1"], out=StringIO(), err=err) == cli.EXIT_USAGE
    assert err.getvalue() == (
        f"keystand: unknown option {misspelt(option)}: did you mean {option}? "
        f"(see keystand {' '.join(path)} --help)\n"
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["plya"], "unknown command plya: did you mean play? (see keystand --help)"),
        (["card", "nwe"], "unknown command nwe: did you mean new? (see keystand card --help)"),
        (["zzz"], "unknown command zzz (see keystand --help)"),
        (["play", "--zzz"], "unknown option --zzz (see keystand play --help)"),
    ],
)
def test_a_misspelt_command_is_named(argv: list[str], said: str) -> None:
    err = StringIO()
    assert cli.main(argv, out=StringIO(), err=err) == cli.EXIT_USAGE
    assert err.getvalue() == f"keystand: {said}\n"


def test_an_abbreviation_argparse_takes_is_not_called_a_typo() -> None:
    err = StringIO()
    cli.main(["play", "--scr", "x.txt"], out=StringIO(), err=err)  # --script, abbreviated
    assert "unknown" not in err.getvalue()
