"""What `keystand run` is asked to do, checked: the plan the builder makes the drivers from.

`make` reads the settings file and the profile, the card and the script, and
checks every option in the order the messages have always come in (one line, exit
2, or the hardware's status); the plan it returns is plain data. It starts no
driver and no thread and writes nothing in the state dir (whether it can be
written is asked of the folder, not by making it: `keystand run` makes it once
its start is decided); the only thing it may leave is the `--emulate` folder,
made once every option is checked.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .cliutil import UsageError, load_card, read_bytes
from .rules import KeystandError
from .store import Store, default_state_dir

if TYPE_CHECKING:
    from keystand.drivers.inputs import InputEvent

    from .config import Config
    from .games import AnyCard, AnyGame, Options, Played
    from .profile import Profile
    from .store import Seen

EMULATE_FAULTS = {"busy-stuck", "unplugged"}  # per seat; grid:noise is the inputs'


@dataclass(frozen=True)
class Page:
    """The simulator page's address (port 0: any free one)."""

    host: str
    port: int


@dataclass(frozen=True)
class Emulate:
    """`--emulate DIR` and its `--emulate-fault`s (seat A or B: a panel's, grid: the grid's)."""

    folder: Path
    faults: Mapping[str, str]

    @property
    def noise(self) -> bool:
        return self.faults.get("grid") == "noise"


@dataclass(frozen=True)
class Plan:
    """One run of the stand, as the arguments, the settings file and the profile ask it."""

    profile: Profile
    profile_name: str  # as given (a name or a path): what `keystand doctor` is told
    state_dir: Path
    game: AnyGame  # the game the card and the script are read as
    boot_game: str | None  # the game a new game is dealt of: --game, or the card's
    card: AnyCard | None  # the first new game's card (a card of `game`)
    steps: ScriptSteps | None  # the script's lines, read one at a time as they are played
    shown_log: Path | None
    speed: float | None  # the panels' pace (None: each panel's own)
    page: Page | None  # serve the simulator page there
    keyboard: bool  # read the terminal's keys
    emulate: Emulate | None
    lang: tuple[str, str]  # seat A's and seat B's
    options: Options  # the games' own defaults the settings file gives
    max_partials: int
    idle_sleep: float
    seen: Seen | None = None  # the journal as the plan read it: the start reads it once

    @property
    def interactive(self) -> bool:
        """Someone plays on a page or a keyboard: a script does not end the run."""
        return self.page is not None or self.keyboard

    def new_card(self) -> Callable[[], AnyCard]:
        """The stand's card dealer: the plan's card for the first new game, then random."""
        if self.card is None:
            return self.game.generate
        dealt = [self.card]

        def deal() -> AnyCard:
            return dealt.pop() if dealt else self.game.generate()

        return deal


def make(args: argparse.Namespace, stdin: TextIO = sys.stdin) -> Plan:
    """The plan of `keystand run ARGS`, or the first thing wrong with them (UsageError,
    exit 2; the config's and the profile's own errors)."""
    from . import config as configs
    from . import profile as profiles

    settings = configs.load(configs.find(args.config))
    profile_name = args.profile or settings.get("service", "profile") or "desktop"
    profile = settings.onto(profiles.load(profile_name))
    if not args.script:
        # A stand no player could play would run dark for ever (exit 2: systemd's
        # RestartPreventExitStatus=, no restart loop); a script plays one itself.
        profiles.check_playable(profile)
    if args.speed is not None and not 0 <= args.speed <= 10:
        raise UsageError(f"--speed {args.speed}: expected 0..10 (1 real time, 0 no waiting)")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: expected 0..65535 (0: any free port)")
    state_dir: Path = args.state_dir or default_state_dir()
    check_journal(state_dir)  # before anything reads it
    reader = Store.reader(state_dir)  # the journal read once, for the game and the resume
    game = game_of(state_dir, args.game, bool(args.script), reader)  # the card's and script's
    card = load_card(args, stdin, game)
    steps = None
    if args.script:
        data = read_bytes(args.script, "script", stdin)
        steps = ScriptSteps(game, data, "stdin" if args.script == "-" else args.script)
        steps.check()  # every line, before anything starts: a bad one is exit 2
    if card is not None:
        refuse_card_if_playing(state_dir, reader)
    if args.shown_log:
        check_shown_log(args.shown_log)
    page = _page(args, profile, bool(steps))
    if page is not None:
        check_port(page.host, page.port)
    check_state_dir(state_dir)  # the last check of the state dir (it makes nothing)
    max_partials = settings.get("refresh", "max_partials")
    return Plan(
        profile=profile,
        profile_name=profile_name,
        state_dir=state_dir,
        game=game,
        boot_game=args.game or (game.name if card is not None else None),
        card=card,
        steps=steps,
        shown_log=args.shown_log,
        speed=args.speed,
        page=page,
        keyboard="keyboard" in profile.input.kinds and not steps,
        emulate=_emulate(args, profile),
        lang=settings.get("game", "languages") or (profile.stand.lang,) * 2,
        options=_options(settings),
        max_partials=profile.stand.max_partials if max_partials is None else max_partials,
        idle_sleep=settings.get("refresh", "idle_sleep") or profile.stand.idle_sleep,
        seen=reader.seen,
    )


def _options(settings: Config) -> Options:
    """The games' own settings the file's [game] table gives (checked as it was read)."""
    from . import config, games

    options = games.Options()
    given = {k: v for k, v in (settings.values or {}).get("game", {}).items() if k != "languages"}
    for own in config.in_config() if given else ():  # the games loaded only for a file's keys
        if own.key in given:
            options = options.with_(own, own.loaded(given[own.key]))
    return options


class ScriptSteps:
    """A `--script`'s steps, parsed one line at a time each time they are iterated:
    only the script's bytes are held (at most its 16 MiB cap), never a parsed
    object per line, so the worst script stays within a small Pi's memory (16 MiB
    of `wait 0` lines were 2.4 million parsed steps, 515 MB). Each line is read
    by the one text rule, then, unless blank or a comment, by its game's
    `input_script` (`script.line_by_line`), as in a whole script; `check` reads
    them all once first, so a bad line still stops the start (exit 2) before
    anything plays."""

    def __init__(self, game: AnyGame, data: bytes, source: str) -> None:
        self.game = game
        self.data = data
        self.source = source
        self._any: bool | None = None  # whether a line is an event or a wait

    def check(self) -> None:
        """ScriptError naming the first line that is not a step; reads every line."""
        self._any = False
        for _ in self:
            self._any = True

    def __bool__(self) -> bool:
        """Whether the script has any step (not only blanks and comments)."""
        if self._any is None:
            self.check()
        return bool(self._any)

    def __iter__(self) -> Iterator[tuple[int, InputEvent | float | Played[Any]]]:
        from .script import line_by_line

        def read(text: str) -> list[tuple[int, InputEvent | float | Played[Any]]]:
            return self.game.input_script(text, source=self.source)

        for number, (_, step) in line_by_line(self.data, read, source=self.source):
            yield number, step


def _page(args: argparse.Namespace, profile: Profile, script: bool) -> Page | None:
    """The simulator page, if the profile has one and this run serves it: not with
    --no-page, nor for a script run that names no --port (the script ends it)."""
    if "simulator" not in profile.input.kinds or args.no_page or (script and args.port is None):
        return None
    port = profile.input.port if args.port is None else args.port
    host = "127.0.0.1" if profile.input.host == "localhost" else profile.input.host
    return Page(host, port)


def _emulate(args: argparse.Namespace, profile: Profile) -> Emulate | None:
    if args.emulate is None:
        if args.emulate_fault:
            raise UsageError("--emulate-fault needs --emulate DIR")
        return None
    if profile.stand.driver == "sim":
        raise UsageError(
            f"--emulate runs a Pi profile's real drivers; profile {profile.name!r} has "
            "simulated panels (try --profile minimal)"
        )
    found = faults(args.emulate_fault)  # every refusal before the folder is made
    from . import inputkinds

    kinds = profile.input.kinds
    if found.get("grid") == "noise" and not any(k.grid for k in inputkinds.of(kinds)):
        raise UsageError(
            f"--emulate-fault grid:noise: profile {profile.name!r} has no touch grid "
            f"(its inputs: {', '.join(kinds) or 'none'})"
        )
    try:
        args.emulate.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--emulate {str(args.emulate)!r}: {e.strerror or e}") from e
    return Emulate(args.emulate, found)


def faults(given: list[str]) -> dict[str, str]:
    """`--emulate-fault SEAT:FAULT`s by where they are (A, B or grid)."""
    found: dict[str, str] = {}
    for text in given:
        where, _, what = text.partition(":")
        panel_fault = where in ("A", "B") and what in EMULATE_FAULTS
        if panel_fault or (where == "grid" and what == "noise"):
            found[where] = what
        else:
            raise UsageError(
                f"--emulate-fault {text!r}: expected A:busy-stuck, B:busy-stuck, A:unplugged, "
                "B:unplugged or grid:noise"
            )
    return found


def game_of(
    state_dir: Path, asked: str | None, script: bool, reader: Store | None = None
) -> AnyGame:
    """The game a run's card and script are read as: `asked` (--game), else the one
    in play in the state dir, else the menu's last choice, else Duet (read only:
    nothing is made here; `reader` keeps what it read, for the start). A script
    for another game than the one in play is refused: its lines would go to the
    wrong game."""
    from . import games
    from .journal import JournalError

    in_play, saved = None, None
    if state_dir.is_dir():
        reader = reader or Store.reader(state_dir)
        try:
            found = reader.peek()
            in_play = games.of_state(found[0]) if found else None
            saved = (reader.load_settings() or {}).get("game")
        except (JournalError, OSError):
            pass  # start-up says what is wrong with it
    if asked is None:
        if not (isinstance(saved, str) and games.known(saved)):
            saved = games.DEFAULT
        return in_play or games.get(saved)
    game = games.get(asked)
    if script and in_play is not None and in_play.name != game.name:
        raise UsageError(
            f"a {in_play.name} game is in play in {state_dir}: a --game {game.name} script "
            f"cannot go to it. Finish it, abandon it (menu > Game), or give another --state-dir"
        )
    return game


def refuse_card_if_playing(state_dir: Path, reader: Store | None = None) -> None:
    from .journal import JournalError

    if not state_dir.is_dir():
        return
    try:
        found = (reader or Store.reader(state_dir)).peek()
    except JournalError:
        return  # unreadable: boot keeps it aside and deals the new game on this card
    if found is not None:
        raise UsageError(
            f"a game is in play in {state_dir} (game {found[1]}): --card deals only a new game. "
            "Finish it, abandon it (menu > New game), or give another --state-dir"
        )


def check_state_dir(state_dir: Path) -> None:
    """A directory keystand can write (or make: the nearest folder above it can be
    written), or exit 2 saying why; writes nothing (the probe is an unnamed file,
    gone as it is closed). A disk that fills up later is not this: the stand runs
    and says "cannot save"."""
    import tempfile  # here, not at import: it loads shutil, bz2 and lzma

    where = f"state dir {str(state_dir)!r}"
    if state_dir.exists() and not state_dir.is_dir():
        raise UsageError(f"{where} is not a directory")
    folder = state_dir
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{where} cannot be made: {str(folder)!r} is not a directory")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise unwritable(state_dir, e) from e
    check_journal(state_dir)


def unwritable(state_dir: Path, error: OSError) -> KeystandError:
    """The refusal of a state dir that cannot be written: exit 2 (give another: a
    read-only one too, as a mount option or a sandbox makes it), or exit 1 when
    the disk failed the write (EIO): it may come back, and systemd's restart
    policy and start limit decide."""
    from .cliutil import HardwareError

    message = f"state dir {str(state_dir)!r} cannot be written: {error.strerror or error}"
    if error.errno == errno.EIO:
        return HardwareError(f"{message} (the disk may come back: start again)", lasting=False)
    return UsageError(f"{message} (give a writable --state-dir)")


def check_journal(state_dir: Path) -> None:
    """The journal is a file if it is there: a folder is refused, and a FIFO is
    refused before anything reads it (a read of one would wait for ever)."""
    from .store import CURRENT

    journal = state_dir / CURRENT
    if journal.exists() and not journal.is_file():
        raise UsageError(f"{str(journal)!r} is not a file: move it away, keystand writes it")


def check_shown_log(path: Path) -> None:
    if path.exists() and not path.is_file():
        raise UsageError(f"--shown-log {str(path)!r} is not a file")
    if not path.parent.is_dir():
        raise UsageError(
            f"--shown-log {str(path)!r}: the folder {str(path.parent)!r} does not exist"
        )


def check_port(host: str, port: int) -> None:
    """The page's port is free now, before anything starts (0: any free one)."""
    import socket  # only a run with the simulator page needs it

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the page binds
        try:
            probe.bind((host, port))
        except OSError as e:
            raise UsageError(
                f"the simulator page's port {port} on {host}: {e.strerror or e} (is another "
                "keystand running? stop it, or give --port N, or --port 0 for any free port)"
            ) from e


__all__ = ["Emulate", "Page", "Plan", "make"]
