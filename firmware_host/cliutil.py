"""What the `keystand` subcommands share: the one-line usage error, the argument
parser that never exits, the card arguments, and reading files or stdin.

Light on purpose (the standard library and the rules): every subcommand imports
it, and `keystand card new` must not load Pillow or the service.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

from . import games
from .rules import CardError, KeystandError

if TYPE_CHECKING:
    from .games import AnyCard, Game

EXIT_USAGE = 2
# The games shipped, as the options that take one say them: "duet (the default),
# classic, or a game installed beside keystand".
GAMES_SAID = ", ".join(f"{n} (the default)" if n == games.DEFAULT else n for n in games.SHIPPED)
GAME_HELP = f"{GAMES_SAID}, or a game installed beside keystand"
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


class InUse(KeystandError, BlockingIOError):
    """What a command needs is held by another process (a state dir another
    `keystand run` plays on): it may let go, so a start is worth trying again."""

    exit_status = EXIT_RETRY


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one line instead of exiting, and
    names a misspelt option or command first, with the nearest one it knows
    (argparse would complain of a required option the typo was meant to be)."""

    _given: tuple[str, ...] = ()
    # The command takes the named game's own options (`add_game_options`), added
    # once its arguments are seen.
    game_options: bool = False

    def parse_known_args(  # type: ignore[override]  # the same call, remembered
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = tuple(sys.argv[1:] if args is None else args)
        if self.game_options:
            self.game_options = False
            self._add_game_options()
        return super().parse_known_args(args, namespace)

    def _add_game_options(self) -> None:
        """The options of the game the command line names, as it declares them; an
        option another shipped game declares is refused by name (loading the
        others only then)."""
        name = _named_game(self._given) or self.get_default("game") or games.DEFAULT
        try:
            game = games.get(name)
        except games.GameError:
            return  # --game's own check names it
        for setting in game.settings:
            if setting.flag is None:
                continue
            if setting.meta is None:
                self.add_argument(setting.flag, action="store_true", help=setting.help)
            else:
                self.add_argument(setting.flag, metavar=setting.meta, help=setting.help)
        for token in self._given:
            flag = token.split("=", 1)[0]
            unknown = flag.startswith("--") and flag not in self._option_string_actions
            if unknown and any(flag == s.flag for s in _shipped_settings()):
                raise UsageError(f"{flag}: {game.name} has no such choice")

    def error(self, message: str) -> NoReturn:
        message, prog = self._misspelt() or (message, self.prog)
        raise UsageError(f"{message} (see {prog} --help)")

    def _misspelt(self) -> tuple[str, str] | None:
        """The first option or command given that this parser (or the command it
        handed the rest to) does not know, and the parser's name."""
        commands = self._commands()
        options = [o for o in self._option_string_actions if o.startswith("--")]
        for token in self._given:
            if token == "--":
                return None
            if commands and not token.startswith("-"):
                if token in commands:  # the rest is the command's: it saw them
                    command = commands[token]
                    return command._misspelt() if isinstance(command, Parser) else None
                return _unknown("command", token, list(commands)), self.prog
            name = token.split("=", 1)[0]
            if name.startswith("--") and not any(o.startswith(name) for o in options):
                return _unknown("option", name, options), self.prog
        return None

    def _commands(self) -> dict[str, argparse.ArgumentParser]:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}


def _unknown(what: str, given: str, known: list[str]) -> str:
    import difflib  # only for a misspelt word

    near = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f"unknown {what} {given}" + (f": did you mean {near[0]}?" if near else "")


def path_arg(text: str) -> Path:
    """An argparse type for a path: an empty one is refused, not read as the
    working folder (`--state-dir ''` from an unset shell variable)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path (is a shell variable unset?)")
    return Path(text)


def add_game(p: argparse.ArgumentParser, *, default: str | None, help: str) -> None:
    """`--game NAME`: a shipped game or one installed beside keystand."""
    p.add_argument("--game", type=game_name, default=default, metavar="NAME", help=help)


def game_name(text: str) -> str:
    """An argparse type for a game's name; a wrong one is named with the games
    there are."""
    if not games.known(text):
        raise argparse.ArgumentTypeError(
            f"game {text!r}: expected one of {', '.join(games.names())}"
        )
    return text.strip().lower()


def add_card_source(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """--card, --card-code or --card-file (one of them)."""
    g = p.add_mutually_exclusive_group(required=required)
    g.add_argument(
        "--card",
        metavar="CARD",
        help="card text, as the game writes it (as `keystand card new --game NAME` prints)",
    )
    g.add_argument("--card-code", metavar="CODE", help="a card code as `keystand card new` prints")
    g.add_argument("--card-file", metavar="FILE", help="a file holding the card text")


# The most a user-named file may hold. Generous: a 100,000-line script is about
# 1.5 MB; a card is a line. (Profiles and settings files: schema.MAX_BYTES.)
SCRIPT_CAP = 16 * 1024 * 1024
CARD_CAP = 64 * 1024
_CAPS = {"script": SCRIPT_CAP, "card file": CARD_CAP}


class FileRefused(UsageError):
    """A user-named file that is not one to read: a folder, a FIFO, a device, or
    larger than its cap. `detail` says which, without the file's name."""

    def __init__(self, what: str, path: str, detail: str) -> None:
        self.what, self.path, self.detail = what, path, detail
        super().__init__(f"{what} {path!r}: {detail}")


def _size(cap: int) -> str:
    return f"{cap // (1024 * 1024)} MiB" if cap >= 1024 * 1024 else f"{cap // 1024} KiB"


def read_regular(
    path: str | os.PathLike[str], what: str, cap: int, *, stdin_too: bool = False
) -> bytes:
    """The bytes of the regular file at `path`, at most `cap` of them.

    The one door for every file a user names (script, card, profile, settings):
    O_NONBLOCK so a FIFO with no writer cannot hang the open, fstat so only a
    regular file is read (not a folder, FIFO or /dev/zero; /dev/null reads as
    empty), and never more than
    cap + 1 bytes read. FileRefused for those; OSError (FileNotFoundError, a
    permission) passes for the caller to word. `stdin_too`: the option also
    takes `-`, and a pipe's refusal says so."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISCHR(mode) and st.st_rdev == os.stat(os.devnull).st_rdev:
            return b""  # /dev/null: the empty file, as every tool takes it
        if not stat.S_ISREG(mode):
            raise FileRefused(what, os.fspath(path), _not_regular(mode, stdin_too))
        chunks, got = [], 0
        # A file read whole in one read is one bytes object that join hands back
        # as it is: a 16 MiB script is held once, not twice while it is joined.
        want = max(st.st_size + 1, 64 * 1024)
        while got <= cap:
            chunk = os.read(fd, min(want, cap + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    if got > cap:
        raise FileRefused(what, os.fspath(path), f"larger than {_size(cap)}: not a {what}")
    return b"".join(chunks)


def _not_regular(mode: int, stdin_too: bool) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        hint = " (give - to read standard input)" if stdin_too else ""
        return f"is a pipe (FIFO), not a regular file{hint}"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file"
    return "is not a regular file"


def read_bytes(path: str, what: str, stdin: TextIO) -> bytes:
    """The bytes of a file, or of standard input for `-`, at most the cap for
    `what` (FileRefused beyond it): decoding is the reader's (script text has
    one rule for files and stdin, whatever the locale says)."""
    cap = _CAPS.get(what, SCRIPT_CAP)
    if path == "-":
        buffer = getattr(stdin, "buffer", None)
        data = buffer.read(cap + 1) if buffer is not None else stdin.read(cap + 1).encode()
        if len(data) > cap:
            raise FileRefused(what, "stdin", f"larger than {_size(cap)}: not a {what}")
        return bytes(data)
    try:
        return read_regular(path, what, cap, stdin_too=True)
    except OSError as e:
        raise UsageError(f"cannot read {what} {path!r}: {e.strerror or e}") from e


def read_text(path: str, what: str, stdin: TextIO) -> str:
    data = read_bytes(path, what, stdin)
    try:
        # utf-8-sig: a file saved with a byte-order mark (Windows Notepad) reads the same.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read {what} {path!r}: not UTF-8 text (byte {e.start})") from e


def load_card(args: argparse.Namespace, stdin: TextIO, game: Game) -> AnyCard | None:
    """`game`'s card the arguments name, or None when they name none (an optional
    source)."""
    if getattr(args, "card_code", None) is not None:
        return game.card_from_code(args.card_code)
    if getattr(args, "card", None) is not None:
        text = args.card
    elif getattr(args, "card_file", None) is not None:
        return _card_from_file(args.card_file, stdin, game)
    else:
        return None
    try:
        return game.parse_card(text)
    except CardError as e:
        raise CardError(f"bad card: {e}") from None


def _card_from_file(path: str, stdin: TextIO, game: Game) -> AnyCard:
    """The card in a file (or stdin for `-`); a bad one is named as a script line
    is: `FILE line N: bad card: ...` (the line where the card spans lines)."""
    text = read_text(path, "card file", stdin)
    source = "stdin" if path == "-" else path
    if not text.strip():
        raise CardError(f"{source}: {'is empty' if not text else 'is blank'}, no card text in it")
    try:
        return game.parse_card(text)
    except CardError as e:
        raise CardError(f"{source}{_lines(text, e.span)}: bad card: {e}") from None


def _lines(text: str, span: tuple[int, int] | None) -> str:
    """` line N` or ` lines N-M`: where the card text of `span` stands, when the
    card spans lines; "" otherwise (one line, or the card as a whole)."""
    if span is None or len({n for n, line in enumerate(text.split("\n")) if line.strip()}) < 2:
        return ""
    start, end = span
    inked = [i for i in range(start, end) if not text[i].isspace()]
    if not inked:
        return ""
    first, last = (text.count("\n", 0, i) + 1 for i in (inked[0], inked[-1]))
    return f" line {first}" if first == last else f" lines {first}-{last}"


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """The options of `keystand play` and `render` that set a game's own settings
    (its `settings` with a `flag`: Duet's --mission and the like), as the game the
    command line names (`--game`, else the default) declares them: added as the
    command's arguments are read, so only that game is loaded."""
    if isinstance(parser, Parser):
        parser.game_options = True


def game_options(args: argparse.Namespace, game: Game) -> games.Options:
    """The game's settings given on the command line (`add_game_options`); a bad
    value raises the setting's own error (a ValueError naming it)."""
    options = games.Options()
    for setting in game.settings:
        if setting.flag is None:
            continue
        value = getattr(args, _dest(setting.flag), None)
        if value is not None and value is not False:
            options = options.with_(setting, setting.parse(value))
    return options


def _shipped_settings() -> list[games.Setting[object]]:
    """Every shipped game's settings (each game loaded: for a refusal only)."""
    return [s for name in games.SHIPPED for s in games.get(name).settings]


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _named_game(given: Sequence[str]) -> str | None:
    """The game `--game NAME` (or `--game=NAME`) names in `given`, if any."""
    for i, token in enumerate(given):
        if token == "--game" and i + 1 < len(given):
            return given[i + 1]
        if token.startswith("--game="):
            return token.split("=", 1)[1]
    return None
