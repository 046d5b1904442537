"""Checkpoints: a resume that does not grow with the journal, and gives the game a
full replay gives.

- Every golden script (Duet's and classic's), its events with undo churn between
  them, journaled by the store with checkpoints as often as it writes them: at
  every cut (each record boundary, the one between an event and its checkpoint
  too), the start's resume (checkpoint used, the records before it not parsed)
  equals a full replay of every record: the game, its last outcome, each seat's
  view, and every state an undo can go back to.
- The loader with checkpoints keeps, cuts and says exactly what the loader
  without them does, on every damage tried (bit flips everywhere, capital CRC
  digits, every cut of the tail).
- A checkpoint the rules cannot replay is passed over (the whole journal replayed).
- The start parses a bounded number of records whatever the journal's length;
  checkpoints at most double it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from keystand import games, journal
from keystand.games import Context
from keystand.games.duet.settings import MISSION
from keystand.journal import CHECKPOINT, Journal, encode, load, look
from keystand.rules import Mission, Seat
from keystand.store import Store

ROOT = Path(__file__).resolve().parent
DUET = ROOT / "golden" / "scripts"
CLASSIC = ROOT / "golden" / "classic" / "scripts"
DUET_CODE = "YAKM-S9ED-D1RD"  # the goldens' card (tests/test_layouts.py)
CLASSIC_CODE = "9CY-EPF-ZXQ"  # tests/test_classic_screens.py
MISSIONS = {"sudden": "2-1", "missed": "1-0"}  # as tests/test_layouts.py plays them
AT = "2026-01-01T12:00:00+0000"


def golden_scripts() -> list[tuple[str, str]]:
    return [("duet", p.stem) for p in sorted(DUET.glob("*.txt"))] + [
        ("classic", p.stem) for p in sorted(CLASSIC.glob("*.txt"))
    ]


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal's fsyncs are not what these tests are about (thousands of records)."""
    monkeypatch.setattr(journal.os, "fsync", lambda fd: None)


def start_of(game_name: str, script: str) -> Any:
    game = games.get(game_name)
    if game_name == "duet":
        options = games.Options().with_(MISSION, Mission.parse(MISSIONS.get(script, "9-9")))
        return game.start(game.card_from_code(DUET_CODE), options)
    return game.start(game.card_from_code(CLASSIC_CODE))


def events_of(game_name: str, script: str) -> list[Any]:
    folder = DUET if game_name == "duet" else CLASSIC
    return [
        step.event for step in games.get(game_name).script((folder / f"{script}.txt").read_bytes())
    ]


def churned(game_name: str, script: str) -> list[Any]:
    """The script's events with undo churn: after every other event, undo and the
    event again, and after every third, two undos and both events again."""
    events = events_of(game_name, script)
    undo = games.get(game_name).parse_event("undo")
    out: list[Any] = []
    for n, event in enumerate(events):
        out.append(event)
        if n % 2 == 1:
            out += [undo, event]
        if n % 3 == 2 and n:
            out += [undo, undo, events[n - 1], event]
    return out


def journaled(root: Path, start: Any, events: list[Any], every: int) -> bytes:
    """The journal the stand writes of `events` (those the rules take, each with
    the state after it, as Stand does), checkpoints at least `every` records apart."""
    store = Store(root)
    store.checkpoint_every = every
    store.start_game(start)
    state = start
    for event in events:
        after, result = state.apply(event)
        if games.refused(result):
            continue
        store.record(event, after)
        state = after
    store.close()
    return store.current_path.read_bytes()


def full_replay(data: bytes) -> Any:
    """Every record replayed in turn, checkpoints passed over: the reference."""
    records = load(data).records
    game = games.of_record(records[0].data)
    state = game.from_start_record(records[0].data)
    for record in records[1:]:
        if record.data.get("t") != "event":
            continue
        after, result = state.apply(game.parse_event(record.data["e"]))
        if not games.refused(result):
            state = after
    return state


def assert_same_game(got: Any, want: Any) -> None:
    """The same game as far as anything can tell: the game, its last outcome, each
    seat's view, and every state undo goes back to (and their views)."""
    game = games.of_state(want)
    undo = game.parse_event("undo")
    while True:
        assert got == want
        assert (got.last, got.outcome, got.made_by) == (want.last, want.outcome, want.made_by)
        for seat in Seat:
            assert game.view(got, seat, Context()) == game.view(want, seat, Context())
        got, got_result = got.apply(undo)
        want, want_result = want.apply(undo)
        assert got_result == want_result
        if games.refused(want_result):
            return


def record_ends(data: bytes) -> list[int]:
    ends, at = [], 0
    for line in data.splitlines(keepends=True):
        at += len(line)
        ends.append(at)
    return ends


@pytest.mark.parametrize("every", [1, 4])
@pytest.mark.parametrize(("game_name", "script"), golden_scripts())
def test_a_checkpointed_resume_is_a_full_replay_at_every_cut(
    tmp_path: Path, game_name: str, script: str, every: int
) -> None:
    start = start_of(game_name, script)
    data = journaled(tmp_path / "written", start, churned(game_name, script), every)
    assert b'"t":"checkpoint"' in data  # the test means something
    used = 0
    for n, end in enumerate(record_ends(data)):
        cut = data[:end]
        root = tmp_path / f"cut-{n}"
        root.mkdir()
        (root / "current.journal").write_bytes(cut)
        found = look(root / "current.journal")
        full, passed = load(cut).records, found.loaded.passed
        assert found.loaded.records == (full[:1] + full[passed:] if passed else full)
        has_mark = b'"t":"checkpoint"' in cut
        assert (found.loaded.passed > 0) == has_mark  # the start used the checkpoint
        used += has_mark
        store = Store(root)
        resumed = store.resume()
        store.close()
        assert resumed is not None and resumed.skipped == ()
        assert_same_game(resumed.state, full_replay(cut))
    assert used > 0


def test_the_loader_with_checkpoints_keeps_cuts_and_says_what_the_loader_without_does(
    tmp_path: Path,
) -> None:
    data = journaled(tmp_path, start_of("duet", "won"), churned("duet", "won"), 4)
    ends = record_ends(data)
    marks = [n for n, line in enumerate(data.splitlines()) if b'"t":"checkpoint"' in line]
    fast = tried = 0
    for buf in damaged(data, ends, marks):
        full, quick = load(buf), load(buf, checkpoints=True)
        assert (quick.journal, quick.cuts, quick.bare, quick.recased) == (
            full.journal,
            full.cuts,
            full.bare,
            full.recased,
        )
        assert quick.reason == full.reason and quick.count == len(full.records)
        assert quick.all_records() == full.records
        fast += quick.passed > 0
        tried += 1
    assert 0 < fast < tried  # both ways taken


def damaged(data: bytes, ends: list[int], marks: list[int]) -> Iterator[bytes]:
    """The journal cut after every byte from the checkpoint before the last one, a
    bit flipped in every byte (a different bit each), capital CRC digits in every
    record, a stray line end before the last checkpoint; one at a time (a list of
    them all would hold hundreds of MB in the test process)."""
    for t in range(ends[marks[-2]], len(data) + 1):
        yield data[:t]
    for at in range(len(data)):
        yield data[:at] + bytes([data[at] ^ (1 << (at % 8))]) + data[at + 1 :]
    for at in [0, *ends[:-1]]:
        crc = slice(at + 20, at + 28)
        if data[crc].upper() != data[crc]:
            yield data[: crc.start] + data[crc].upper() + data[crc.stop :]
    last = ends[marks[-1] - 1]  # where the last checkpoint starts
    yield data[:last] + b"\n" + data[last:]


def test_a_checkpoint_the_rules_cannot_replay_is_passed_over(tmp_path: Path) -> None:
    start = start_of("duet", "won")
    data = journaled(tmp_path / "w", start, churned("duet", "won"), 4)
    lines = data.splitlines(keepends=True)
    n = max(i for i, line in enumerate(lines) if b'"t":"checkpoint"' in line)
    mark = load(data).records[n].data
    prefix = b"".join(lines[:n])
    # Sound and vouching for the bytes before it, but an event the rules refuse.
    bad = {**mark, "events": [*mark["events"], "touch 9 9"]}
    spoiled = prefix + encode(n, bad) + b"".join(lines[n + 1 :])
    root = tmp_path / "r"
    root.mkdir()
    (root / "current.journal").write_bytes(spoiled)
    store = Store(root)
    resumed = store.resume()
    store.close()
    assert resumed is not None and resumed.recovery.clean
    assert resumed.skipped == (
        f"record {n}: a checkpoint the rules cannot replay: the whole journal replayed",
    )
    assert_same_game(resumed.state, full_replay(spoiled))


@pytest.mark.parametrize(
    ("spot", "record"),
    [(1, {"t": "event", "e": "touch 4 4", "at": AT}), (2, {"t": "alien", "x": [1]})],
)
def test_a_checkpoint_after_a_record_crafted_in_place_of_another_is_not_used(
    tmp_path: Path, spot: int, record: dict[str, Any]
) -> None:
    """A sound record put in place of one before a checkpoint (its CRC made to fit):
    the checkpoint no longer vouches for those bytes, so the records say what the
    game is, as without checkpoints (make soak's crafted damage found this)."""
    start = start_of("duet", "won")
    data = journaled(tmp_path / "w", start, churned("duet", "won"), 4)
    lines = data.splitlines(keepends=True)
    crafted = encode(spot, record)
    spoiled = b"".join([*lines[:spot], crafted, *lines[spot + 1 :]])
    root = tmp_path / "r"
    root.mkdir()
    (root / "current.journal").write_bytes(spoiled)
    assert look(root / "current.journal").loaded.passed == 0
    store = Store(root)
    resumed = store.resume()
    store.close()
    assert resumed is not None
    assert_same_game(resumed.state, full_replay(spoiled))
    assert resumed.state != full_replay(data)  # the crafted record does change the game


def test_the_start_parses_a_bounded_number_of_records_and_checkpoints_at_most_double_it(
    tmp_path: Path,
) -> None:
    """A long game of undo churn: what the start parses and replays stays within
    the checkpoint interval whatever the journal's length; the checkpoints' bytes
    stay below the events'."""
    start = start_of("duet", "won")
    events = events_of("duet", "won")
    undo = games.get("duet").parse_event("undo")
    churn = events[:5] + [events[5], undo] * 1500
    data = journaled(tmp_path / "w", start, churn, 64)
    records = load(data).records
    assert len(records) > 3000
    found = look_at(tmp_path, data)
    assert found.passed > 2900 and len(found.records) <= 2 + 64
    marks = [r for r in records if r.data["t"] == CHECKPOINT]
    mark_bytes = sum(len(encode(r.seq, r.data)) for r in marks)
    event_bytes = sum(len(encode(r.seq, r.data)) for r in records if r.data["t"] == "event")
    assert len(marks) >= 3000 // 65 and mark_bytes < event_bytes / 2


def look_at(tmp_path: Path, data: bytes) -> journal.Loaded:
    root = tmp_path / "look"
    root.mkdir()
    (root / "current.journal").write_bytes(data)
    return look(root / "current.journal").loaded


def test_a_checkpoint_the_disk_has_no_room_for_leaves_the_event_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = start_of("duet", "won")
    store = Store(tmp_path)
    store.checkpoint_every = 1
    store.start_game(start)
    real_write = os.write
    taken: list[int] = []

    def write(fd: int, data: bytes) -> int:
        if b'"t":"checkpoint"' in data:
            raise OSError(28, "No space left on device")
        taken.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(journal.os, "write", write)
    event = games.get("duet").parse_event("clue A")
    after, _ = start.apply(event)
    store.record(event, after)
    assert store.records == 2 and len(taken) == 1
    monkeypatch.setattr(journal.os, "write", real_write)
    second = games.get("duet").parse_event("touch 0 3")
    store.record(second, after.apply(second)[0])
    assert store.records == 4  # due still: the checkpoint comes with the next event
    store.close()
    assert [r.data["t"] for r in load(store.current_path.read_bytes()).records] == [
        "start",
        "event",
        "event",
        CHECKPOINT,
    ]


def test_a_look_is_used_by_the_open_only_while_the_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "current.journal"
    with Journal.open(path)[0] as j:
        j.append({"t": "start"})
    reads: list[str] = []

    def counted(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        reads.append(mode)
        return open(file, mode, *args, **kwargs)

    monkeypatch.setattr(journal, "open", counted, raising=False)
    found = look(path)
    assert reads == ["rb"]
    with Journal.open(path, found)[0] as j:  # unchanged: not read again
        assert reads == ["rb"] and j.next_seq == 1
        j.append({"t": "event", "e": "clue A"})
    j, records, _ = Journal.open(path, found)  # changed since: read again
    j.close()
    assert reads == ["rb", "rb"] and [r.data["t"] for r in records] == ["start", "event"]


# `keystand run` as the console script runs it, counting each open of the journal
# that can read it (every way Python opens a file: io.open, os.open).
COUNT_READS = """
import atexit, io, os, sys
reads = []
def journal(file):
    return isinstance(file, (str, bytes, os.PathLike)) and os.fsdecode(file).endswith(
        "current.journal")
real_open, real_os_open = io.open, os.open
def opened(file, mode="r", *args, **kwargs):
    if journal(file) and ("r" in mode or "+" in mode):
        reads.append(mode)
    return real_open(file, mode, *args, **kwargs)
def os_opened(path, flags, *args, **kwargs):
    if journal(path) and flags & os.O_ACCMODE != os.O_WRONLY:
        reads.append(flags)
    return real_os_open(path, flags, *args, **kwargs)
io.open = opened
import builtins
builtins.open = opened
os.open = os_opened
atexit.register(lambda: sys.stderr.write(f"JOURNAL-READS {len(reads)}\\n"))
from keystand.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("card", [False, True])
def test_the_start_reads_the_journal_once(tmp_path: Path, card: bool) -> None:
    """Choosing the game (and, with --card, refusing a card while a game is in
    play) and resuming it: one read of the journal, however long."""
    import subprocess
    import sys

    state = tmp_path / "state"
    start = start_of("duet", "won")
    journaled(state, start, churned("duet", "won"), 4)
    script = tmp_path / "script.txt"
    script.write_text("wait 1\n")
    args = ["run", "--profile", "desktop", "--state-dir", str(state), "--speed", "0"]
    args += ["--no-page", "--script", str(script)]
    args += ["--card-code", DUET_CODE] if card else []
    done = subprocess.run(
        [sys.executable, "-c", COUNT_READS, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == (2 if card else 0), done.stderr
    assert done.stderr.splitlines()[-1] == "JOURNAL-READS 1"
    if card:
        assert "--card deals only a new game" in done.stderr
