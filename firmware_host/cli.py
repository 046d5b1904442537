"""The `keystand` command line. `main(argv)` returns the exit code; it never exits itself.

Exit codes: 0 done (a lost game too), 2 a user error (bad card, script,
mission or arguments), 6 hardware the machine lacks (no GPIO chip, SPI off, not
a Pi), 1 hardware busy for now (a GPIO line another program holds); each with
one line on stderr and no traceback.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeAlias

from . import games
from .cliutil import (
    EXIT_USAGE,
    GAME_HELP,
    GAMES_SAID,
    HardwareError,
    InUse,
    Parser,
    UsageError,
    add_card_source,
    add_game,
    add_game_options,
    game_options,
    load_card,
    path_arg,
    read_bytes,
)
from .rules import KeystandError
from .script import line_by_line

if TYPE_CHECKING:
    Subparsers: TypeAlias = argparse._SubParsersAction[Parser]


def _add_game(p: argparse.ArgumentParser) -> None:
    add_game(p, default=games.DEFAULT, help=GAME_HELP)


__all__ = ["EXIT_USAGE", "UsageError", "main"]


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r}: expected a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed {value}: expected 0 or more")
    return value


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"limit {text!r}: expected a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"limit {value}: expected 1 or more")
    return value


# The subcommands defined in modules of their own, by command: only the one asked
# for is imported (`keystand card new` and `play` load no Pillow, no drivers).
MODULES = {"run": "run", "render": "render", "profile": "profilecheck", "doctor": "doctor"}
COMMANDS = ("card", "play", *MODULES, "state", "history")


def _records() -> dict[str, games.Record]:
    """The commands of the games' records (`Game.record`: Duet's `keystand
    campaign`), by name: read only for a command that is none of COMMANDS, as
    they load every game. A game installed beside keystand that cannot be loaded
    offers none (`--game` naming it says why), so --help still lists the rest."""
    found: dict[str, games.Record] = {}
    for name in games.names():
        try:
            kind = games.get(name).record
        except games.GameError:
            continue
        if kind is not None and kind.name not in COMMANDS:
            found.setdefault(kind.name, kind)
    return found


DISTRIBUTION = "keystand"  # pyproject.toml's [project] name


class _Version(argparse.Action):
    """`keystand --version`: the installed distribution's version (pyproject.toml's,
    as pip recorded it), looked up only when asked: importlib.metadata would add
    its import to every command's start."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version(DISTRIBUTION)
        except PackageNotFoundError:
            parser.error(f"--version: no {DISTRIBUTION} distribution installed (pip install .)")
        print(f"{parser.prog} {found}", file=sys.stdout)  # as argparse's --help prints
        parser.exit()


def _module(command: str) -> types.ModuleType:
    return importlib.import_module(f".{MODULES[command]}", __package__)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; for a `command` named right, only that command's parser is built
    and only its own module imported (else every one: --help, a typo's suggestion)."""
    p = Parser(
        prog="keystand",
        description="keystand: a referee and per-seat key-card screens for Codenames games "
        f"({GAMES_SAID}).",
    )
    p.add_argument("--version", action=_Version, help="print keystand's version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        if command in (None, name):
            if name in MODULES:
                _module(name).add_parser(sub)
            else:
                OWN_PARSERS[name](sub)
    if command not in COMMANDS:
        for name, kind in _records().items():
            if command in (None, name):
                _record_parser(sub, kind)
    return p


def _card_parser(sub: Subparsers) -> None:
    card = sub.add_parser("card", help="make or show key cards")
    card_sub = card.add_subparsers(dest="card_command", required=True, metavar="ACTION")
    new = card_sub.add_parser(
        "new",
        help="a random valid card: each side's grid (rows, columns, legend), its text and "
        "its code (the same seed, the same card)",
    )
    new.add_argument(
        "--seed", type=_seed, help="a whole number from 0; omit for a fresh random card"
    )
    new.add_argument("--json", action="store_true", help="print {card, code} as JSON")
    _add_game(new)
    show = card_sub.add_parser(
        "show",
        help="check a card and print each side's grid (rows, columns, legend), its text "
        "and its code",
    )
    add_card_source(show)
    show.add_argument("--json", action="store_true", help="print {card, code} as JSON")
    _add_game(show)


def _play_parser(sub: Subparsers) -> None:
    play = sub.add_parser(
        "play",
        help="run a script of events through the referee and print the state",
        description="Run a script (one event a line, # comments; each game's own events) "
        "through the game's referee and print "
        "the state after it. The referee alone has no keys and no clock: press and wait "
        "lines are keystand run's, and refused here by line.",
    )
    add_card_source(play)
    play.add_argument("--script", required=True, metavar="FILE", help="script file, - for stdin")
    add_game_options(play)  # each game's own (Duet's --mission, --loose-order, --first)
    play.add_argument("--json", action="store_true", help="print the state as one JSON object")
    _add_game(play)


def _state_parser(sub: Subparsers) -> None:
    state = sub.add_parser(
        "state", help="the current game of a state dir, as `keystand play --json` prints it"
    )
    state.add_argument("--state-dir", type=path_arg, help="default: the service's state dir")
    state.add_argument("--json", action="store_true", help="print one JSON object")


def _history_parser(sub: Subparsers) -> None:
    history = sub.add_parser("history", help="finished games, newest first")
    history.add_argument("--state-dir", type=path_arg, help="default: the service's state dir")
    history.add_argument("--limit", type=_limit, default=20, help="how many (default 20)")
    history.add_argument("--json", action="store_true", help="one JSON object per line")


def _record_parser(sub: Subparsers, kind: games.Record) -> None:
    """A game's record's command, named and described as the game declares it."""
    name = kind.name
    p = sub.add_parser(name, help=kind.help, description=kind.description or None)
    p.add_argument("--state-dir", type=path_arg, help="default: the service's state dir")
    p.add_argument("--all", action="store_true", help=f"every {name}, finished ones too")
    p.add_argument("--json", action="store_true", help=f"one JSON object per {name}")
    p.set_defaults(record_kind=kind)


OWN_PARSERS: dict[str, Callable[[Subparsers], None]] = {
    "card": _card_parser,
    "play": _play_parser,
    "state": _state_parser,
    "history": _history_parser,
}


def _play(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    """`keystand play`: a script through the game's referee, the state after it."""
    game = games.get(args.game)
    card = load_card(args, stdin, game)
    assert card is not None  # the card source is required
    state = game.start(card, game_options(args, game))
    source = "stdin" if args.script == "-" else args.script
    data = read_bytes(args.script, "script", stdin)
    refused, steps = [], 0

    def read(text: str) -> list[Any]:
        return game.script(text, source=source)

    # One line at a time: a big script is never held parsed whole (a bad line
    # stops it all the same, exit 2, before anything is printed).
    for number, step in line_by_line(data, read, source=source):
        state, result = state.apply(step.event)
        steps += 1
        if games.refused(result):
            refused.append((number, result))
    rejected = [
        {"line": line, "event": str(r.event), "reason": r.reason.value} for line, r in refused
    ]
    if args.json:
        import json  # only for --json: a plain start does without it

        json.dump(game.summary(state, rejected), out)
        out.write("\n")
        return 0
    for line in game.play_lines(state, steps):
        print(line, file=out)
    print(game.text_board(state), file=out)
    print(f"  ({game.legend})", file=out)
    for number, r in refused:
        print(f"rejected: line {number} {str(r.event)!r}: {r.message}", file=out)
    return 0


def _card(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    game = games.get(args.game)
    card = game.generate(args.seed) if args.card_command == "new" else load_card(args, stdin, game)
    assert card is not None
    if args.json:
        import json

        json.dump({"card": card.text, "code": card.code}, out)
        out.write("\n")
        return 0
    print(games.key_card_text(game, card), file=out)
    return 0


def _state_dir(args: argparse.Namespace) -> Path:
    """An existing state dir to read (read-only commands create nothing)."""
    from .store import default_state_dir

    root: Path = args.state_dir or default_state_dir()
    if not root.is_dir():
        what = "is not a directory" if root.exists() else "does not exist"
        raise UsageError(f"state dir {str(root)!r} {what} (is it the service's state dir?)")
    return root


def _state_file(root: Path, name: str) -> Path:
    """A file of the state dir to read: a folder or a pipe where it should be is
    one line, not a traceback (or a read that never ends)."""
    path = root / name
    if path.exists() and not path.is_file():
        raise UsageError(f"{str(path)!r} is not a file (keystand writes it: move it away)")
    return path


def _state(args: argparse.Namespace, out: TextIO) -> int:
    from .store import CURRENT, Store

    root = _state_dir(args)
    journal = _state_file(root, CURRENT)
    try:
        found = Store.reader(root).peek()  # read only: the service may be running
    except OSError as e:
        raise UsageError(f"cannot read {str(journal)!r}: {e.strerror or e}") from e
    if found is None:
        raise UsageError(f"no game in {root} (is it the service's state dir?)")
    state, game_id = found
    game = games.of_state(state)
    if args.json:
        import json

        json.dump(game.summary(state), out)
        out.write("\n")
        return 0
    for line in game.state_lines(state, game_id):
        print(line, file=out)
    print(game.text_board(state), file=out)
    print(f"  ({game.legend})", file=out)
    return 0


def _ending(entry: dict[str, Any]) -> str:
    """How a finished game ended, in its game's words (`--json` keeps the codes); a
    line of a game not installed now, plainly. A line naming no game is Duet's."""
    name = str(entry.get("game", games.DEFAULT))
    return games.get(name).ended_words(entry) if games.known(name) else games.ended_in_words(entry)


def _history(args: argparse.Namespace, out: TextIO) -> int:
    import json

    from .store import Store

    root = _state_dir(args)
    path = _state_file(root, "history.jsonl")
    try:
        found = Store.reader(root).history(args.limit)
    except OSError as e:
        raise UsageError(f"cannot read {str(path)!r}: {e.strerror or e}") from e
    for g in found:
        if args.json:
            print(json.dumps(g, sort_keys=True), file=out)
        else:
            score = "" if g.get("score") is None else f", score {g['score']}"
            print(
                f"{g.get('date', '?')}  {g.get(games.HISTORY_LABEL, '?')}  {_ending(g)}{score}  "
                f"card {g.get('card_code', '?')}",
                file=out,
            )
    if not found and not args.json:
        print("no finished games yet", file=out)
    return 0


def _record(args: argparse.Namespace, out: TextIO, kind: games.Record) -> int:
    """A game's record's command: the one in play (--all: every one), as its game
    prints it."""
    import json

    from .store import Store

    root = _state_dir(args)
    path = _state_file(root, kind.file)
    try:
        found = Store.reader(root).tallies(kind)
    except OSError as e:
        raise UsageError(f"cannot read {str(path)!r}: {e.strerror or e}") from e
    for data in found if args.all else found[-1:]:
        if args.json:
            print(json.dumps(kind.public(data), sort_keys=True), file=out)
        else:
            print("\n".join(kind.lines(data)), file=out)
    return 0


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    given = list(sys.argv[1:] if argv is None else argv)
    first = given[0] if given else "-"
    try:  # a record's command is looked for only past the others (it loads the games)
        named = first in COMMANDS or (not first.startswith("-") and first in _records())
        args = _parser(first if named else None).parse_args(given)
    except UsageError as e:
        print(f"keystand: {e}", file=err)
        return EXIT_USAGE
    except SystemExit as e:  # --help and --version print, then argparse exits
        return e.code if isinstance(e.code, int) else 0
    finally:
        if not gc.isenabled():  # as the console script loads the command line
            gc.freeze()  # what it loaded lives as long as the process: no pass walks it
            gc.enable()
    try:
        if args.command in ("run", "doctor"):  # the commands that may load lgpio
            from .drivers import gpio

            with gpio.lgpio_session():
                return int(_module(args.command).run(args, out, err))
        if args.command == "play":
            return _play(args, out, sys.stdin)
        if args.command in MODULES:
            return int(_module(args.command).run(args, out, err))
        if args.command == "state":
            return _state(args, out)
        if args.command == "history":
            return _history(args, out)
        if getattr(args, "record_kind", None) is not None:
            return _record(args, out, args.record_kind)
        return _card(args, out, sys.stdin)
    except (HardwareError, InUse) as e:
        print(f"keystand {args.command}: {e}", file=err)
        return e.exit_status
    except KeystandError as e:
        print(f"keystand {args.command}: {e}", file=err)
        return EXIT_USAGE
    except BrokenPipeError:  # `keystand card new | head -1`: the reader has gone
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
