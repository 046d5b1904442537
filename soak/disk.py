"""A full disk, for real: the state dir on a small tmpfs, filled to the last
byte, then a little freed (0 to 16 pages, so each step of a save meets the
wall somewhere), while the stand (in-process: its `Stand` and `Store`, driven
by the seats' keys) plays, deals a New game, switches Game, changes a seat's
language, or abandons a game when history.jsonl holds 400 lines (its rewrite).

Each scenario also runs on a disk with room (the twin), with the same cards
and keys. On the full disk:

- what the screens show as taken is on disk: the game in play (its journal's
  records) and the settings are what a restart loads (else `lost`);
- nothing the players did not do is on disk: no end record, no history line
  for a game still in play, no game dealt (else `changed`); the menu's Game
  line names the game in play (else `changed`);
- a step that did not take effect says so on that seat's screen: `untold`
  when its screen is the twin's, pixel for pixel (a seat in its menu), or says
  nothing of saving (a seat in the game);
- once the space is back, the next input is taken without a restart (else
  `stranded`), and a restart then comes back to the same game and settings.

Root only (mounting a tmpfs); otherwise one line says it is skipped.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

from common import Context, Tally, keystand, sound_records

from keystand import games, screens
from keystand.drivers.display.sim import SimPanel
from keystand.drivers.inputs import KeyName, Press, Touch
from keystand.journal import CHECKPOINT
from keystand.rules import Seat
from keystand.stand import Item, Settings, Stand
from keystand.store import Store

PAGE = 4096
FREE_PAGES = (0, 1, 2, 4, 8, 16)
HISTORY_LINES = 400  # the next finished game makes the store rewrite history.jsonl
SIZE = "1m"


@dataclass
class Table:
    """A stand on a state dir, its keys pressed one at a time; the cards it deals
    are the same on every run (seeded by the game's own generator)."""

    root: Path
    game: str = "duet"
    now: float = 0.0
    seeds: Any = field(default_factory=lambda: count(100))
    stand: Stand = field(init=False)
    # The game a Game switch is dealing (the stand names it in its settings only
    # once the deal is on disk, after the card was asked for).
    switching_to: str | None = None

    def __post_init__(self) -> None:
        self.stand = self._boot()

    def _deal(self) -> Any:
        game = self.switching_to or self.stand.settings.game
        return games.get(game).generate(next(self.seeds))

    def _boot(self) -> Stand:
        stand = Stand(Store(self.root), settings=Settings(game=self.game), new_card=self._deal)
        self.stand = stand
        stand.boot()
        return stand

    def restart(self) -> None:
        self.stand.store.close()
        self._boot()

    def do(self, event: Any) -> None:
        self.now += 1.0
        self.stand.handle(event, self.now)

    def press(self, key: str, *, long: bool = False, seat: str = "A") -> None:
        self.do(Press(seat, KeyName(key), long))

    def choose(self, item: Item, *, confirm: bool = False) -> None:
        """Seat A's menu: open it, down to `item`, choose (twice: a game in play)."""
        self.press("menu", long=True)
        for _ in range(self.stand.menu_items().index(item)):
            self.press("pass")
        if item is Item.GAME:
            names = games.names()
            self.switching_to = names[(names.index(self.stand.settings.game) + 1) % len(names)]
        try:
            self.press("menu")
            if confirm and Seat.A in self.stand.menus:
                self.press("menu")
        finally:
            self.switching_to = None

    def playable(self) -> Any:
        """An input the rules take now (a clue, else a touch), or None."""
        stand = self.stand
        if stand.state is None or not stand.playing:
            return None
        game = stand.game
        for seat in ("A", "B"):
            event = game.key_event(stand.state, Seat(seat), "clue")
            if event is not None and not games.refused(stand.state.apply(event)[1]):
                return Press(seat, KeyName.CLUE)
        for cell in range(25):
            event = game.touch_event(stand.state, *divmod(cell, 5), penalty=False)
            if not games.refused(stand.state.apply(event)[1]):
                return Touch(*divmod(cell, 5))
        return None

    def image(self, seat: Seat) -> bytes:
        return screens.render(
            self.stand, seat, SimPanel("epd2in7_V2", rotation=90, speed=0)
        ).tobytes()

    def menu_game(self) -> str | None:
        """The Game line of seat A's menu as it would be drawn now (None: no such line)."""
        opened = Seat.A not in self.stand.menus
        if opened:
            self.press("menu", long=True)
        view = screens.menu_view(self.stand, Seat.A)
        if opened:
            self.press("undo")
        return next((ln.value_key for ln in view.lines if ln.item.value == Item.GAME.value), None)

    def told(self, twin: Table, seat: Seat = Seat.A) -> bool:
        """Whether `seat`'s screen says a step did not take effect: in its menu, a
        picture other than the twin's; in the game, "cannot save" or a hint."""
        if seat in self.stand.menus:
            return self.image(seat) != twin.image(seat)
        context = screens.context(self.stand, seat)
        return context.cannot_save or context.hint is not None

    def seen(self) -> tuple[Any, str | None, tuple[str, str], str]:
        """What the players see: the game, its id, the languages, the next game."""
        s = self.stand
        return s.state, s.store.game_id, s.settings.lang, s.settings.game


# -- the scenarios: (name, game, set-up before the fill, the step on the full disk) --

Step = Callable[[Table], None]


def _played(t: Table) -> None:
    for _ in range(2):
        event = t.playable()
        if event is not None:
            t.do(event)


def _history(t: Table) -> None:
    _played(t)
    line: dict[str, str | None] = {"date": "2026-01-01T12:00:00+0000", "game": "duet"}
    line |= {"mission": "9-9", "result": "lost", "reason": "assassin", "score": None}
    text = "".join(json.dumps({**line, "id": f"{n:012x}"}) + "\n" for n in range(HISTORY_LINES))
    (t.root / "history.jsonl").write_text(text)


SCENARIOS: dict[str, tuple[str, Step, Step]] = {
    "play": ("duet", _played, _played),
    "new-game": ("duet", _played, lambda t: t.choose(Item.NEW_GAME, confirm=True)),
    "game-switch": ("duet", _played, lambda t: t.choose(Item.GAME, confirm=True)),
    "game-switch-classic": ("classic", _played, lambda t: t.choose(Item.GAME, confirm=True)),
    "language": ("duet", _played, lambda t: t.choose(Item.LANGUAGE)),
    "language-classic": ("classic", _played, lambda t: t.choose(Item.LANGUAGE)),
    "history-rewrite": ("duet", _history, lambda t: t.choose(Item.NEW_GAME, confirm=True)),
}


def run(ctx: Context, tally: Tally) -> None:
    if os.geteuid() != 0:
        tally.notes.append("skipped: not root (mounting a tmpfs needs root)")
        print("soak: disk: skipped: not root (mounting a tmpfs needs root)")
        return
    mount = ctx.work / "disk" / "tmpfs"
    mount.mkdir(parents=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tally.notes.append(f"skipped: cannot mount a tmpfs: {done.stderr.strip()}")
        print(f"soak: disk: skipped: cannot mount a tmpfs: {done.stderr.strip()}")
        return
    try:
        pages = (0, 1) if ctx.quick else FREE_PAGES
        for free in sorted(pages, key=lambda p: p not in (0, 1)):  # the telling ones first
            for name in SCENARIOS:
                for order in ("input-first", "restart-first"):
                    case = f"{name}:{free}:{order}"
                    if ctx.wants(case) and (ctx.left() > 0 or ctx.case):
                        _scenario(ctx, tally, mount, name, free * PAGE, order, case)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _scenario(
    ctx: Context, tally: Tally, mount: Path, name: str, free: int, order: str, case: str
) -> None:
    game, setup, step = SCENARIOS[name]
    twin = Table(ctx.work / "disk" / "twin" / case, game)
    setup(twin)
    step(twin)
    root = mount / "state"
    shutil.rmtree(root, ignore_errors=True)
    t = Table(root, game)
    setup(t)
    before = t.seen()
    records = sound_records(root / "current.journal")
    filler = _fill(mount, free)
    tally.add("scenarios")
    problems: list[tuple[str, str]] = []
    try:
        _steps(t, twin, step, before, records, order, filler, problems)
    except Exception as e:  # the stand itself gave way: that is the finding
        where = traceback.extract_tb(e.__traceback__)[-1]
        problems.append(
            ("crashes", f"{type(e).__name__}: {e} (at {Path(where.filename).name}:{where.lineno})")
        )
    finally:
        t.stand.store.close()
        filler.unlink(missing_ok=True)
    for kind, what in problems:
        tally.fail(case, kind, what, keep=[root])


def _steps(
    t: Table,
    twin: Table,
    step: Step,
    before: Any,
    records: list[Any],
    order: str,
    filler: Path,
    problems: list[tuple[str, str]],
) -> None:
    """The step on the full disk, then space again, each checked (into `problems`)."""
    step(t)
    as_twin = _visible(t) == _visible(twin)
    problems += _durable(t, before, records)
    if not (as_twin and _settings_saved(t)) and not t.told(twin):
        what = "shown as taken, but not saved" if as_twin else "not taken"
        problems.append(("untold", f"the step was {what} ({_said(t)}); the screen says nothing"))
    if t.menu_game() != f"game_{t.stand.game.name}":
        problems.append(
            ("changed", f"the menu shows {t.menu_game()} while {t.stand.game.name} is in play")
        )
    if order == "restart-first":
        shown = t.seen()
        told = bool(t.stand.saved.seats)  # the screens said the setting is not saved yet
        t.restart()
        problems += _same(t, shown, "a restart on the full disk", settings_told=told)
    filler.unlink()
    problems += _back(t)
    shown = t.seen()
    t.restart()
    problems += _same(t, shown, "a restart with space again")
    problems += _history_of(t.root, t)


def _visible(t: Table) -> tuple[Any, ...]:
    """What the players see, less the game's id (each run deals its own)."""
    state, _id, lang, game = t.seen()
    return state, lang, game


def _fill(mount: Path, free: int) -> Path:
    """Write until the filesystem refuses, then give back `free` bytes."""
    filler = mount / "filler"
    with open(filler, "ab", buffering=0) as f:
        for size in (PAGE, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
    if free:
        os.truncate(filler, max(0, filler.stat().st_size - free))
    return filler


def _durable(t: Table, before: Any, records: list[Any]) -> list[tuple[str, str]]:
    """The game the screens show is the game on disk, as it was plus what was taken."""
    on_disk = Store.reader(t.root).peek()
    state, game_id = t.stand.state, t.stand.store.game_id
    if on_disk is None:
        return [("lost", f"the game in play ({game_id}) is not on disk")] if state else []
    if (on_disk[0], on_disk[1]) != (state, game_id):
        return [("changed", f"the disk holds game {on_disk[1]}, the screens show {game_id}")]
    now = sound_records(t.root / "current.journal")
    if before[1] == game_id and now[: len(records)] != records:
        return [("changed", "the journal of the game in play changed under the players")]
    if any(r.get("t") == "end" for r in now):
        return [("changed", "the game in play's journal has an end record")]
    return []


def _said(t: Table) -> str:
    saved, s = _saved(t.root), t.stand.settings
    return (
        f"shown: {s.game}, languages {'/'.join(s.lang)}; saved: {saved.get('game', t.game)}, "
        f"languages {'/'.join(saved.get('lang', ['en', 'en']))}"
    )


def _settings_saved(t: Table) -> bool:
    """Whether the languages and the next game shown are what a restart loads."""
    saved = _saved(t.root)
    s = t.stand.settings
    return bool(
        saved.get("lang", ["en", "en"]) == list(s.lang) and saved.get("game", t.game) == s.game
    )


def _saved(root: Path) -> dict[str, Any]:
    try:
        data = json.loads((root / "settings.json").read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _back(t: Table) -> list[tuple[str, str]]:
    """Space again: the stand takes the next input, no restart."""
    if Seat.A in t.stand.menus:
        t.press("undo")  # the players close the menu and play on
    t.stand.tick(t.now + 0.5)
    event = t.playable()
    if event is None:
        t.press("clue")  # the end screen (or no game): clue deals the next one
        event = t.playable()
    if event is None:
        return [
            ("stranded", f"with space again, no input can be taken (game {t.stand.store.game_id})")
        ]
    records = _events(t.root / "current.journal")
    t.do(event)
    if isinstance(event, Press) and Seat(event.seat) in t.stand.choosing.numbering:
        # A clue that takes a number (classic, the menu's Clue number on by
        # default): the clue key chose it, the menu key gives the clue.
        t.do(Press(event.seat, KeyName.MENU))
    after = _events(t.root / "current.journal")
    if after != records + 1 or t.stand.faults.saving:
        return [("stranded", f"with space again, {event} was not taken: {t.stand.faults.saving}")]
    return []


def _events(journal: Path) -> int:
    """The records of a journal but its checkpoints (one may follow an event)."""
    return sum(r.get("t") != CHECKPOINT for r in sound_records(journal))


def _same(t: Table, shown: Any, when: str, *, settings_told: bool = False) -> list[tuple[str, str]]:
    """The restart comes back to what was shown; a setting the screens said was not
    saved yet may be lost to a restart before there is room for it."""
    now = t.seen()
    problems = []
    if now[1] != shown[1] or now[0] != shown[0]:
        problems.append(("lost", f"{when} comes back to game {now[1]}, not {shown[1]} as shown"))
    if now[2] != shown[2] and not settings_told:
        problems.append(("lost", f"{when} comes back with languages {now[2]}, shown {shown[2]}"))
    if now[3] != shown[3]:
        problems.append(("changed", f"{when} comes back with next game {now[3]}, shown {shown[3]}"))
    return problems


def _history_of(root: Path, t: Table) -> list[tuple[str, str]]:
    """`keystand history`: the game in play is not in it (abandoned, it would be)."""
    done = keystand("history", "--state-dir", root, "--json", "--limit", "5")
    if done.returncode != 0:
        return [("stranded", f"keystand history: exit {done.returncode}: {done.stderr[-200:]}")]
    ids = [json.loads(line).get("id") for line in done.stdout.splitlines() if line.strip()]
    if t.stand.store.game_id in ids:
        return [("changed", f"the game in play ({t.stand.store.game_id}) is in the history")]
    return []


__all__ = ["SCENARIOS", "Table", "run"]
