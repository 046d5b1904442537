"""What the `keystand` subcommands share: the one-line usage error, the argument
parser that never exits, the card arguments, and reading files or stdin.

Light on purpose (the standard library and the rules): every subcommand imports
it, and `keystand card new` must not load Pillow or the service.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .rules import Card, CardError, KeystandError

EXIT_USAGE = 2
EXIT_RETRY = 1  # a start that may work if tried again (a GPIO line another program holds)
# systemd's NOTCONFIGURED: the machine must change first (no GPIO chip or one the
# user may not open, SPI off or refused, not a Pi); the unit's
# RestartPreventExitStatus= names it, so systemd does not loop.
EXIT_NO_HARDWARE = 6


class UsageError(KeystandError, ValueError):
    """A command-line argument that names nothing usable (a missing file)."""


class HardwareError(KeystandError, OSError):
    """The stand's hardware cannot be had: no GPIO chip, one refused, SPI off, a
    busy line. `lasting` when starting again cannot help until the machine (or
    its groups) changes."""

    def __init__(self, message: str, *, lasting: bool) -> None:
        super().__init__(message)
        self.lasting = lasting

    @property
    def exit_status(self) -> int:
        return EXIT_NO_HARDWARE if self.lasting else EXIT_RETRY


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def add_card_source(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """--card, --card-code or --card-file (one of them)."""
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument("--card", metavar="CARD", help="card text: 25 of G X . per side, 'A / B'")
    g.add_argument("--card-code", metavar="CODE", help="a card code as `keystand card new` prints")
    g.add_argument("--card-file", metavar="FILE", help="a file holding the card text")


def read_bytes(path: str, what: str, stdin: TextIO) -> bytes:
    """The bytes of a file, or of standard input for `-`: decoding is the reader's
    (script text has one rule for files and stdin, whatever the locale says)."""
    if path == "-":
        buffer = getattr(stdin, "buffer", None)
        return buffer.read() if buffer is not None else stdin.read().encode("utf-8")
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path!r}: {e.strerror or e}") from e


def read_text(path: str, what: str, stdin: TextIO) -> str:
    data = read_bytes(path, what, stdin)
    try:
        # utf-8-sig: a file saved with a byte-order mark (Windows Notepad) reads the same.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read {what} {path!r}: not UTF-8 text (byte {e.start})") from e


def load_card(args: argparse.Namespace, stdin: TextIO, game: Any = None) -> Any:
    """The card the arguments name, or None when they name none (optional source);
    a Duet card, or `game`'s (a keystand.games.Game) when given."""
    if getattr(args, "card_code", None) is not None:
        return game.card_from_code(args.card_code) if game else Card.from_code(args.card_code)
    if getattr(args, "card", None) is not None:
        text = args.card
    elif getattr(args, "card_file", None) is not None:
        text = read_text(args.card_file, "card file", stdin)
    else:
        return None
    try:
        return game.parse_card(text) if game else Card.parse(text)
    except CardError as e:
        raise CardError(f"bad card: {e}") from None
