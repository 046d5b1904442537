"""The journal: one game's records, append-only, each on disk (fsync) before its
result is shown anywhere.

A record is one line of text, so a journal can be read with `less`:

    KS1 <seq:8 digits> <length:6 digits> <crc32:8 hex> <payload: JSON object>\\n

`length` counts the payload's UTF-8 bytes and `crc32` covers the sequence
number and the payload. Records are numbered from 0 without gaps.

On open (`load` reads the bytes, `Journal.open` repairs the file):

- A record whose head, length and CRC are sound is kept whatever follows it:
  its line end is no part of the check, so a damaged or missing line end is
  written again and the record stays (it may be the last thing both screens
  showed).
- A torn tail is the only thing cut in silence: the file ends inside the next
  record's write (no line end, the head as far as it goes, shorter than its
  length says). Its write never reached fsync, so no screen showed it.
- Anything else that is not a sound record is damage, wherever it is (the last
  record and the start record included): the file is first copied aside whole
  (`<name>.damaged-<n>`, the copy and its folder fsynced), and only then is the
  damage cut; the records after it are kept only if they follow in sequence.
  A power cut during a repair cannot lose the only copy. The log line says
  what the cut bytes hold: no sound record, or which sound records could not
  be kept (a gap before them in the sequence, or a number already taken).
- A CRC whose hex digits are written in capitals is the same CRC (a bit flip of
  0x20 turns "a" into "A" and nothing else): the record is sound and kept, its
  CRC written again in small letters (the file replaced whole, as a line end is);
  the log says so.

Checkpoints (written by the store, `Journal.append(..., checkpoint=...)`): a record
`{"t": "checkpoint", "size": N, "crc": "hhhhhhhh", ...}` says that the file's first
N bytes, whose CRC-32 is that, are the records before it as they were written. A
start (`load(buf, checkpoints=True)`) that finds the last checkpoint sound and the
bytes before it unchanged has checked every one of those records at once (one
CRC over them): it parses record 0 and the records from the checkpoint on, no
others. Anything else (no checkpoint, the checkpoint or a byte before it changed)
is read record by record as above, so a damaged journal is found and repaired
exactly as without checkpoints, and a journal without them loads as it always did.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rules import KeystandError

MAGIC = b"KS1"
_HEAD = len(MAGIC) + 1 + 8 + 1 + 6 + 1 + 8 + 1  # "KS1 " seq " " length " " crc " "
MAX_PAYLOAD = 999_999
CHECKPOINT = "checkpoint"  # a record's "t": it vouches for the bytes before it (`load`)


class JournalError(KeystandError, OSError):
    """The journal cannot be written (disk full, read-only, removed)."""


class JournalLost(JournalError):
    """The journal on disk no longer holds what was journaled (and so perhaps
    shown): a re-verification found it shorter, changed or gone. Only a restart,
    with its repair and the screens saying so, can go on from it."""


@dataclass(frozen=True)
class Record:
    seq: int
    data: dict[str, Any]


def encode(seq: int, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"journal record {seq}: {len(payload)} bytes, at most {MAX_PAYLOAD}")
    crc = zlib.crc32(b"%08d" % seq + payload)
    return b"%s %08d %06d %08x " % (MAGIC, seq, len(payload), crc) + payload + b"\n"


@dataclass(frozen=True)
class Cut:
    """Bytes of a journal file that are not a sound record, found where record
    `seq` (the next in sequence) should start."""

    at: int  # offset in the file as found
    data: bytes
    seq: int
    line_end: bool  # record seq-1 ended its line (False: these bytes take its line end's place)
    tail: bool  # the file ends with these bytes
    torn: bool  # record seq's write cut short by a power cut: never shown, not kept aside

    def __str__(self) -> str:
        n = len(self.data)
        if self.torn:
            return (
                f"record {self.seq}, the last, was cut short ({n} bytes, no line end: a write "
                "a power cut interrupted) and was dropped; it had not been shown on any screen"
            )
        if not self.line_end:
            if n == 0:
                found = "its line end was missing: one was written"
            elif n == 1:
                found = f"its line end was damaged ({_preview(self.data)} in its place): "
                found += "that byte was cut and a line end written"
            else:
                found = f"in place of its line end were {n} bytes that are no record "
                found += f"({_preview(self.data)}): they were cut and a line end written"
            then = "the file ended there" if self.tail else f"record {self.seq} follows, kept"
            return f"record {self.seq - 1} is sound and kept, but {found}; {then}"
        if self.tail:
            return (
                f"the journal is damaged at record {self.seq}: the {self.seq} record(s) before "
                f"it are kept and the {n} bytes from there on, {self.holding()}, were cut"
            )
        return (
            f"the journal is damaged at record {self.seq}: {n} bytes, {self.holding()}, came "
            "before it and were cut; it and the records after it are kept"
        )

    def holding(self) -> str:
        """What the cut bytes hold, truly: no sound record, or the sound records
        (by number) that could not be kept: each claims a number already kept or
        follows a gap in the sequence, so replaying it would change the game."""
        found = _sound_within(self.data)
        if not found:
            return f"no sound record ({_preview(self.data)})"
        numbers = ", ".join(str(seq) for seq in found[:8]) + (", ..." if len(found) > 8 else "")
        why = (
            f"not record {self.seq}, so none of them can follow record {self.seq - 1}"
            if self.seq > 0
            else "none of them a start record 0"
        )
        return f"{len(found)} sound record(s) numbered {numbers} ({why})"


@dataclass(frozen=True)
class Loaded:
    """What a journal file's bytes hold: the records kept, the file as it should
    be (each kept record on its own line), and what was cut and why."""

    records: tuple[Record, ...]
    journal: bytes
    cuts: tuple[Cut, ...] = ()
    bare: bool = False  # the file ended right after the last record, before its line end
    recased: tuple[int, ...] = ()  # kept records whose CRC has a capital hex digit
    # Records 1 .. passed-1 are kept but not in `records`: a checkpoint (record
    # `passed`, the next in `records` after record 0) vouched for them whole.
    passed: int = 0

    @property
    def count(self) -> int:
        """How many records are kept (those passed over included)."""
        return self.records[-1].seq + 1 if self.records else 0

    def all_records(self) -> tuple[Record, ...]:
        """Every record kept, those passed over parsed too (from `journal`, the
        bytes already read: no read of the file)."""
        return load(self.journal).records if self.passed else self.records

    @property
    def dropped(self) -> bytes:
        """Every byte of the file that `journal` does not hold."""
        return b"".join(c.data for c in self.cuts)

    @property
    def damaged(self) -> bool:
        """Whether the file is copied aside before the repair: anything is cut
        but a torn tail."""
        return any(not c.torn for c in self.cuts)

    @property
    def clean(self) -> bool:
        return not self.cuts and not self.bare and not self.recased

    @property
    def reason(self) -> str:
        said = [str(c) for c in self.cuts]
        if self.bare:
            said.append(
                f"record {self.count - 1} is sound and kept; the file ended before "
                "its line end, which was written"
            )
        if self.recased:
            more = ", ..." if len(self.recased) > 8 else ""
            numbers = ", ".join(map(str, self.recased[:8])) + more
            said.append(
                f"record(s) {numbers}: a hex digit of the CRC is a capital letter (a bit "
                "flipped on the disk); its value and the payload are sound: kept, the CRC "
                "written again in small letters"
            )
        return "; ".join(said) or "the journal is sound"


@dataclass(frozen=True)
class Recovery:
    """What `Journal.open` found and repaired, and where it first kept the whole
    file aside: `damaged_copy` if anything but a torn tail was cut (the screens
    say so), else `torn_copy` if a torn tail was (said only in the log), else
    `recased_copy` if a CRC was only written again in small letters (the log)."""

    loaded: Loaded = Loaded((), b"")
    damaged_copy: Path | None = None
    torn_copy: Path | None = None
    recased_copy: Path | None = None

    @property
    def clean(self) -> bool:
        return self.loaded.clean

    @property
    def torn_bytes(self) -> int:
        """The bytes of a torn tail cut off (cut in silence: never shown)."""
        return sum(len(c.data) for c in self.loaded.cuts if c.torn)

    @property
    def cut_bytes(self) -> int:
        """The bytes cut as damage (kept in the copy)."""
        return sum(len(c.data) for c in self.loaded.cuts if not c.torn)

    @property
    def damaged_at(self) -> int | None:
        """The record where the first damage was found."""
        return next((c.seq for c in self.loaded.cuts if not c.torn), None)

    def __str__(self) -> str:
        if self.damaged_copy is not None:
            return f"{self.loaded.reason}; the whole file was first copied to {self.damaged_copy}"
        found = self.torn_copy or self.recased_copy
        if found is not None:
            return f"{self.loaded.reason} (the file as found is kept at {found})"
        return self.loaded.reason


def load(buf: bytes, *, checkpoints: bool = False) -> Loaded:
    """The records of a journal file's bytes and how to repair it; pure (reads
    and writes nothing, never raises), so it can be called on any bytes at all.

    `records` are the records kept (in sequence from 0), `journal` the file as
    `Journal.open` leaves it, `dropped` the bytes it cuts, `damaged` whether it
    first keeps the whole file aside, `reason` the log line (without the copy's
    name). `checkpoints`: the records the last checkpoint vouches for are kept
    without being parsed (`Loaded.passed`); what is kept, cut and said is the same."""
    records: list[Record] = []
    lines: list[bytes] = []
    cuts: list[Cut] = []
    recased: list[int] = []
    offset, ended = 0, True  # ended: the last record kept was followed by its line end
    seq, passed = 0, 0  # seq: the next record's number
    vouched = _vouched(buf) if checkpoints else None
    if vouched is not None:
        first, offset = vouched
        records.append(first)
        lines.append(buf[:offset])
        seq = passed = int(buf[offset + 4 : offset + 12])
    while offset < len(buf):
        got = _sound(buf, offset, seq)
        if got is not None:
            if not ended:  # right after the last record's payload: its line end is lost
                cuts.append(Cut(offset, b"", seq, False, False, False))
            record, end = got
            records.append(record)
            line = buf[offset:end] + b"\n"
            if _has_capital(line[_CRC_AT : _HEAD - 1]):  # written again as keystand writes it
                recased.append(seq)
                line = line[:_CRC_AT] + line[_CRC_AT : _HEAD - 1].lower() + line[_HEAD - 1 :]
            lines.append(line)
            ended = buf[end : end + 1] == b"\n"
            offset = end + ended
            seq += 1
            continue
        # Past bytes that are no record, pick up again at record `seq`; past a
        # sound record of another number (two records claim one place), never:
        # which one is the game's cannot be told, so all from here on is cut.
        conflict = _sound_any(buf, offset) is not None
        found = None if conflict else _next_sound(buf, offset + 1, seq)
        stop = len(buf) if found is None else found
        tail = found is None
        torn = tail and ended and _torn(buf[offset:], seq)
        cuts.append(Cut(offset, buf[offset:stop], seq, ended, tail, torn))
        offset, ended = stop, True
    bare = bool(records) and not ended
    return Loaded(tuple(records), b"".join(lines), tuple(cuts), bare, tuple(recased), passed)


def _vouched(buf: bytes) -> tuple[Record, int] | None:
    """Record 0 and where the last checkpoint starts, if that checkpoint is sound
    and the bytes before it are those it vouches for (their size and CRC-32):
    then every record before it is sound, in sequence, each on its own line, as
    written. None otherwise (the caller reads record by record).

    The checkpoint is found from the end: its "t" is its payload's last key, and
    no payload holds a line end (JSON escapes it), so its line starts after the
    line end before it."""
    mark = buf.rfind(b'"t":"%s"}' % CHECKPOINT.encode())
    if mark < 0:
        return None
    at = buf.rfind(b"\n", 0, mark) + 1
    head = _HEAD_FORM.fullmatch(buf, at, at + _HEAD)
    got = None if head is None else _sound(buf, at, int(head[1]))
    if got is None or got[1] <= mark:
        return None
    data = got[0].data
    if data.get("t") != CHECKPOINT or data.get("size") != at or at == 0:
        return None
    if data.get("crc") != f"{zlib.crc32(memoryview(buf)[:at]):08x}":
        return None
    first = _sound(buf, 0, 0)
    return None if first is None else (first[0], at)


# The CRC's hex digits in either case: keystand writes them small, but a bit flip
# of 0x20 in one ("a" -> "A") changes neither the CRC's value nor the payload, so
# the record is as sound as it was and is kept (said in the log, `Loaded.recased`,
# and written again in small letters).
# Its length and sequence digits stay ASCII digits only.
_HEAD_FORM = re.compile(rb"KS1 ([0-9]{8}) ([0-9]{6}) ([0-9a-fA-F]{8}) ")


def _sound(buf: bytes, offset: int, seq: int) -> tuple[Record, int] | None:
    """Record `seq` if a sound one starts at `offset`, and the offset just past
    its payload. The line end after it is no part of its soundness."""
    head = _HEAD_FORM.fullmatch(buf, offset, offset + _HEAD)
    if head is None or int(head[1]) != seq:
        return None
    end = offset + _HEAD + int(head[2])
    if end > len(buf):
        return None
    payload = buf[offset + _HEAD : end]
    if zlib.crc32(b"%08d" % seq + payload) != int(head[3], 16):
        return None
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):  # a sound CRC over a payload keystand never wrote
        return None
    return (Record(seq, data), end) if isinstance(data, dict) else None


_CRC_AT = len(MAGIC) + 1 + 8 + 1 + 6 + 1  # where the CRC's eight hex digits start


def _has_capital(digits: bytes) -> bool:
    return any(0x41 <= b <= 0x46 for b in digits)


def _sound_within(data: bytes) -> list[int]:
    """The numbers of the sound records (of any number) that start in `data`."""
    found = []
    at = data.find(MAGIC + b" ")
    while at >= 0:
        got = _sound_any(data, at)
        if got is not None:
            found.append(got[0].seq)
            at = data.find(MAGIC + b" ", got[1])
        else:
            at = data.find(MAGIC + b" ", at + 1)
    return found


def _sound_any(buf: bytes, offset: int) -> tuple[Record, int] | None:
    """A sound record of whatever number starts at `offset`, if one does."""
    head = _HEAD_FORM.fullmatch(buf, offset, offset + _HEAD)
    return None if head is None else _sound(buf, offset, int(head[1]))


def _next_sound(buf: bytes, start: int, seq: int) -> int | None:
    """Where the first sound record `seq` at or after `start` begins."""
    head = b"%s %08d " % (MAGIC, seq)
    at = buf.find(head, start)
    while at >= 0 and _sound(buf, at, seq) is None:
        at = buf.find(head, at + 1)
    return at if at >= 0 else None


def _torn(tail: bytes, seq: int) -> bool:
    """Whether `tail` can be record `seq`'s write cut short: no line end, its head
    as far as it goes, and shorter than the payload its head declares."""
    if b"\n" in tail:
        return False
    sample = b"%s %08d 000000 00000000 {" % (MAGIC, seq)
    whole = tail + sample[len(tail) :]  # the missing part of the head filled in
    head = _HEAD_FORM.fullmatch(whole, 0, _HEAD)
    if head is None or int(head[1]) != seq or whole[_HEAD : _HEAD + 1] != b"{":
        return False
    length_known = len(tail) >= len(MAGIC) + 1 + 8 + 1 + 6  # its six digits are all there
    return not length_known or len(tail) < _HEAD + int(head[2])


def _preview(data: bytes) -> str:
    return repr(data[:24]) + ("..." if len(data) > 24 else "")


def read(path: Path) -> tuple[list[Record], int, bool]:
    """The records `load` keeps from a journal file (nothing changed on disk), the
    length of the file as repaired, and whether a repair keeps a copy aside."""
    loaded = load(path.read_bytes())
    return list(loaded.records), len(loaded.journal), loaded.damaged


@dataclass(frozen=True)
class Found:
    """A journal file as one read found it (its bytes loaded, checkpoints used),
    and the file's identity then: a start reads the journal once, to choose the
    game and to resume it (`Journal.open(path, found)`), unless it changed between."""

    path: Path
    stamp: tuple[int, ...]  # device, inode, size, mtime and ctime (ns)
    data: bytes
    loaded: Loaded

    def current(self) -> bool:
        """Whether the file is still the one read (a stat, no read)."""
        try:
            return _stamp(os.stat(self.path)) == self.stamp
        except OSError:
            return False


def look(path: Path) -> Found:
    """Read the journal at `path` once, with its identity (OSError if it cannot be)."""
    with open(path, "rb") as f:
        stamp = _stamp(os.fstat(f.fileno()))
        data = f.read()
    return Found(path, stamp, data, load(data, checkpoints=True))


def _stamp(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def fsync_dir(path: Path) -> None:
    """Make a file created or renamed in `path` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    """An open journal file. Use `Journal.open(path)`; `append` returns only
    once the record is on disk."""

    def __init__(self, path: Path, fd: int, next_seq: int, crc: int = 0) -> None:
        self.path = path
        self._fd = fd
        self._next_seq = next_seq
        self._size = os.fstat(fd).st_size if fd >= 0 else 0  # the end of the good records
        # The CRC-32 of those `_size` bytes, as written: what `recover` checks the
        # file against once a failed write could not be taken back.
        self._crc = crc
        self._size_before_last: int | None = None  # for take_back_last
        self._crc_before_last = crc
        self._seq_before_last = next_seq
        self._broken: str | None = None  # why appending is no longer safe

    @classmethod
    def open(cls, path: Path, found: Found | None = None) -> tuple[Journal, list[Record], Recovery]:
        """Open (or create) the journal at `path`, repaired as `load` says (its
        checkpoints used: `Loaded.passed`). `found`: the file as a `look` at it
        found it, used if the file has not changed since (read once)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        recovery = Recovery()
        if found is None or found.path != path or not found.current():
            found = look(path) if path.exists() else None
        if found is not None:
            buf, loaded = found.data, found.loaded
            copy = keep_aside(path) if loaded.damaged else None
            # A torn tail was never shown, but random damage can look torn: its
            # bytes are kept too (a copy costs nothing; a loss cannot be undone).
            torn = any(c.torn for c in loaded.cuts) and copy is None
            torn_copy = keep_aside(path, "torn") if torn else None
            # A CRC written again in small letters changes a byte of the file: the
            # file as found is kept too, for the same reason.
            recased = bool(loaded.recased) and copy is None and torn_copy is None
            recased_copy = keep_aside(path, "recased") if recased else None
            if buf.startswith(loaded.journal):
                if len(buf) > len(loaded.journal):
                    cut(path, len(loaded.journal))
            else:  # a line end to write again, maybe records after it
                atomic_write(path, loaded.journal)
            recovery = Recovery(loaded, copy, torn_copy, recased_copy)
        records = list(recovery.loaded.records)
        created = not path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if created:
            fsync_dir(path.parent)
        crc = zlib.crc32(recovery.loaded.journal)  # the file as repaired holds these bytes
        return cls(path, fd, recovery.loaded.count, crc), records, recovery

    @property
    def next_seq(self) -> int:
        return self._next_seq

    def append(self, data: dict[str, Any], *, checkpoint: dict[str, Any] | None = None) -> Record:
        """Write one record and fsync it; raises JournalError if the disk refuses.

        `checkpoint`: a checkpoint record follows it in the same write and fsync
        (the two are on disk together or, the write cut short, the torn one is
        never shown), vouching for the file up to it: `size` and `crc` are added.

        A failed append leaves the file as it was (what was written of the record
        is cut off again), so later records never follow a half record. If even
        that fails, the journal refuses every further append."""
        record = Record(self._next_seq, data)
        if self._broken:
            raise JournalError(f"journal {self.path}: {self._broken}")
        line = encode(record.seq, data)
        if checkpoint is not None:
            size, crc = self._size + len(line), zlib.crc32(line, self._crc)
            vouch = {**checkpoint, "t": CHECKPOINT, "size": size, "crc": f"{crc:08x}"}
            line += encode(record.seq + 1, vouch)
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write: {written} of {len(line)} bytes")
            os.fsync(self._fd)
        except OSError as e:
            self._cut_back()
            raise JournalError(f"journal {self.path}: cannot write record {record.seq}: {e}") from e
        self._size_before_last = self._size
        self._crc_before_last = self._crc
        self._seq_before_last = self._next_seq
        self._size += len(line)
        self._crc = zlib.crc32(line, self._crc)
        self._next_seq += 1 if checkpoint is None else 2
        return record

    def take_back_last(self) -> None:
        """Cut off the record just appended (its checkpoint with it; a step that
        failed after it); cutting needs no space. Raises JournalError if the file
        refuses even that."""
        if self._size_before_last is None:
            raise JournalError(f"journal {self.path}: no record to take back")
        self._size = self._size_before_last
        self._crc = self._crc_before_last
        self._size_before_last = None
        self._next_seq = self._seq_before_last
        self._cut_back()
        if self._broken:
            raise JournalError(f"journal {self.path}: {self._broken}")

    def _cut_back(self) -> None:
        try:
            os.ftruncate(self._fd, self._size)
            os.fsync(self._fd)
        except OSError as e:
            self._broken = (
                f"a failed write could not be taken back ({e}); the stand checks the "
                "journal again until it can"
            )

    @property
    def broken(self) -> str | None:
        """Why no record may be appended now (a failed write could not be taken
        back), or None."""
        return self._broken

    def recover(self) -> bool:
        """After a failed write that could not be taken back: get back to a journal
        that can be trusted, or say it cannot be. True once it can be appended to
        again (or it never broke); False if the disk still refuses (try later).

        The file is opened afresh, cut back to the records journaled (what the
        failed write left after them was never shown: the screens said it was
        not taken), fsynced, its cached pages dropped so that what is read back
        comes from the disk, and the records journaled are checked against it,
        byte for byte by their CRC-32. JournalLost if they are not all there
        unchanged: only a restart can go on from that (its repair keeps the file
        aside and both screens say so)."""
        if self._broken is None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            raise JournalLost(f"journal {self.path}: gone from the disk") from None
        except OSError as e:
            self._broken = f"it cannot be opened again: {e}"
            return False
        try:
            size = os.fstat(fd).st_size
            if size < self._size:
                raise JournalLost(
                    f"journal {self.path}: {size} bytes on disk, {self._size} journaled"
                )
            if size > self._size:
                os.ftruncate(fd, self._size)
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # read the disk, not the cache
            found = _pread_all(fd, self._size)
            if len(found) != self._size or zlib.crc32(found) != self._crc:
                raise JournalLost(
                    f"journal {self.path}: its {self._next_seq} records on disk are not "
                    "those journaled"
                )
        except JournalLost:
            os.close(fd)
            raise
        except OSError as e:
            os.close(fd)
            self._broken = f"it cannot be checked again: {e}"
            return False
        old, self._fd = self._fd, fd
        if old >= 0:
            with contextlib.suppress(OSError):  # the descriptor the failed write left
                os.close(old)
        self._broken = None
        self._size_before_last = None  # what was taken back stays taken back
        return True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Journal {str(self.path)!r} next_seq={self._next_seq}>"


def _pread_all(fd: int, size: int) -> bytes:
    """The first `size` bytes of the file behind `fd` (fewer if it is shorter)."""
    chunks, got = [], 0
    while got < size:
        chunk = os.pread(fd, min(size - got, 1024 * 1024), got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def keep_aside(path: Path, kind: str = "damaged") -> Path:
    """A durable copy of `path` beside it (`<name>.<kind>-<n>`): written, fsynced,
    its folder fsynced, all before the caller cuts the original."""
    import shutil  # here, not at import: it loads bz2 and lzma at every start

    copy = _free_name(path, kind)
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # it holds the card
    try:
        with open(path, "rb") as src, os.fdopen(os.dup(fd), "wb") as dst:
            shutil.copyfileobj(src, dst)  # a copy, not a link: the original is cut next
            dst.flush()
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(copy.parent)
    return copy


def cut(path: Path, end: int) -> None:
    """Cut `path` to its first `end` bytes, durably."""
    with open(path, "r+b") as f:
        f.truncate(end)
        f.flush()
        os.fsync(f.fileno())


def atomic_write(path: Path, data: bytes | str) -> None:
    """Replace `path` with `data` (text: UTF-8) in one step a power cut cannot
    split: a new file beside it (a name of its own, readable by the service user
    only) written and fsynced, renamed over it, the folder fsynced. The one
    atomic replace: the journal's repair, the settings, the campaign, the history."""
    raw = data.encode() if isinstance(data, str) else data
    while True:  # a name no other writer holds (O_EXCL), not tempfile: it loads bz2, lzma
        new = path.with_name(f".{path.name}.{os.urandom(4).hex()}")
        try:
            fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(new, path)
    except BaseException:
        new.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _free_name(path: Path, kind: str) -> Path:
    n = 1
    while (copy := path.with_name(f"{path.name}.{kind}-{n}")).exists():
        n += 1
    return copy
