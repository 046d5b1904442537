"""The `keystand` command line. `main(argv)` returns the exit code; it never exits itself.

Exit codes: 0 done (a lost game too), 2 a user error (bad card, script,
mission or arguments), with one line on stderr and no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .rules import (
    Card,
    CardError,
    Duet,
    KeystandError,
    Mission,
    Rejection,
    Seat,
    generate,
)
from .rules.card import SIZE
from .script import parse_script

EXIT_USAGE = 2


class UsageError(KeystandError, ValueError):
    """A command-line argument that names nothing usable (a missing file)."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r}: expected a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed {value}: expected 0 or more")
    return value


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="keystand",
        description="keystand: a referee and per-seat key-card screens for Codenames Duet.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    card = sub.add_parser("card", help="make or show key cards")
    card_sub = card.add_subparsers(dest="card_command", required=True, metavar="ACTION")
    new = card_sub.add_parser(
        "new", help="a random valid card: its text and its code (the same seed, the same card)"
    )
    new.add_argument(
        "--seed", type=_seed, help="a whole number from 0; omit for a fresh random card"
    )
    new.add_argument("--json", action="store_true", help="print {card, code} as JSON")
    show = card_sub.add_parser("show", help="check a card and print both sides and its code")
    _card_source(show)
    show.add_argument("--json", action="store_true", help="print {card, code} as JSON")

    play = sub.add_parser(
        "play",
        help="run a script of events through the referee and print the state",
        description="Run a script (one event a line: touch R C, clue A|B, pass A|B, undo, "
        "penalty; # comments) through the Duet referee and print the state after it.",
    )
    _card_source(play)
    play.add_argument("--script", required=True, metavar="FILE", help="script file, - for stdin")
    play.add_argument(
        "--mission", default="9-9", metavar="T-M", help="T turns, M mistakes (default 9-9)"
    )
    play.add_argument(
        "--loose-order", action="store_true", help="a seat may give two clues in a row"
    )
    play.add_argument("--first", choices=["A", "B"], help="only this seat may give the first clue")
    play.add_argument("--json", action="store_true", help="print the state as one JSON object")

    from . import render, run

    run.add_parser(sub)
    render.add_parser(sub)
    state = sub.add_parser(
        "state", help="the current game of a state dir, as `keystand play --json` prints it"
    )
    state.add_argument("--state-dir", type=Path, help="default: the service's state dir")
    state.add_argument("--json", action="store_true", help="print one JSON object")
    history = sub.add_parser("history", help="finished games, newest first")
    history.add_argument("--state-dir", type=Path, help="default: the service's state dir")
    history.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    history.add_argument("--json", action="store_true", help="one JSON object per line")
    return p


def _card_source(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--card", metavar="CARD", help="card text: 25 of G X . per side, 'A / B'")
    g.add_argument("--card-code", metavar="CODE", help="a card code as `keystand card new` prints")
    g.add_argument("--card-file", metavar="FILE", help="a file holding the card text")


def _read(path: str, what: str, stdin: TextIO) -> bytes:
    """The bytes of a file, or of standard input for `-`: decoding is the reader's
    (script text has one rule for files and stdin, whatever the locale says)."""
    if path == "-":
        buffer = getattr(stdin, "buffer", None)
        return buffer.read() if buffer is not None else stdin.read().encode("utf-8")
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path!r}: {e.strerror or e}") from e


def _read_text(path: str, what: str, stdin: TextIO) -> str:
    data = _read(path, what, stdin)
    try:
        # utf-8-sig: a file saved with a byte-order mark (Windows Notepad) reads the same.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read {what} {path!r}: not UTF-8 text (byte {e.start})") from e


def _load_card(args: argparse.Namespace, stdin: TextIO) -> Card:
    if args.card_code is not None:
        return Card.from_code(args.card_code)
    text = args.card if args.card is not None else _read_text(args.card_file, "card file", stdin)
    try:
        return Card.parse(text)
    except CardError as e:
        raise CardError(f"bad card: {e}") from None


def state_json(state: Duet, rejected: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The state as DESIGN.md's `keystand play --json` names its fields."""
    return {
        "status": state.status.value,
        "reason": state.reason.value if state.reason else None,
        "phase": state.phase.value,
        "clue_giver": state.clue_giver.value if state.clue_giver else None,
        "guesser": state.guesser.value if state.guesser else None,
        "turns_left": state.turns_left,
        "mistakes_left": state.mistakes_left,
        "agents_found": state.agents_found,
        "covered": sorted(state.covered),
        "misses": {s.value: sorted(state.misses(s)) for s in Seat},
        "passes": state.passes,
        "score": state.score,
        "rejected": list(rejected),
    }


def _board(state: Duet) -> str:
    """The table as seat A sees it: # agent card, x missed by both, a/b missed by A/B."""
    rows = []
    for r in range(SIZE):
        cells = []
        for c in range(SIZE):
            i = SIZE * r + c
            if i in state.agents:
                cells.append("#")
            elif i in state.covered:
                cells.append("x")
            elif i in state.misses_a:
                cells.append("a")
            elif i in state.misses_b:
                cells.append("b")
            else:
                cells.append("·")
        rows.append("  " + " ".join(cells))
    return "\n".join(rows)


def _play(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    card = _load_card(args, stdin)
    mission = Mission.parse(args.mission)
    source = "stdin" if args.script == "-" else args.script
    steps = parse_script(_read(args.script, "script", stdin), source=source)
    first = Seat(args.first) if args.first else None
    state = Duet.start(card, mission, loose_order=args.loose_order, first=first)
    refused: list[tuple[int, Rejection]] = []
    for step in steps:
        state, result = state.apply(step.event)
        if isinstance(result, Rejection):
            refused.append((step.line, result))
    rejected = [
        {"line": line, "event": str(r.event), "reason": r.reason.value} for line, r in refused
    ]
    if args.json:
        json.dump(state_json(state, rejected), out)
        out.write("\n")
        return 0
    d = state_json(state, rejected)
    print(f"mission {mission}, {len(steps)} events: {d['status']}", file=out, end="")
    print(f" ({d['reason']})" if d["reason"] else "", file=out)
    if d["score"] is not None:
        print(f"score {d['score']}", file=out)
    print(
        f"phase {d['phase']}, clue giver {d['clue_giver'] or '-'}, guesser {d['guesser'] or '-'}",
        file=out,
    )
    print(
        f"turns left {d['turns_left']}, mistakes left {d['mistakes_left']}, "
        f"agents found {d['agents_found']}/15, passes {d['passes']}",
        file=out,
    )
    print(_board(state), file=out)
    for line, r in refused:
        print(f"rejected: line {line} {str(r.event)!r}: {r.message}", file=out)
    return 0


def _card(args: argparse.Namespace, out: TextIO, stdin: TextIO) -> int:
    card = generate(args.seed) if args.card_command == "new" else _load_card(args, stdin)
    if args.json:
        json.dump({"card": card.text, "code": card.code}, out)
        out.write("\n")
        return 0
    print(card.text, file=out)
    print(f"code {card.code}", file=out)
    return 0


def _state(args: argparse.Namespace, out: TextIO) -> int:
    from .store import Store, default_state_dir

    root = args.state_dir or default_state_dir()
    if not (root / "current.journal").exists():
        raise UsageError(f"no game in {root} (is it the service's state dir?)")
    found = Store(root).peek()  # read only: the service may be running
    if found is None:
        raise UsageError(f"no game in {root}")
    state, game_id = found
    data = state_json(state)
    if args.json:
        json.dump(data, out)
        out.write("\n")
    else:
        print(f"game {game_id}: {data['status']}, {data['phase']}", file=out)
        print(f"turns left {data['turns_left']}, mistakes left {data['mistakes_left']}", file=out)
        print(_board(state), file=out)
    return 0


def _history(args: argparse.Namespace, out: TextIO) -> int:
    from .store import Store, default_state_dir

    games = Store(args.state_dir or default_state_dir()).history(args.limit)
    for g in games:
        if args.json:
            print(json.dumps(g, sort_keys=True), file=out)
        else:
            score = "" if g.get("score") is None else f", score {g['score']}"
            why = f" ({g['reason']})" if g.get("reason") else ""
            print(
                f"{g.get('date', '?')}  {g.get('mission', '?')}  {g.get('result', '?')}{why}"
                f"{score}  card {g.get('card_code', '?')}",
                file=out,
            )
    if not games and not args.json:
        print("no finished games yet", file=out)
    return 0


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except UsageError as e:
        print(f"keystand: {e}", file=err)
        return EXIT_USAGE
    except SystemExit as e:  # --help and --version print, then argparse exits
        return e.code if isinstance(e.code, int) else 0
    try:
        if args.command == "play":
            return _play(args, out, sys.stdin)
        if args.command == "run":
            from . import run

            return run.run(args, out, err)
        if args.command == "render":
            from . import render

            return render.run(args, out, err)
        if args.command == "state":
            return _state(args, out)
        if args.command == "history":
            return _history(args, out)
        return _card(args, out, sys.stdin)
    except KeystandError as e:
        print(f"keystand {args.command}: {e}", file=err)
        return EXIT_USAGE
    except BrokenPipeError:  # `keystand card new | head -1`: the reader has gone
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
