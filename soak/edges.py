"""The edges (issue 35): a disk that fails while the stand runs, two stands at
once, SIGKILL where the store rewrites and moves files, a stuck panel under
SIGKILL.

- `eio`: an LD_PRELOAD shim (soak/eio_shim.c, built with gcc) fails the state
  dir's fsync, write or both for a window while the stand plays through its page.
  An input in the window is not taken and both screens say so; once the window
  closes the stand takes input again by itself, the unshown record gone (else
  `stranded`, `phantom`). A window longer than the stand's RECOVER_FOR: it stops,
  both screens blanked, exit 1, and starts again (as systemd would) where it was.
- `readonly` (root): the state dir on a loop-mounted ext4 (errors=remount-ro)
  remounted read-only by a filesystem error mid-game (/sys/fs/ext4/DEV/
  trigger_fs_error). The stand stops blanked with exit 1; the image is checked
  (e2fsck) and mounted again, and the stand restarted comes back to every input
  it took, and takes input again.
- `two`: two `keystand run` started within a millisecond or two on one state dir
  (fresh, and with a game in play): one is refused (exit 1, writing nothing),
  the other plays; the journal holds one run's events, never both.
- `rotation`: SIGKILL at random moments while New game moves games to the
  history with history.jsonl at 400 lines (its rewrite to the newest 200) and
  200 games kept (the oldest removed): every line parses, none twice, the newest
  200 kept, every game archived listed and every game listed kept.
- `fullkill` (root): the kill chain on a 1 MB tmpfs filled to 0..16 free pages.
- `stuck`: the kill chain on emulated builds with panel A busy-stuck.

After every run: each frame a panel finished showing (`--shown-log`) is on disk
in its game's journal, `keystand state` loads the state dir, no traceback.
"""

from __future__ import annotations

import errno
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kill
import oracle
from common import ROOT, Context, Tally, case_rng, keystand, sound_records, spawn

from keystand import games
from keystand.journal import CHECKPOINT
from keystand.rules import Seat
from keystand.store import RECOVER_EVERY, RECOVER_FOR

CODES = {"duet": "JYVN-0YEP-FZX9", "classic": "9CY-EPF-ZXQ"}
WAIT = 60.0  # seconds: a bound on the stand's answer (a loaded machine), never a measure
PAGE_SIZE = 4096
FREE_PAGES = (0, 1, 2, 4, 8, 16)
HISTORY_LINES = 400  # the next game moved to the history rewrites history.jsonl
KEPT_GAMES = 200


# Each part: its function and how many cases it runs at least (then more while
# its share of the time lasts); --quick runs one or two of each.
PARTS: tuple[tuple[str, int], ...] = (
    ("two", 30),
    ("eio", 6),
    ("readonly", 2),
    ("rotation", 20),
    ("stuck", 6),
    ("fullkill", 8),
)


def run(ctx: Context, tally: Tally) -> None:
    funcs: dict[str, Callable[[Context, Tally, int], None]] = {
        "two": _two_stands,
        "eio": _eio,
        "readonly": _read_only,
        "rotation": _rotation,
        "stuck": _stuck,
        "fullkill": _full_kill,
    }
    end = ctx.deadline
    for n, (name, least) in enumerate(PARTS):
        if ctx.case is not None and not (ctx.case == name or ctx.case.startswith(name + ":")):
            continue
        # Each part its share of what is left (the last one the rest), and its least.
        left = max(end - time.monotonic(), 0.0)
        ctx.deadline = time.monotonic() + left / (len(PARTS) - n)
        began = time.monotonic()
        funcs[name](ctx, tally, 1 if ctx.quick else least)
        tally.add(f"seconds_{name}", round(time.monotonic() - began))
    ctx.deadline = end


def _more(ctx: Context, n: int, least: int) -> bool:
    """Whether a part runs its case number `n`: at least `least`, then while its
    time lasts; a repro (`--case PART:N:...`) up to its own case only."""
    fields = (ctx.case or "").split(":")
    if len(fields) > 1 and fields[1].isdigit():
        return n <= int(fields[1])
    return n < least or (not ctx.quick and ctx.left() > 0)


# ----- a stand driven through its page ---------------------------------------------------


class PageStand:
    """`keystand run` on the desktop profile serving its page on a free port, a
    shown log beside it; inputs posted as a table's hardware sends them."""

    def __init__(
        self, folder: Path, state: Path, game: str, *, env: dict[str, str] | None = None
    ) -> None:
        self.folder, self.state, self.game = folder, state, game
        self.shown = folder / "shown.log"
        self.shown_at = self.shown.stat().st_size if self.shown.exists() else 0
        self.log = folder / f"stand-{len(list(folder.glob('stand-*.log')))}.log"
        args: list[str | Path] = [
            "run", "--profile", "desktop", "--config", folder / "settings.toml",
            "--port", "0", "--speed", "0", "--state-dir", state, "--shown-log", self.shown,
            "--game", game,
        ]  # fmt: skip
        (folder / "settings.toml").write_text("# the soak's: nothing from /etc\n")
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "keystand", *map(str, args)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                env=env,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = ""
        deadline = time.monotonic() + WAIT
        while not self.url and time.monotonic() < deadline and self.proc.poll() is None:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if "the simulator page is at " in line:
                self.url = line.split(" at ", 1)[1].strip()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode(errors="replace"))

    @property
    def up(self) -> bool:
        return bool(self.url) and self.proc.poll() is None

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "status", timeout=WAIT) as r:
            return dict(json.load(r))

    def cannot_save(self) -> bool:
        return bool(self.status().get("cannot_save"))

    def post(self, line: str) -> None:
        req = urllib.request.Request(self.url + "input", data=line.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=WAIT):
            pass

    def until(self, ok: Callable[[], bool], seconds: float = WAIT) -> bool:
        """Whether `ok()` came true within `seconds` (False also if the stand ended)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if ok():
                    return True
            except (OSError, ValueError):
                pass  # the page not answering: the stand stopping, or gone
            if self.proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def records(self) -> list[dict[str, Any]]:
        return sound_records(self.state / "current.journal")

    def showing(self) -> bool:
        """Whether both panels have finished a frame since this stand started."""
        with open(self.shown, "rb") as f:
            f.seek(self.shown_at)
            seats = {ln.split()[0] for ln in f.read().decode(errors="replace").splitlines() if ln}
        return {"A", "B"} <= seats

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(WAIT)

    def said(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def shown_frames(shown: Path) -> list[tuple[str, str, int]]:
    """(seat, game id, records) of each game frame in a shown log."""
    out = []
    for line in shown.read_text().splitlines() if shown.exists() else []:
        fields = line.split()
        if len(fields) == 3 and fields[2].isdigit():
            out.append((fields[0], fields[1], int(fields[2])))
    return out


def last_shown(shown: Path) -> dict[str, str]:
    """Each seat's last line in a shown log."""
    last: dict[str, str] = {}
    for line in shown.read_text().splitlines() if shown.exists() else []:
        last[line.split()[0]] = line
    return last


def shown_on_disk(state: Path, shown: Path) -> list[tuple[str, str]]:
    """A problem for each frame shown whose records are not on disk."""
    problems = []
    for seat, game_id, count in shown_frames(shown):
        on_disk = kill._records_of(state, game_id)
        if on_disk < count:
            problems.append(
                ("lost", f"seat {seat} showed game {game_id} at {count} records; {on_disk} on disk")
            )
    return problems


@dataclass(frozen=True)
class Move:
    """What the page sends for one event the stand journals: its lines, the
    event, and the seat left choosing its clue's number if the disk refuses it."""

    lines: tuple[str, ...]
    text: str
    numbering: str | None = None


def pick(
    records: list[dict[str, Any]], rng: random.Random, numbering: dict[str, str]
) -> Move | None:
    """A move the page may send that the rules take now, keeping the game in play;
    None when there is none. A game whose clue takes a number (classic, the
    menu's Clue number on by default): the clue key chooses the number (from its
    start), the menu key gives the clue; a seat still choosing (`numbering`, its
    number: a give the disk refused keeps it) only gives it."""
    if not records or records[-1].get("t") == "end":
        return None
    game, state = oracle.replay(records)
    if not game.playing(state):
        return None
    found: list[Move] = []
    numbers = game.clue_numbers
    for seat in ("A", "B"):
        for key in ("clue", "pass"):
            event = game.key_event(state, Seat(seat), key)
            if event is None:
                continue
            if key == "clue" and numbers is not None:
                number = numbering.get(seat)
                give = f"press {seat} menu"
                lines = (give,) if number is not None else (f"press {seat} clue", give)
                event = game.numbered_clue(state, Seat(seat), number or numbers.start)
                if event is not None:
                    found.append(Move(lines, str(event), seat))
            elif seat not in numbering:  # a seat choosing a number: its keys walk it
                found.append(Move((f"press {seat} {key}",), str(event)))
    grid = game.grid
    for row in range(grid.rows):
        for col in range(grid.cols):
            event = game.touch_event(state, row, col, penalty=False)
            found.append(Move((f"touch {row} {col}",), str(event)))
    takes = []
    for move in found:
        after, result = state.apply(game.parse_event(move.text))
        if not games.refused(result) and game.playing(after):
            takes.append(move)
    return rng.choice(takes) if takes else None


@dataclass
class Play:
    """One stand's run through its page, with what was taken."""

    ctx: Context
    tally: Tally
    case: str
    stand: PageStand
    rng: random.Random
    taken: list[str] = field(default_factory=list)  # the events journaled, in order
    # Seats choosing their clue's number (a give the disk refused keeps it) in this
    # stand's run: a restart forgets them, as the stand does.
    numbering: dict[str, str] = field(default_factory=dict)
    failed: bool = False

    def fail(self, kind: str, what: str) -> None:
        if not self.failed:
            self.failed = True
            keep = [self.stand.state, self.stand.shown, *self.stand.folder.glob("stand-*.log")]
            self.tally.fail(self.case, kind, what, keep=keep)

    def take(self, n: int) -> None:
        """Post `n` inputs the rules take, each journaled and shown before the next."""
        for _ in range(n):
            before = self.stand.records()
            chosen = pick(before, self.rng, self.numbering)
            if chosen is None:
                return
            line, text = " then ".join(chosen.lines), chosen.text
            for posted in chosen.lines:
                self.stand.post(posted)

            def journaled(before: list[Any] = before, text: str = text) -> bool:
                added = self.stand.records()[len(before) :]  # a checkpoint may follow it
                events = [r for r in added if r.get("t") != CHECKPOINT]
                return len(events) == 1 and added[0].get("e") == text

            def shown() -> bool:
                count = len(self.stand.records())  # the frame's count: its checkpoint too
                seats = {s for s, _g, c in shown_frames(self.stand.shown) if c == count}
                return seats == {"A", "B"}

            if not self.stand.until(journaled) or not self.stand.until(shown):
                self.fail("stranded", f"{line!r} ({text}) not journaled and shown on a sound disk")
                return
            self.taken.append(text)
            self.numbering.clear()  # any event taken ends the choosing (the stand's too)
            self.tally.add("inputs_taken")

    def refused_for_disk(self, lines: int) -> list[dict[str, Any]] | None:
        """Post up to `lines` inputs while the disk fails: the screens must say
        "cannot save" at once. The records as they were (None: nothing to post)."""
        before = self.stand.records()
        chosen = pick(before, self.rng, self.numbering)
        if chosen is None:
            return None
        for n in range(lines):
            # Again and again as a player would: the give alone once choosing.
            for posted in chosen.lines if n == 0 else chosen.lines[-1:]:
                self.stand.post(posted)
            if chosen.numbering is not None and n == 0:
                self.numbering.setdefault(chosen.numbering, self._start())
            if n == 0 and not self.stand.until(self.stand.cannot_save):
                if self.stand.proc.poll() is None:
                    said = " then ".join(chosen.lines)
                    self.fail("untold", f"{said!r} in a failing disk's window: no 'cannot save'")
                return None
            self.tally.add("inputs_refused_for_disk")
        return before

    def _start(self) -> str:
        numbers = games.get(self.stand.game).clue_numbers
        assert numbers is not None
        return numbers.start

    def check_end(self) -> None:
        """What is on disk once the stand has stopped: every frame shown, and the
        events taken, no more, no other."""
        state, shown = self.stand.state, self.stand.shown
        for kind, what in shown_on_disk(state, shown):
            self.fail(kind, what)
        self.tally.add("shown_frames_checked", len(shown_frames(shown)))
        events = [str(r["e"]) for r in sound_records(state / "current.journal")[1:] if "e" in r]
        if events != self.taken:
            extra = len(events) > len(self.taken) and events[: len(self.taken)] == self.taken
            kind = "phantom" if extra else ("lost" if len(events) < len(self.taken) else "changed")
            self.fail(kind, f"journaled {events}, taken {self.taken}")
        for kind, what in kill._loads(state):
            self.fail(kind, what)
        said = "\n".join(p.read_text(errors="replace") for p in self.stand.folder.glob("*.log"))
        if "Traceback" in said:
            self.fail("crashes", kill._tail(said))


# ----- eio: the shim's windows ----------------------------------------------------------


def _shim(ctx: Context, tally: Tally) -> Path | None:
    gcc = shutil.which("gcc")
    if gcc is None:
        tally.notes.append("eio skipped: no gcc to build soak/eio_shim.c")
        return None
    out = ctx.work / "edges" / "eio_shim.so"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists():
        subprocess.run(
            [gcc, "-shared", "-fPIC", "-O2", "-o", out, ROOT / "soak" / "eio_shim.c", "-ldl"],
            check=True,
            timeout=WAIT,
        )
    return out


def _eio(ctx: Context, tally: Tally, least: int) -> None:
    shim = _shim(ctx, tally)
    if shim is None:
        return
    modes = ("fsync", "write", "both")
    n = 0
    while _more(ctx, n, least):
        game = ("duet", "classic")[n % 2]
        mode = modes[(n // 2) % len(modes)]
        long = n % 6 == 5  # every sixth window outlasts RECOVER_FOR: the restart path
        case = f"eio:{n}:{game}:{mode}:{'long' if long else 'short'}"
        n += 1
        if ctx.wants(case):
            _eio_window(ctx, tally, shim, case, game, mode, long)


def _eio_window(
    ctx: Context, tally: Tally, shim: Path, case: str, game: str, mode: str, long: bool
) -> None:
    rng = case_rng(ctx.seed, case)
    folder = ctx.work / "edges" / case.replace(":", "-")
    folder.mkdir(parents=True)
    state, switch = folder / "state", folder / "eio"
    env = {
        **os.environ,
        "LD_PRELOAD": str(shim),
        "KEYSTAND_EIO_DIR": str(state),
        "KEYSTAND_EIO_SWITCH": str(switch),
    }
    stand = PageStand(folder, state, game, env=env)
    play = Play(ctx, tally, case, stand, rng)
    tally.add("eio_windows")
    try:
        if not stand.up or not stand.until(stand.showing):
            play.fail("crashes", f"the stand did not start: {kill._tail(stand.said())}")
            return
        play.take(rng.randint(1, 4))
        switch.write_text(mode)
        before = play.refused_for_disk(rng.randint(1, 3))
        if before is None:
            switch.unlink(missing_ok=True)
            return
        if long:
            _outlast(play, switch, before)
            return
        time.sleep(rng.uniform(0.0, 2 * RECOVER_EVERY))  # the stand tries again meanwhile
        switch.unlink()
        # A write that could not be taken back: the stand checks the journal again
        # and says it can save, by itself. One that was taken back (a failed write
        # whose cut and fsync worked) says so at the next input it takes.
        if stand.until(lambda: not stand.cannot_save(), 2 * RECOVER_EVERY + 5):
            tally.add("recovered_by_itself")
        if stand.records() != before:
            play.fail("phantom", f"an input not taken is on disk: {stand.records()[len(before) :]}")
            return
        play.take(rng.randint(1, 3))
        if not play.failed and stand.cannot_save():
            play.fail("stranded", "inputs taken, and the screens still say it cannot save")
    finally:
        switch.unlink(missing_ok=True)
        if play.stand.proc.poll() is None and play.stand.stop() != 0:
            play.fail(
                "crashes", f"exit {play.stand.proc.returncode}: {kill._tail(play.stand.said())}"
            )
        play.check_end()
    if not play.failed:
        shutil.rmtree(folder)


def _outlast(play: Play, switch: Path, before: list[dict[str, Any]]) -> None:
    """The disk fails longer than RECOVER_FOR: the stand stops by itself, blanked,
    exit 1; started again (as systemd would) it is back where it was."""
    stand, tally = play.stand, play.tally
    try:
        code = stand.proc.wait(RECOVER_FOR + WAIT)
    except subprocess.TimeoutExpired:
        play.fail("stranded", f"the disk failed for over {RECOVER_FOR:g} s and the stand waits")
        return
    if code != 1:
        play.fail("crashes", f"exit {code} (1 wanted): {kill._tail(stand.said())}")
        return
    if last_shown(stand.shown) != {"A": "A neutral", "B": "B neutral"}:
        play.fail("untold", f"stopped, its screens left as {last_shown(stand.shown)}")
        return
    tally.add("stopped_blanked_exit_1")
    switch.unlink()
    again = PageStand(stand.folder, stand.state, stand.game, env=None)
    play.stand, play.numbering = again, {}
    if not again.up or not again.until(again.showing):
        play.fail("stranded", f"the restart did not come up: {kill._tail(again.said())}")
        return
    if again.records() != before:
        play.fail("phantom", f"after the restart: {again.records()[len(before) :]} on disk")
        return
    tally.add("restarted_where_it_was")
    play.take(2)


# ----- readonly: ext4 remounted read-only by an error ------------------------------------


@contextmanager
def _ext4(folder: Path) -> Iterator[tuple[Path, Path]]:
    """A 16 MB ext4 image (errors=remount-ro) mounted on folder/mnt: (image, mount)."""
    image, mount = folder / "ext4.img", folder / "mnt"
    mount.mkdir(parents=True)
    with open(image, "wb") as f:
        f.truncate(16 * 1024 * 1024)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True, timeout=WAIT)
    subprocess.run(
        ["mount", "-o", "loop,errors=remount-ro", str(image), str(mount)],
        check=True,
        capture_output=True,
        timeout=WAIT,
    )
    try:
        yield image, mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False, capture_output=True)


def _read_only(ctx: Context, tally: Tally, least: int) -> None:
    if os.geteuid() != 0:
        tally.notes.append("readonly skipped: not root (a loop mount needs root)")
        return
    n = 0
    while _more(ctx, n, least):
        game = ("duet", "classic")[n % 2]
        case = f"readonly:{n}:{game}"
        n += 1
        if ctx.wants(case):
            try:
                _read_only_once(ctx, tally, case, game)
            except subprocess.CalledProcessError as e:
                tally.notes.append(f"readonly skipped: {e.cmd[0]}: {(e.stderr or b'').strip()!r}")
                return


def _read_only_once(ctx: Context, tally: Tally, case: str, game: str) -> None:
    rng = case_rng(ctx.seed, case)
    folder = ctx.work / "edges" / case.replace(":", "-")
    folder.mkdir(parents=True)
    with _ext4(folder) as (image, mount):
        state = mount / "state"
        stand = PageStand(folder, state, game)
        play = Play(ctx, tally, case, stand, rng)
        tally.add("readonly_remounts")
        try:
            if not stand.up or not stand.until(stand.showing):
                play.fail("crashes", f"the stand did not start: {kill._tail(stand.said())}")
                return
            play.take(rng.randint(1, 4))
            device = Path(
                subprocess.run(
                    ["findmnt", "-no", "SOURCE", str(mount)],
                    capture_output=True, text=True, check=True, timeout=WAIT,
                ).stdout.strip()
            ).name  # fmt: skip
            Path(f"/sys/fs/ext4/{device}/trigger_fs_error").write_text("soak: read-only\n")
            before = play.refused_for_disk(rng.randint(1, 3))
            if before is None:
                return
            try:
                code = stand.proc.wait(RECOVER_FOR + WAIT)
            except subprocess.TimeoutExpired:
                play.fail("stranded", "read-only for good, and the stand waits for a person")
                return
            if code != 1:
                play.fail("crashes", f"exit {code} (1 wanted): {kill._tail(stand.said())}")
                return
            if last_shown(stand.shown) != {"A": "A neutral", "B": "B neutral"}:
                play.fail("untold", f"stopped, its screens left as {last_shown(stand.shown)}")
                return
            tally.add("stopped_blanked_exit_1")
            # What a person, or the boot, does: check the filesystem, mount it again.
            subprocess.run(["umount", str(mount)], check=True, capture_output=True, timeout=WAIT)
            fsck = subprocess.run(["e2fsck", "-fy", str(image)], capture_output=True, timeout=WAIT)
            if fsck.returncode not in (0, 1):
                tally.notes.append(f"{case}: e2fsck exit {fsck.returncode}")
            subprocess.run(
                ["mount", "-o", "loop,errors=remount-ro", str(image), str(mount)],
                check=True, capture_output=True, timeout=WAIT,
            )  # fmt: skip
            again = PageStand(folder, state, game)
            play.stand, play.numbering = again, {}
            if not again.up or not again.until(again.showing):
                play.fail("stranded", f"the restart did not come up: {kill._tail(again.said())}")
                return
            if again.records() != before:
                play.fail("lost", f"after fsck and a restart: {len(again.records())} records, "
                          f"{len(before)} taken")  # fmt: skip
                return
            tally.add("restarted_where_it_was")
            play.take(2)
        finally:
            if play.stand.proc.poll() is None and play.stand.stop() != 0:
                play.fail("crashes", f"exit {play.stand.proc.returncode}")
            play.check_end()
            if play.failed:
                shutil.copytree(state, folder / "state-kept", dirs_exist_ok=True)
    if not play.failed:
        shutil.rmtree(folder)


# ----- two: two stands started at once ----------------------------------------------------


def _two_stands(ctx: Context, tally: Tally, least: int) -> None:
    n = 0
    gaps = []
    while _more(ctx, n, least) and n < 4 * max(least, 15):
        fresh = n % 2 == 0
        case = f"two:{n}:{'fresh' if fresh else 'in-play'}"
        n += 1
        if ctx.wants(case):
            gap = _two_once(ctx, tally, case, fresh)
            if gap is not None:
                gaps.append(gap)
    if gaps:
        tally.notes.append(
            f"two stands: {len(gaps)} pairs started {min(gaps):.2f} to {max(gaps):.2f} ms apart"
        )


def _two_once(ctx: Context, tally: Tally, case: str, fresh: bool) -> float | None:
    folder = ctx.work / "edges" / case.replace(":", "-")
    folder.mkdir(parents=True)
    state = folder / "state"
    (folder / "settings.toml").write_text("# the soak's\n")
    base = [
        "run", "--profile", "desktop", "--config", str(folder / "settings.toml"),
        "--state-dir", str(state), "--speed", "0", "--no-page",
    ]  # fmt: skip
    if not fresh:
        (folder / "first.txt").write_text("clue A\n")
        done = keystand(*base, "--card-code", CODES["duet"], "--script", folder / "first.txt")
        if done.returncode != 0:
            tally.fail(case, "crashes", f"the first game: {kill._tail(done.stderr)}")
            return None
    before = sound_records(state / "current.journal")
    procs, logs = [], []
    # Each its own event (a fresh game's first clue; in the game in play, where A
    # gave the clue, B's touch of its own word), then long enough for the other.
    mine = {"A": "clue A", "B": "clue B"} if fresh else {"A": "touch 2 2", "B": "touch 3 3"}
    for seat, line in mine.items():
        (folder / f"{seat}.txt").write_text(f"{line}\nwait 1500\n")
    args = [
        [
            *base,
            "--script",
            str(folder / f"{seat}.txt"),
            "--shown-log",
            str(folder / f"{seat}.shown"),
        ]
        for seat in ("A", "B")
    ]
    started = []
    for seat, a in zip(("A", "B"), args, strict=True):
        logs.append(folder / f"{seat}.log")
        started.append(time.monotonic())
        procs.append(spawn(a, logs[-1]))
    gap = (started[1] - started[0]) * 1e3
    codes = [p.wait(WAIT * 2) for p in procs]
    said = [log.read_text(errors="replace") for log in logs]
    tally.add("two_stand_pairs")
    problems: list[tuple[str, str]] = []
    refused = [i for i, code in enumerate(codes) if code == 1 and "is in use by another" in said[i]]
    ran = [i for i, code in enumerate(codes) if code == 0]
    if any("Traceback" in s for s in said):
        problems.append(("crashes", kill._tail("\n".join(said))))
    if len(refused) != 1 or len(ran) != 1:
        kind = "double" if len(ran) == 2 else "stranded"
        problems.append((kind, f"exits {codes}: {kill._tail(' | '.join(said))}"))
    else:
        tally.add("one_refused")
        loser = "AB"[refused[0]]
        if (folder / f"{loser}.shown").exists():
            problems.append(("changed", f"the refused run wrote its shown log ({loser})"))
        now = sound_records(state / "current.journal")
        past = now[max(len(before), 1) :]  # past the start; a checkpoint is no event
        events = [str(r.get("e")) for r in past if r.get("t") != CHECKPOINT]
        if now[: len(before)] != before:
            problems.append(("changed", "the game in play before them changed"))
        if len(events) != 1:
            problems.append(("double", f"journaled {events}: one run's one event wanted"))
        for kind, what in shown_on_disk(state, folder / f"{'AB'[ran[0]]}.shown"):
            problems.append((kind, what))
        for stray in (p.name for p in state.iterdir()) if state.is_dir() else ():
            if stray.endswith(".tmp") or stray.startswith("."):
                problems.append(("changed", f"left in the state dir: {stray}"))
    for kind, what in kill._loads(state):
        problems.append((kind, what))
    for kind, what in problems:
        tally.fail(case, kind, what, keep=[folder])
    if not problems:
        shutil.rmtree(folder)
    return gap


# ----- rotation: SIGKILL while games move to a long history ------------------------------


def _template(ctx: Context, game: str) -> Path:
    """A state dir with a game in play, history.jsonl at 400 lines and 200 games kept."""
    folder = ctx.work / "edges" / f"template-{game}"
    if folder.exists():
        return folder / "state"
    folder.mkdir(parents=True)
    state = folder / "state"
    (folder / "s.txt").write_text("wait 10\n")
    done = keystand(
        "run", "--profile", "desktop", "--state-dir", state, "--speed", "0", "--no-page",
        "--game", game, "--card-code", CODES[game], "--script", folder / "s.txt",
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the template's stand: {done.stderr[-400:]}")
    journal = (state / "current.journal").read_bytes()
    lines = []
    for n in range(HISTORY_LINES):
        gid = f"old{n:05d}"
        entry = {"id": gid, "date": "2026-01-01T12:00:00+0000", "game": game, "result": "lost"}
        lines.append(json.dumps(entry, sort_keys=True) + "\n")
        if n >= HISTORY_LINES - KEPT_GAMES:
            path = state / "games" / f"{gid}.journal"
            path.write_bytes(journal)
            os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))  # oldest first
    (state / "history.jsonl").write_text("".join(lines))
    return state


def _rotation(ctx: Context, tally: Tally, least: int) -> None:
    n = 0
    while _more(ctx, n, least):
        game = ("duet", "classic")[n % 2]
        case = f"rotation:{n}:{game}"
        n += 1
        if ctx.wants(case):
            _rotation_cut(ctx, tally, case, game)


def _rotation_cut(ctx: Context, tally: Tally, case: str, game: str) -> None:
    rng = case_rng(ctx.seed, case)
    folder = ctx.work / "edges" / case.replace(":", "-")
    folder.mkdir(parents=True)
    state = folder / "state"
    shutil.copytree(_template(ctx, game), state)
    old_ids = [json.loads(ln)["id"] for ln in (state / "history.jsonl").read_text().splitlines()]
    (folder / "settings.toml").write_text("# the soak's\n")
    cycles = rng.randint(1, 4)
    first = "clue A" if game == "duet" else "clue red 1"
    script = "".join(
        f"{oracle.NEW_GAME}{first}\nwait {rng.randint(0, 40)}\n" for _ in range(cycles)
    )
    (folder / "script.txt").write_text(script)
    shown = folder / "shown.log"
    args: list[str | Path] = [
        "run", "--profile", "desktop", "--config", folder / "settings.toml", "--state-dir",
        state, "--speed", "0", "--no-page", "--script", folder / "script.txt",
        "--shown-log", shown,
    ]  # fmt: skip
    address = str(folder / "notify")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    proc = spawn(args, folder / "stand.log", {**os.environ, "NOTIFY_SOCKET": address})
    killed = False
    try:
        if kill._ready(listener, proc):
            try:
                proc.wait(rng.uniform(0.0, 0.4 * cycles + 0.3))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait(WAIT)
                killed = True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT)
        listener.close()
        Path(address).unlink(missing_ok=True)
    tally.add("rotation_cuts" if killed else "rotation_runs_ended")
    (folder / "after.txt").write_text("wait 10\n")
    done = keystand(*args[:-4], "--script", folder / "after.txt", "--shown-log", shown)
    problems: list[tuple[str, str]] = []
    said = (folder / "stand.log").read_text(errors="replace") + done.stderr
    if done.returncode != 0 or "Traceback" in said:
        problems.append(("crashes", f"exit {done.returncode}: {kill._tail(said)}"))
    history = (state / "history.jsonl").read_text(errors="replace").splitlines()
    ids = []
    for number, line in enumerate(history, 1):
        try:
            ids.append(str(json.loads(line)["id"]))
        except (ValueError, KeyError, TypeError):
            problems.append(("lost", f"history.jsonl line {number} does not parse: {line[:80]!r}"))
    if len(ids) != len(set(ids)):
        problems.append(("double", "a game listed twice in history.jsonl"))
    # The rewrite keeps the newest 200 lines: the old games still listed are the
    # newest of them, in order, and no fewer than 200 lines stay in all.
    old_kept = [i for i in ids if i.startswith("old")]
    ours = [i for i in ids if not i.startswith("old")]
    if old_kept != old_ids[len(old_ids) - len(old_kept) :]:
        problems.append(("lost", "the old games still listed are not the newest, in order"))
    if len(ids) < min(len(old_ids) + len(ours), KEPT_GAMES):
        problems.append(("lost", f"{len(ids)} lines left by the rewrite (the newest 200 kept)"))
    if len(old_kept) < len(old_ids):
        tally.add("history_rewrites_seen")
    kept = {p.stem for p in (state / "games").glob("*.journal")}
    current = sound_records(state / "current.journal")
    in_play = str(current[0].get("id")) if current else None
    for gid in set(ours) - kept - {in_play}:
        problems.append(("lost", f"game {gid} is listed but its journal is gone"))
    for gid in {k for k in kept if not k.startswith("old")} - set(ids):
        problems.append(("lost", f"game {gid} was archived but is not listed"))
    problems += shown_on_disk(state, shown)
    tally.add("shown_frames_checked", len(shown_frames(shown)))
    problems += kill._loads(state)
    for kind, what in problems:
        tally.fail(case, kind, what, keep=[folder])
    if not problems:
        shutil.rmtree(folder)


# ----- stuck and fullkill: the kill chain with a stuck panel, on a full disk -------------


def _chains(
    ctx: Context, tally: Tally, name: str, make: Callable[[kill.Chain], kill.Chain]
) -> list[kill.Chain]:
    chains = []
    for game in ("duet", "classic"):
        chain_name = f"{name}-{game}"
        if not ctx.wants(chain_name) and ctx.case != name:
            continue
        folder = ctx.work / "edges" / chain_name
        folder.mkdir(parents=True)
        chains.append(make(kill.Chain(chain_name, game, folder, case_rng(ctx.seed, chain_name))))
    (ctx.work / "kill").mkdir(exist_ok=True)
    (ctx.work / "kill" / "settings.toml").write_text("# the soak's: nothing from /etc\n")
    return chains


def _run_chains(
    ctx: Context,
    tally: Tally,
    chains: list[kill.Chain],
    least: int,
    at_last: Callable[[kill.Chain], None] | None = None,
) -> None:
    """The chains cut in turn, each at least `least` times and while time lasts;
    then each one's last run, let end (`at_last` first: the space given back)."""
    lock = threading.Lock()
    live = list(chains)
    while live:
        for chain in list(live):
            limit = ctx.limit if ctx.limit is not None else (2 if ctx.quick else None)
            over = ctx.left() <= 0 and chain.cuts >= least
            if over or (limit is not None and chain.cuts >= limit):
                if at_last is not None:
                    at_last(chain)
                kill._last_restart(ctx, tally, chain, lock)
                live.remove(chain)
            elif not kill._cut(ctx, tally, chain, lock, kill=True):
                live.remove(chain)


def _stuck(ctx: Context, tally: Tally, least: int) -> None:
    def make(chain: kill.Chain) -> kill.Chain:
        chain.builds = ("minimal", "touch-serial", "touch-mpr121")
        chain.extra = ("--emulate-fault", "A:busy-stuck")
        chain.skips = True  # seat A's clue (and what follows it) is held
        return chain

    before = tally.counts.get("cuts", 0)
    _run_chains(ctx, tally, _chains(ctx, tally, "stuck", make), least)
    tally.add("stuck_cuts", tally.counts.get("cuts", 0) - before)


def _full_kill(ctx: Context, tally: Tally, least: int) -> None:
    if os.geteuid() != 0:
        tally.notes.append("fullkill skipped: not root (mounting a tmpfs needs root)")
        return
    mounts: list[Path] = []

    def fill(chain: kill.Chain) -> None:
        filler = chain.state / ".soak-filler"
        filler.unlink(missing_ok=True)
        with open(filler, "ab", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * PAGE_SIZE)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
        size = filler.stat().st_size
        os.truncate(filler, max(0, size - chain.rng.choice(FREE_PAGES) * PAGE_SIZE))

    def make(chain: kill.Chain) -> kill.Chain:
        chain.state.mkdir()
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(chain.state)],
            check=True, capture_output=True, timeout=WAIT,
        )  # fmt: skip
        mounts.append(chain.state)
        chain.skips = True  # an input the full disk refused is not taken
        chain.before_run = fill
        return chain

    def room(chain: kill.Chain) -> None:  # the last run: space given back
        (chain.state / ".soak-filler").unlink(missing_ok=True)
        chain.before_run = None

    try:
        chains = _chains(ctx, tally, "fullkill", make)
        before = tally.counts.get("cuts", 0)
        _run_chains(ctx, tally, chains, least, at_last=room)
        tally.add("fullkill_cuts", tally.counts.get("cuts", 0) - before)
    finally:
        for mount in mounts:
            subprocess.run(["umount", "-l", str(mount)], check=False, capture_output=True)


__all__ = ["run"]
