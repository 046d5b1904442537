"""The state directory: the current game's journal, finished games, the games' records.

    <state dir>/current.journal      the game being played (journal.py records)
    <state dir>/games/*.journal      finished or abandoned games, newest kept
    <state dir>/history.jsonl        one line per finished game (fsync'd)
    <state dir>/<record>.json        a game's record (`Game.record`): wins by label, best
                                     scores (atomic replace); Duet's is campaign.json
    <state dir>/<record>s/<n>.json   records finished by the menu's new one, kept as they were
    <state dir>/settings.json        the menu's choices: next mission, order, languages
    <state dir>/stand.lock           held by the `keystand run` playing here; its pid

Everything is created readable by the service user only. A game's first record
is its start (the game's name and rules version, its card and choices, an id:
the game's own `start_record`); every other record is one accepted event in the
game's script text form (`touch 1 2`), so a journal reads like a script. The
store knows no game by name: each record goes through the game it names
(`keystand.games`), and a start record that names none is Duet's.

Resume does not grow with the journal: now and then an event's record is
followed, in the same write, by a checkpoint (`journal.CHECKPOINT`) holding the
game's events as they stand, undo churn left out (each state's `previous`
chain: the events an undo can still take back), and vouching for the bytes
before it. A start whose journal holds the bytes the last checkpoint vouches for
parses record 0 and the records from that checkpoint on, and replays its events
and those records; else every record, checkpoints passed over. A checkpoint it
cannot use (its events refused by the rules in force) is passed over and the
whole journal replayed, from the bytes already read. A checkpoint is written once at least
`checkpoint_every` records and as many as its own events have followed the last
one, so checkpoints at most double a journal, and a start replays fewer than
twice the game's own events plus `checkpoint_every` records (docs/reliability.md).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import games
from .journal import (
    CHECKPOINT,
    Found,
    Journal,
    JournalError,
    JournalLost,
    Loaded,
    Record,
    Recovery,
    atomic_write,
    cut,
    fsync_dir,
    keep_aside,
    look,
)
from .rules import EventError
from .rules.core import Undo

CURRENT = "current.journal"
SETTINGS = "settings.json"
NEXT = "next.journal"  # a new game's start, until it replaces the current game
SETTINGS_CAP = 64 * 1024  # the menu's choices take a few hundred bytes
LOCK = "stand.lock"  # one stand per state dir: run.claim_state_dir
KEEP_GAMES = 200
CHECKPOINT_EVERY = 64  # records between checkpoints, at least (the start replays fewer)
# A journal whose failed write could not be taken back (a transient EIO, a disk
# remounted read-only) is checked again this often, by itself; if it cannot be
# trusted again within RECOVER_FOR, the stand stops (its screens blanked) with a
# status systemd restarts, as the start's repair can go on where this cannot.
RECOVER_EVERY = 2.0  # seconds
RECOVER_FOR = 30.0  # seconds

log = logging.getLogger(__name__)


def default_state_dir() -> Path:
    """$STATE_DIRECTORY (systemd's StateDirectory=) else the XDG state dir."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "keystand"


@dataclass(frozen=True)
class Resumed:
    """The game found in the state dir on start, and what had to be repaired."""

    state: Any  # a game's state (games.of_state names the game)
    game_id: str
    recovery: Recovery
    skipped: tuple[str, ...] = ()  # records that could not be used, with why


Replayed = tuple[Any, str, tuple[str, ...]]  # a game's state, its id, the records not used


@dataclass(frozen=True)
class Seen:
    """The current journal as a start first read it (`Store.peek`, to choose the
    game) and its replay: handed to the store that resumes it, so a start reads
    and replays the journal once (unless the file changed in between)."""

    found: Found
    replayed: tuple[Loaded, Replayed] | None = None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Store:
    """The state dir of one stand. Not thread-safe: the service loop owns it."""

    def __init__(
        self,
        root: Path,
        *,
        create: bool = True,
        recover_for: float = RECOVER_FOR,
        seen: Seen | None = None,
    ) -> None:
        self.root = root
        if create:
            self.make()
        self._found = seen.found if seen else None  # the journal as read: read once
        self._replayed = seen.replayed if seen else None  # and replayed once
        self.checkpoint_every = CHECKPOINT_EVERY
        self._since_checkpoint = 0  # records since the last checkpoint (or the start)
        self._journal: Journal | None = None
        self.game_id: str | None = None
        self._last_at: str | None = None  # when the current game's last event was journaled
        self._ended = False  # the journal's last record is an end not yet moved to the history
        self.recover_every, self.recover_for = RECOVER_EVERY, recover_for
        self._broken_since: float | None = None  # when `recover` first found it broken
        self._tried_at = 0.0
        # Why the journal cannot be trusted again in this run: the stand stops, to
        # be started again (its start repairs what can be, and says so).
        self.given_up: str | None = None

    def make(self) -> None:
        """The state dir and its games/ folder, if missing (`keystand run` calls it
        once its start is decided: a refused start makes nothing)."""
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        (self.root / "games").mkdir(exist_ok=True, mode=0o700)

    @classmethod
    def reader(cls, root: Path) -> Store:
        """A store to read (`peek`, `history`) that creates and changes nothing."""
        return cls(root, create=False)

    @property
    def records(self) -> int:
        """How many records of the current game are on disk (0: none being journaled)."""
        return self._journal.next_seq if self._journal else 0

    @property
    def current_path(self) -> Path:
        return self.root / CURRENT

    # ----- the current game -----------------------------------------------------------

    def resume(self) -> Resumed | None:
        """The current game rebuilt from its journal (a torn tail cut off), or None.

        A journal whose last record is an end (a power cut while the game was being
        archived) is archived now, and there is no game to resume."""
        if not self.current_path.exists():
            return None
        found, self._found = self._found, None  # a later resume reads the disk again
        journal, records, recovery = Journal.open(self.current_path, found)
        if not records:
            journal.close()
            self.current_path.unlink()
            if recovery.damaged_copy is not None:  # the start record itself: say so
                raise JournalError(f"{recovery}; the game could not be resumed")
            return None
        try:
            state, game_id, skipped = self._replay(recovery.loaded)
        except JournalError:
            journal.close()
            aside = self.root / "games" / f"unreadable-{int(time.time())}.journal"
            os.replace(self.current_path, aside)
            raise
        self._journal = journal
        self.game_id = game_id
        timed = [r.data for r in records[1:] if r.data.get("t") in ("event", CHECKPOINT)]
        self._last_at = str(timed[-1]["at"]) if timed and "at" in timed[-1] else None
        marks = [r.seq for r in records if r.data.get("t") == CHECKPOINT]
        self._since_checkpoint = journal.next_seq - 1 - (marks[-1] if marks else 0)
        if records[-1].data.get("t") == "end":  # the step a power cut interrupted
            self._ended = True
            try:
                self.finish(state)
            except JournalError as e:  # no room yet: the game as it was left, until there is
                log.error("%s; the game is resumed as it was left", e)
                return Resumed(state, game_id, recovery, skipped)
            return None
        return Resumed(state, game_id, recovery, skipped)

    def peek(self) -> tuple[Any, str] | None:
        """The current game and its id, read without changing anything on disk."""
        if not self.current_path.exists():
            return None
        if self._found is None or not self._found.current():
            self._found = look(self.current_path)
        loaded = self._found.loaded
        if not loaded.records or loaded.records[-1].data.get("t") == "end":
            return None
        state, game_id, _ = self._replay(loaded)
        return state, game_id

    @property
    def seen(self) -> Seen | None:
        """The journal as `peek` read and replayed it, for the store that resumes it."""
        return None if self._found is None else Seen(self._found, self._replayed)

    def _replay(self, loaded: Loaded) -> Replayed:
        """The game of the records `loaded` keeps: from its last checkpoint if that
        can be used, else from its start record (replayed once per `Loaded`)."""
        if self._replayed is not None and self._replayed[0] is loaded:
            return self._replayed[1]
        records = list(loaded.records)
        head = records[0].data
        try:
            game = games.of_record(head)
            state = game.from_start_record(head)
            game_id = str(head["id"])
        except (KeyError, ValueError) as e:  # CardError, MissionError, GameError: ValueErrors
            raise JournalError(f"{self.current_path}: start record unusable ({e})") from e
        skipped = []
        # Only the checkpoint the loader checked the bytes before it against (record
        # `passed`, right after the start record): another one in the records may
        # follow damage, a crafted record, or a record the rules now refuse, and
        # only the records themselves say what the game is then.
        resumed = _from_checkpoint(game, state, records[1]) if loaded.passed else None
        if resumed is not None:
            state, records = resumed, records[2:]
        else:
            if loaded.passed:
                skipped.append(
                    f"record {loaded.passed}: a checkpoint the rules cannot replay: "
                    "the whole journal replayed"
                )
            records = list(loaded.all_records()[1:])  # each record this time
        for record in records:
            if record.data.get("t") in ("end", CHECKPOINT):
                continue
            try:
                event = game.parse_event(str(record.data["e"]))
            except (KeyError, EventError) as e:
                skipped.append(f"record {record.seq}: {e}")
                continue
            after, result = state.apply(event)
            if games.refused(result):
                # Journaled as accepted, refused now (rules changed, or the file
                # was edited): reported on start, and the game goes on without it.
                skipped.append(f"record {record.seq}: {event}: refused ({result.message})")
                continue
            state = after
        self._replayed = (loaded, (state, game_id, tuple(skipped)))
        return self._replayed[1]

    @property
    def _next_path(self) -> Path:
        return self.root / NEXT

    def start_game(self, state: Any, *, previous: Any = None) -> None:
        """Journal a new game from `state`, then move the current one (if any) to
        the history: the new game's start record is on disk (in `next.journal`)
        before anything of the old game changes, and the move happens whole or not
        at all, so a disk that refuses leaves the old game in play as it was, on
        disk and on screen, and a half-written start is never archived or resumed."""
        game_id = os.urandom(6).hex()  # uuid4's random bits without uuid's imports
        self._next_path.unlink(missing_ok=True)  # a start a power cut interrupted
        try:
            journal, _, _ = Journal.open(self._next_path)
        except OSError as e:
            raise JournalError(f"cannot start a journal in {self.root}: {e.strerror or e}") from e
        try:
            journal.append(
                {
                    "t": "start",
                    "id": game_id,
                    "at": _now(),
                    **games.of_state(state).start_record(state),
                }
            )
            if previous is not None and self.game_id is not None:  # not archived yet
                self._move_to_history(previous)
            os.replace(self._next_path, self.current_path)
            fsync_dir(self.root)
        except BaseException as e:
            journal.close()  # no game journaled, and no descriptor left open
            self._next_path.unlink(missing_ok=True)
            if isinstance(e, OSError) and not isinstance(e, JournalError):
                raise JournalError(f"cannot start a game in {self.root}: {e.strerror or e}") from e
            raise
        journal.path = self.current_path
        self._journal = journal
        self.game_id = game_id
        self._last_at = None
        self._ended = False
        self._since_checkpoint = 0
        self._tidy()

    @property
    def recovering(self) -> bool:
        """A failed write could not be taken back: `recover` has checks to make."""
        journal = self._journal
        return journal is not None and journal.broken is not None and self.given_up is None

    def recover(self, now: float) -> bool:
        """A journal whose failed write could not be taken back is checked again
        (`Journal.recover`) every `recover_every` seconds; True when it has just
        become one that can be trusted (appended to) again. It sets `given_up`
        if the records journaled are not on disk as written, or if the disk
        still refuses after `recover_for` seconds."""
        journal = self._journal
        if journal is None or not self.recovering:
            return False
        if self._broken_since is None:
            self._broken_since = now
        elif now - self._tried_at < self.recover_every:
            return False
        self._tried_at = now
        try:
            trusted = journal.recover()
        except JournalLost as e:
            self.given_up = str(e)
            return False
        if trusted:
            log.warning(
                "journal %s: checked again, its %d records on disk as written; saving again",
                journal.path,
                journal.next_seq,
            )
            self._broken_since = None
            return True
        if now - self._broken_since >= self.recover_for:
            self.given_up = (
                f"journal {journal.path}: a failed write could not be taken back, and it "
                f"could not be checked again within {self.recover_for:g} s ({journal.broken})"
            )
        return False

    def record(self, event: object, state: Any = None) -> None:
        """Journal one accepted event (`state`: the game after it, for a
        checkpoint); returns once it is on disk."""
        if self._journal is None:
            raise JournalError("no game is being journaled")
        at = _now()
        data = {"t": "event", "e": str(event), "at": at}
        path = self._checkpoint_due(event, state)
        if path is not None:
            try:
                self._journal.append(data, checkpoint={"events": path, "at": at})
                self._since_checkpoint = 0
            except JournalError:
                if self._journal.broken:
                    raise
                path = None  # the event alone may fit where both did not
        if path is None:
            self._journal.append(data)
            self._since_checkpoint += 1
        self._last_at = at
        self._ended = False  # an end before an event is passed over on replay

    def _checkpoint_due(self, event: object, state: Any) -> list[str] | None:
        """The checkpoint's events if one is due with `event`: a state reached by
        it (an undo's is not: the state it goes back to was made by another), and
        enough records since the last one to pay for its size."""
        if state is None or isinstance(event, Undo) or getattr(state, "made_by", None) is not event:
            return None
        if self._since_checkpoint + 1 < self.checkpoint_every:
            return None
        path = _path(state)
        return path if len(path) <= self._since_checkpoint + 1 else None

    def finish(self, state: Any) -> dict[str, Any]:
        """Move the current game to the history (`_move_to_history`), then tidy."""
        entry = self._move_to_history(state)
        self._tidy()
        return entry

    def _move_to_history(self, state: Any) -> dict[str, Any]:
        """Close the current game, as one step: an end record, its history line
        (and the count in its game's record), its journal kept under games/.

        The end record goes first: after a power cut part way through, the next
        start finishes the step instead of resuming a game the players left. A
        disk that refuses any part takes back what was written (the history line,
        then the end record: cutting a file needs no space), so the game is in
        play as it was, and the same step can be tried again."""
        if self.game_id is None:  # never a history line, file or count named None
            raise JournalError("no game is being journaled: nothing to archive")
        ended_here = False
        if self._journal is not None and not self._ended:
            result = games.of_state(state).history_entry(state).result
            self._journal.append({"t": "end", "at": _now(), "result": result})
            ended_here = True
        try:
            entry = self._archive(state)
        except OSError as e:
            if ended_here and self._journal is not None:
                self._journal.take_back_last()
            if isinstance(e, JournalError):
                raise
            raise JournalError(
                f"cannot move the game to the history in {self.root}: {e.strerror or e}"
            ) from e
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self.game_id = None
        self._last_at = None
        self._ended = False
        return entry

    def list_finished(self, state: Any) -> None:
        """A finished game's history line and record count, as soon as its end is
        final (the stand calls it when both sides are shown), so the menu's
        History and `keystand history` have it before the next deal; the move at
        the next deal finds it listed and does not list it twice. JournalError
        when the disk refuses: the move lists it then."""
        if self.game_id is None or games.of_state(state).playing(state):
            return
        try:
            self._list(state)
        except OSError as e:
            if isinstance(e, JournalError):
                raise
            raise JournalError(
                f"cannot list the finished game in {self.root}: {e.strerror or e}"
            ) from e

    def listed(self) -> bool:
        """Whether the current game is in the history already (its newest lines)."""
        return self.game_id is not None and any(
            g.get("id") == self.game_id for g in self.history(limit=3)
        )

    def _list(self, state: Any) -> tuple[dict[str, Any], Callable[[], None]]:
        """The game's history line (unless the newest lines hold it already) and
        its count in its game's record; returns the line and what takes back a line added
        here (for a caller whose next step fails)."""
        assert self.game_id is not None
        game = games.of_state(state)
        # A finished game is dated by its last move, not by when the next began;
        # a game left in play, by when it was left.
        ended = None if game.playing(state) else self._last_at
        line = game.history_entry(state)
        entry = {"id": self.game_id, "date": ended or _now(), "game": game.name, **line.record()}
        history = self.root / "history.jsonl"
        listed = self.listed()
        size = history.stat().st_size if history.exists() else None

        def take_back() -> None:
            if not listed:
                _cut_back(history, size)

        try:
            if not listed:
                with open(history, "a", encoding="utf-8") as f:
                    os.fchmod(f.fileno(), 0o600)
                    f.write(json.dumps(entry, sort_keys=True) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
            score = game.score(state)  # counted once by its id, however often asked
            if score is not None and game.record is not None:
                self._count_win(game.record, line.label, score, str(self.game_id))
        except OSError:
            take_back()
            raise
        return entry, take_back

    def _archive(self, state: Any) -> dict[str, Any]:
        """The history line, the record count and the move under games/; on a
        refusal, a history line added here is cut off again before the error goes up."""
        entry, take_back = self._list(state)
        try:
            if self.current_path.exists():
                os.replace(self.current_path, self.root / "games" / f"{self.game_id}.journal")
        except OSError:
            take_back()
            raise
        fsync_dir(self.root / "games")
        fsync_dir(self.root)
        return entry

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # ----- the menu's settings ---------------------------------------------------------

    def load_settings(self) -> dict[str, Any] | None:
        """The settings saved by `save_settings` (None: none saved, or unreadable:
        the caller keeps its defaults and says so)."""
        from .cliutil import FileRefused, read_regular

        path = self.root / SETTINGS
        try:  # through the one door: a FIFO put here must not hang the start
            data = json.loads(read_regular(path, "settings", SETTINGS_CAP).decode("utf-8"))
        except FileNotFoundError:
            return None
        except FileRefused as e:
            raise JournalError(f"{path}: {e.detail}; the defaults are used") from e
        except (OSError, ValueError) as e:
            raise JournalError(f"{path}: unreadable ({e}); the defaults are used") from e
        if not isinstance(data, dict):
            raise JournalError(f"{path}: not a settings object; the defaults are used")
        return data

    def set_aside_settings(self) -> Path | None:
        """A durable copy of a settings file `load_settings` could not read
        (`settings.json.damaged-<n>`), made before the defaults are saved over it:
        the seats' choices are kept there, not lost. None: no file to keep."""
        path = self.root / SETTINGS
        if not path.is_file():
            return None
        return keep_aside(path)

    def save_settings(self, data: dict[str, Any]) -> None:
        atomic_write(self.root / SETTINGS, json.dumps(data, indent=1, sort_keys=True) + "\n")

    # ----- history and records --------------------------------------------------------

    def history(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Finished games, newest first (lines that do not parse are passed over)."""
        path = self.root / "history.jsonl"
        if not path.exists():
            return []
        games = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn last line after a power cut
            if isinstance(entry, dict):
                games.append(entry)
        games.reverse()
        return games[:limit] if limit is not None else games

    def tally(self, kind: games.Record) -> dict[str, Any]:
        """A game's record in play (`kind`, its declaration): {"<labels>": {"9-5":
        {"won": 2, "best": 14}}, ...}; "number" and "started" once one was begun
        by its new_item (the first one, from before, is number 1)."""
        data = _read_record(self.root / kind.file, kind)
        return data if data is not None else {kind.labels: {}}

    def tallies(self, kind: games.Record) -> list[dict[str, Any]]:
        """Every one of a game's records, oldest first: the finished ones kept in
        its folder, then the one in play (marked "current"). A finished copy of the
        one in play (a power cut between its two steps, `new_tally`) is not
        listed twice."""
        current = {"number": 1, **self.tally(kind), "current": True}
        finished = []
        folder = self.root / kind.folder
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
            data = _read_record(path, kind)
            if data is None or not isinstance(data.get("number"), int):
                continue  # not one of ours, or torn: passed over, as a history line is
            if data["number"] != current["number"]:
                finished.append(data)
        finished.sort(key=lambda c: int(c["number"]))
        return [*finished, current]

    def new_tally(self, kind: games.Record) -> dict[str, Any]:
        """A new record of a game: the one in play is kept in its folder as a
        finished one (nothing it showed is lost), then an empty one takes its place.

        Two atomic, fsynced steps, the copy first: a power cut between them leaves
        the old record in play and its copy, which the next new one writes again.
        A record with nothing won is not kept; its number is reused."""
        data = self.tally(kind)
        number = data.get("number", 1)
        number = number if isinstance(number, int) and number > 0 else 1
        if data[kind.labels]:
            folder = self.root / kind.folder
            if not folder.is_dir():
                folder.mkdir(mode=0o700, exist_ok=True)
                fsync_dir(self.root)
            finished = {**data, "number": number, "ended": _now()}
            finished.pop("counted", None)  # the games counted belong to the one in play
            atomic_write(folder / f"{number}.json", json.dumps(finished, indent=1, sort_keys=True))
            number += 1
        # The games already counted stay counted: a game listed at its end and moved
        # at the next deal must not count again in the new record.
        fresh = {kind.labels: {}, "number": number, "started": _now()}
        if data.get("counted"):
            fresh["counted"] = data["counted"]
        atomic_write(self.root / kind.file, json.dumps(fresh, indent=1, sort_keys=True))
        return fresh

    def _count_win(self, kind: games.Record, label: str, score: int, game_id: str) -> None:
        data = self.tally(kind)
        counted = data.setdefault("counted", [])  # the last wins counted, by game id
        if game_id in counted:
            return
        data["counted"] = [*counted, game_id][-20:]
        entry = data[kind.labels].setdefault(label, {"won": 0, "best": score})
        entry["won"] += 1
        entry["best"] = max(entry["best"], score)
        atomic_write(self.root / kind.file, json.dumps(data, indent=1, sort_keys=True))

    def _tidy(self) -> None:
        """Keep the newest games and rewrite a long history: housekeeping, so a
        disk that refuses it now only puts it off to the next game's end."""
        try:
            self._rotate()
        except OSError as e:
            log.warning(
                "the history in %s is not trimmed now (%s); tried again after the next game",
                self.root,
                e.strerror or e,
            )

    def _rotate(self) -> None:
        games = sorted((self.root / "games").glob("*.journal"), key=lambda p: p.stat().st_mtime)
        for old in games[:-KEEP_GAMES]:
            old.unlink(missing_ok=True)
        path = self.root / "history.jsonl"
        if not path.exists():
            return
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        if len(lines) > 2 * KEEP_GAMES:  # rewrite now and then, not on every game
            atomic_write(path, "".join(lines[-KEEP_GAMES:]))


def _path(state: Any) -> list[str]:
    """The events that made `state` from its start, oldest first, as journaled:
    the `previous` chain, so the events undone since are not among them."""
    events = []
    while getattr(state, "previous", None) is not None:
        events.append(str(state.made_by))
        state = state.previous
    events.reverse()
    return events


def _from_checkpoint(game: Any, state: Any, record: Record) -> Any:
    """The game a checkpoint holds, from its start `state`, or None if the rules
    in force cannot replay it (a malformed, refused or undoing event)."""
    events = record.data.get("events")
    if not isinstance(events, list):
        return None
    for text in events:
        try:
            event = game.parse_event(str(text))
        except EventError:
            return None
        after, result = state.apply(event)
        if games.refused(result) or isinstance(event, Undo):
            return None
        state = after
    return state


def _read_record(path: Path, kind: games.Record) -> dict[str, Any] | None:
    """A record file as saved (None: none, or not one: unreadable, not an object,
    no wins by label)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get(kind.labels), dict):
        return None
    return data


def _cut_back(path: Path, size: int | None) -> None:
    """Take back what was appended to `path` since it was `size` bytes (None: it
    did not exist). Cutting needs no space; if even that fails, the log says so."""
    try:
        if size is None:
            path.unlink(missing_ok=True)
            fsync_dir(path.parent)
        else:
            cut(path, size)
    except OSError as e:
        log.error("cannot take back the history line in %s: %s", path, e.strerror or e)
