"""Recovery without a person (issue 35): when a failed write cannot be taken back
(a transient EIO from fsync or write, a disk remounted read-only), the stand gets
back to a journal it can trust by itself. It opens the journal again, cuts what
the failed write left (never shown: the screens said the input was not taken),
reads the records back from the disk and checks them against those journaled;
then it takes input again. If they are not there as written, or the disk still
refuses after `RECOVER_FOR`, the stand stops, its screens blanked, and exits 1
for systemd to restart it (the start's repair says what it found).

The journal, the store and the stand are tested with a failing os.fsync (and
os.ftruncate, os.write); `keystand run` itself under an LD_PRELOAD shim
(soak/eio_shim.c, built with gcc) that fails the state dir's fsync for a window.
The read-only remount is the soak's (`make soak`, as root)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from command import TIMEOUT

from keystand.drivers.inputs import KeyName, Press
from keystand.journal import Journal, JournalError, JournalLost, encode
from keystand.rules import generate
from keystand.stand import Stand
from keystand.store import CURRENT, Store

ROOT = Path(__file__).resolve().parent.parent
RECORDS = [{"t": "start", "n": 0}, {"t": "event", "e": "clue A"}, {"t": "event", "e": "touch 1 1"}]


class Disk:
    """os.fsync, os.ftruncate and os.write failing with EIO while `failing` names
    them, for descriptors of files under `under` only."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, under: Path) -> None:
        self.failing: set[str] = set()
        self.under = str(under)
        for name in ("fsync", "ftruncate", "write"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._wrap(name, real))

    def _wrap(self, name: str, real: Callable[..., object]) -> Callable[..., object]:
        def call(fd: int, *args: object) -> object:
            if name in self.failing and os.readlink(f"/proc/self/fd/{fd}").startswith(self.under):
                raise OSError(errno.EIO, "Input/output error")
            return real(fd, *args)

        return call


def records_on_disk(path: Path) -> list[dict[str, object]]:
    journal, records, _ = Journal.open(path)
    journal.close()
    return [r.data for r in records]


# ----- the journal ----------------------------------------------------------------------


@pytest.mark.parametrize("also", [set(), {"ftruncate"}])
def test_a_write_that_could_not_be_taken_back_is_recovered_once_the_disk_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, also: set[str]
) -> None:
    """fsync fails for the record and for its take-back (and, `ftruncate`, the
    take-back's cut too: the failed record's bytes stay in the file). Appends are
    refused until `recover` finds the disk answering: it cuts those bytes and
    the records journaled are back, the next append follows them."""
    path = tmp_path / "game.journal"
    journal, _, _ = Journal.open(path)
    journal.append(RECORDS[0])
    journal.append(RECORDS[1])
    disk = Disk(monkeypatch, tmp_path)
    disk.failing = {"fsync", *also}
    with pytest.raises(JournalError, match="cannot write record 2"):
        journal.append(RECORDS[2])
    assert journal.broken is not None and "checks the journal again" in journal.broken
    if also:  # the failed record is in the file (not fsynced, never shown)
        assert path.read_bytes().endswith(encode(2, RECORDS[2]))
    with pytest.raises(JournalError, match="checks the journal again"):
        journal.append(RECORDS[2])  # refused while broken: never after half a record
    assert journal.recover() is False  # the disk still fails
    assert journal.broken is not None
    disk.failing = set()
    assert journal.recover() is True
    assert journal.broken is None
    assert path.read_bytes() == encode(0, RECORDS[0]) + encode(1, RECORDS[1])
    journal.append(RECORDS[2])
    journal.close()
    assert records_on_disk(path) == RECORDS


@pytest.mark.parametrize(
    ("spoil", "says"),
    [
        (lambda p: p.write_bytes(encode(0, RECORDS[0])), "bytes on disk"),  # records gone
        (lambda p: p.write_bytes(p.read_bytes().replace(b"clue A", b"clue B")), "are not those"),
        (lambda p: p.unlink(), "gone from the disk"),
    ],
)
def test_a_journal_that_no_longer_holds_what_was_journaled_is_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: Callable[[Path], object], says: str
) -> None:
    """What was journaled (and so perhaps shown) is not on disk as written: only a
    restart can go on (its repair keeps the file aside, the screens say so)."""
    path = tmp_path / "game.journal"
    journal, _, _ = Journal.open(path)
    journal.append(RECORDS[0])
    journal.append(RECORDS[1])
    disk = Disk(monkeypatch, tmp_path)
    disk.failing = {"fsync", "ftruncate"}
    with pytest.raises(JournalError):
        journal.append(RECORDS[2])
    disk.failing = set()
    spoil(path)
    with pytest.raises(JournalLost, match=says):
        journal.recover()
    journal.close()


# ----- the store: how often, and for how long --------------------------------------------


def test_the_store_tries_again_every_few_seconds_then_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand = Stand(Store(tmp_path / "state"), new_card=lambda: generate(3))
    stand.boot()
    store = stand.store
    disk = Disk(monkeypatch, tmp_path)
    disk.failing = {"fsync"}
    stand.handle(Press("A", KeyName.CLUE), 100.0)
    assert stand.faults.saving is not None and store.records == 1  # not taken
    tried = []
    real = Journal.recover

    def counted(journal: Journal) -> bool:
        tried.append(True)
        return real(journal)

    monkeypatch.setattr(Journal, "recover", counted)
    for now in (100.0, 100.5, 101.0, 101.9, 102.0, 103.0, 104.1):
        assert store.recover(now) is False
    assert len(tried) == 3  # at 100, 102 and 104.1: every RECOVER_EVERY seconds
    assert store.given_up is None
    assert store.recover(100.0 + store.recover_for) is False
    assert store.given_up is not None
    assert "a failed write could not be taken back" in store.given_up
    assert f"could not be checked again within {store.recover_for:g} s" in store.given_up
    store.close()


def test_how_long_the_store_tries_is_the_profiles_stand_recover_for(tmp_path: Path) -> None:
    """[stand] recover_for (the same default as the store's own) reaches the
    store `keystand run` makes."""
    from keystand.profile import Stand as StandTable
    from keystand.store import RECOVER_FOR

    assert StandTable().recover_for == RECOVER_FOR
    assert Store(tmp_path / "state", recover_for=600.0).recover_for == 600.0


# ----- the stand: inputs refused, then taken again, nothing to press ---------------------


def test_the_stand_takes_input_again_by_itself_once_the_journal_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "state"
    stand = Stand(Store(root), new_card=lambda: generate(3))
    stand.boot()
    disk = Disk(monkeypatch, root)
    disk.failing = {"fsync", "ftruncate"}
    stand.handle(Press("A", KeyName.CLUE), 10.0)
    assert stand.faults.saving is not None  # the screens say it cannot save
    journal = root / CURRENT
    assert b'"e":"clue A"' in journal.read_bytes()  # written, never fsynced nor shown
    stand.tick(12.5)
    assert stand.faults.saving is not None  # the disk still fails
    disk.failing = set()
    assert stand.tick(15.0)  # a change the screens show: "cannot save" goes
    assert stand.faults.saving is None
    assert [r["t"] for r in records_on_disk(journal)] == ["start"]  # the unshown record cut
    stand.handle(Press("A", KeyName.CLUE), 16.0)  # pressed again: taken
    assert stand.faults.saving is None
    stand.store.close()
    assert [r.get("e") for r in records_on_disk(journal)] == [None, "clue A"]


# ----- keystand run under the EIO shim ---------------------------------------------------


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc to build the EIO shim (soak/eio_shim.c): apt-get install gcc")
    out = tmp_path_factory.mktemp("shim") / "eio_shim.so"
    subprocess.run(
        [gcc, "-shared", "-fPIC", "-O2", "-o", out, ROOT / "soak" / "eio_shim.c", "-ldl"],
        check=True,
        timeout=TIMEOUT,
    )
    return out


class Running:
    """`keystand run` on the desktop profile with the page (port 0), the shim
    preloaded on its state dir, a shown log. Its `recover_for` an hour unless
    given: how long a window lasts on a loaded machine is then no matter (the
    give-up after it is the store's test, by the clock it is given)."""

    def __init__(self, tmp_path: Path, shim: Path, recover_for: int = 3600) -> None:
        self.state = tmp_path / "state"
        self.shown = tmp_path / "shown.log"
        self.switch = tmp_path / "eio"
        self.count = tmp_path / "eio.count"  # a byte for each call the shim failed
        profile = tmp_path / "desktop.toml"
        desktop = (ROOT / "hardware" / "desktop.toml").read_text()
        desktop = desktop.replace("\nrecover_for = 30 ", f"\nrecover_for = {recover_for} ")
        profile.write_text(desktop)
        assert f"recover_for = {recover_for} " in profile.read_text()
        env = {
            **os.environ,
            "LD_PRELOAD": str(shim),
            "KEYSTAND_EIO_DIR": str(self.state),
            "KEYSTAND_EIO_SWITCH": str(self.switch),
            "KEYSTAND_EIO_COUNT": str(self.count),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "keystand", "run", "--profile", profile, "--port", "0",
             "--speed", "0", "--state-dir", str(self.state), "--card-code", generate(3).code,
             "--shown-log", str(self.shown)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert "the simulator page is at " in line, line
        self.url = line.split(" at ")[1].strip()

    def status(self) -> dict[str, object]:
        with urllib.request.urlopen(self.url + "status", timeout=30) as r:
            return dict(json.load(r))

    def post(self, line: str) -> None:
        req = urllib.request.Request(self.url + "input", data=line.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200

    def until(self, what: str, ok: Callable[[], bool]) -> None:
        """Poll until `ok()`: a bound on a hung stand, not a measurement."""
        deadline = time.monotonic() + TIMEOUT
        while not ok():
            assert self.proc.poll() is None, f"the stand ended waiting for {what}"
            assert time.monotonic() < deadline, f"never: {what}"
            time.sleep(0.05)

    def shown_lines(self) -> list[str]:
        return self.shown.read_text().splitlines() if self.shown.exists() else []

    def cannot_save(self) -> bool:
        return bool(self.status().get("cannot_save"))

    def failed_calls(self) -> int:
        return self.count.stat().st_size if self.count.exists() else 0


@pytest.fixture
def running(tmp_path: Path, shim: Path, request: pytest.FixtureRequest) -> Iterator[Running]:
    stand = Running(tmp_path, shim, getattr(request, "param", 3600))
    try:
        stand.until("the first frames", lambda: {"A", "B"} <= {ln[0] for ln in stand.shown_lines()})
        yield stand
    finally:
        if stand.proc.poll() is None:
            stand.proc.terminate()
        stand.proc.communicate(timeout=TIMEOUT)


def shown_records(stand: Running) -> int:
    """The most records any frame showed."""
    counts = [int(f[2]) for f in (ln.split() for ln in stand.shown_lines()) if len(f) == 3]
    return max(counts, default=0)


def test_run_recovers_from_an_eio_window_by_itself(running: Running) -> None:
    """fsync fails for a window: the clue pressed in it is not taken and both
    screens say so; once the window closes the stand takes input again without a
    restart, the unshown record gone from the file."""
    stand = running
    journal = stand.state / CURRENT
    stand.switch.write_text("fsync")
    stand.post("press A clue")
    stand.until("cannot save", stand.cannot_save)
    assert shown_records(stand) == 1  # the clue never shown
    refused = stand.failed_calls()  # the clue's fsync and its take-back's
    stand.until("a check again refused", lambda: stand.failed_calls() > refused)
    assert stand.cannot_save()  # the disk refused the check: still cannot save
    stand.switch.unlink()
    stand.until("saving again", lambda: not stand.cannot_save())
    assert [r["t"] for r in records_on_disk(journal)] == ["start"]
    stand.post("press A clue")
    stand.until("the clue shown", lambda: shown_records(stand) == 2)
    assert [r.get("e") for r in records_on_disk(journal)] == [None, "clue A"]
    assert stand.proc.poll() is None


def test_run_stops_blanked_with_exit_1_when_the_journal_lost_what_it_showed(
    running: Running,
) -> None:
    """The disk fails a write, and meanwhile the journal on it loses a record both
    screens showed: the stand cannot trust it again in this run. It blanks both
    screens (the last frames the neutral picture) and exits 1, which the unit's
    Restart=on-failure restarts."""
    stand = running
    journal = stand.state / CURRENT
    stand.post("press A clue")
    stand.until("the clue shown", lambda: shown_records(stand) == 2)
    stand.switch.write_text("fsync")
    stand.post("press A pass")  # any input that journals: pass, or B's touch
    stand.post("touch 0 0")
    stand.until("cannot save", stand.cannot_save)
    start = journal.read_bytes().split(b"\n", 1)[0] + b"\n"
    journal.write_bytes(start)  # the disk lost the shown clue
    stand.switch.unlink()
    _, err = stand.proc.communicate(timeout=TIMEOUT)
    assert stand.proc.returncode == 1, err
    assert "records on disk" in err or "bytes on disk" in err
    assert "stopped: journal" in err and "start it again (systemd does)" in err
    last = {ln.split()[0]: ln for ln in stand.shown_lines()}
    assert last == {"A": "A neutral", "B": "B neutral"}


@pytest.mark.parametrize("running", [2], indirect=True)  # [stand] recover_for = 2
def test_run_stops_blanked_with_exit_1_when_the_disk_refuses_past_recover_for(
    running: Running,
) -> None:
    """The disk keeps failing (the window never closes): the stand tries again
    every 2 s, then, past the profile's recover_for, stops with both screens
    blanked and exits 1; the clue it never showed is not on disk."""
    stand = running
    journal = stand.state / CURRENT
    stand.switch.write_text("both")
    stand.post("press A clue")
    stand.until("cannot save", stand.cannot_save)
    _, err = stand.proc.communicate(timeout=TIMEOUT)
    assert stand.proc.returncode == 1, err
    assert "could not be checked again within 2 s" in err
    assert "start it again (systemd does)" in err
    assert {ln.split()[0]: ln for ln in stand.shown_lines()} == {"A": "A neutral", "B": "B neutral"}
    stand.switch.unlink()
    assert [r["t"] for r in records_on_disk(journal)] == ["start"]
