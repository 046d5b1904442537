"""The journal: one game's records, append-only, each on disk (fsync) before its
result is shown anywhere.

A record is one line of text, so a journal can be read with `less`:

    KS1 <seq:8 digits> <length:6 digits> <crc32:8 hex> <payload: JSON object>\\n

`length` counts the payload's UTF-8 bytes and `crc32` covers the sequence
number and the payload. Records are numbered from 0 without gaps. A power cut
can leave only a torn tail: the file ends inside a record (a write in progress,
no line end yet); `Journal.open` cuts it off, so the game resumes at the record
before it. Any whole line that is not a sound record is damage, wherever it is
(the last record and the start record included): the file is first copied
aside whole (`<name>.damaged-<n>`, the copy and its folder fsynced), and only
then are the records from the damage on cut, so a power cut during a repair
cannot lose the only copy.
"""

from __future__ import annotations

import json
import os
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rules import KeystandError

MAGIC = b"KS1"
_HEAD = len(MAGIC) + 1 + 8 + 1 + 6 + 1 + 8 + 1  # "KS1 " seq " " length " " crc " "
MAX_PAYLOAD = 999_999


class JournalError(KeystandError, OSError):
    """The journal cannot be written (disk full, read-only, removed)."""


@dataclass(frozen=True)
class Record:
    seq: int
    data: dict[str, Any]


@dataclass(frozen=True)
class Recovery:
    """What `Journal.open` found besides good records: the bytes of a torn tail
    cut off (a power cut mid-write), or damage: the record where it starts, the
    bytes cut from there on, and where the whole file was kept aside."""

    torn_bytes: int = 0
    damaged_copy: Path | None = None
    damaged_at: int | None = None  # the first record that is not sound
    cut_bytes: int = 0  # bytes cut from the damage on (kept in the copy)

    @property
    def clean(self) -> bool:
        return not self.torn_bytes and self.damaged_copy is None

    def __str__(self) -> str:
        if self.damaged_copy is not None:
            return (
                f"the journal is damaged at record {self.damaged_at}; the {self.damaged_at} "
                f"record(s) before it are kept and {self.cut_bytes} bytes from there on were "
                f"cut; the whole file was first copied to {self.damaged_copy}"
            )
        if self.torn_bytes:
            return (
                f"the last record was cut short ({self.torn_bytes} bytes, a write a power cut "
                "interrupted) and was dropped; it had not been shown on any screen"
            )
        return "the journal is sound"


def encode(seq: int, data: dict[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"journal record {seq}: {len(payload)} bytes, at most {MAX_PAYLOAD}")
    crc = zlib.crc32(b"%08d" % seq + payload)
    return b"%s %08d %06d %08x " % (MAGIC, seq, len(payload), crc) + payload + b"\n"


def _decode(buf: bytes, offset: int, seq: int) -> tuple[Record, int] | None:
    """The record at `offset` if it is whole and sound, and the offset after it."""
    head = buf[offset : offset + _HEAD]
    if len(head) < _HEAD or not head.startswith(MAGIC + b" "):
        return None
    try:
        fields = head[len(MAGIC) + 1 :].split(b" ")
        got_seq, length, crc = int(fields[0]), int(fields[1]), int(fields[2], 16)
    except (ValueError, IndexError):
        return None
    end = offset + _HEAD + length
    payload = buf[offset + _HEAD : end]
    if got_seq != seq or len(payload) != length or buf[end : end + 1] != b"\n":
        return None
    if zlib.crc32(b"%08d" % seq + payload) != crc:
        return None
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return Record(seq, data), end + 1


def read(path: Path) -> tuple[list[Record], int, bool]:
    """The sound records of a journal file, the offset where they end, and
    whether anything after that offset looks like a later sound record (damage,
    not a torn tail)."""
    buf = path.read_bytes()
    records: list[Record] = []
    offset = 0
    while offset < len(buf):
        got = _decode(buf, offset, len(records))
        if got is None:
            break
        record, offset = got
        records.append(record)
    rest = buf[offset:]
    # A torn tail is a record whose write never reached its line end; a whole
    # line that is not a sound record (the last one too) is damage.
    damaged = b"\n" in rest
    return records, offset, damaged


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

    def __init__(self, path: Path, fd: int, next_seq: int) -> None:
        self.path = path
        self._fd = fd
        self._next_seq = next_seq
        self._size = os.fstat(fd).st_size if fd >= 0 else 0  # the end of the good records
        self._size_before_last: int | None = None  # for take_back_last
        self._broken: str | None = None  # why appending is no longer safe

    @classmethod
    def open(cls, path: Path) -> tuple[Journal, list[Record], Recovery]:
        """Open (or create) the journal at `path`, repairing a torn tail."""
        path.parent.mkdir(parents=True, exist_ok=True)
        recovery = Recovery()
        records: list[Record] = []
        if path.exists():
            records, end, damaged = read(path)
            size = path.stat().st_size
            if damaged:
                copy = keep_aside(path)
                recovery = Recovery(
                    damaged_copy=copy, damaged_at=len(records), cut_bytes=size - end
                )
            elif size > end:
                recovery = Recovery(torn_bytes=size - end)
            if size > end:
                cut(path, end)
        created = not path.exists()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if created:
            fsync_dir(path.parent)
        return cls(path, fd, len(records)), records, recovery

    @property
    def next_seq(self) -> int:
        return self._next_seq

    def append(self, data: dict[str, Any]) -> Record:
        """Write one record and fsync it; raises JournalError if the disk refuses.

        A failed append leaves the file as it was (what was written of the record
        is cut off again), so later records never follow a half record. If even
        that fails, the journal refuses every further append."""
        record = Record(self._next_seq, data)
        if self._broken:
            raise JournalError(f"journal {self.path}: {self._broken}")
        line = encode(record.seq, data)
        try:
            written = os.write(self._fd, line)
            if written != len(line):
                raise OSError(f"short write: {written} of {len(line)} bytes")
            os.fsync(self._fd)
        except OSError as e:
            self._cut_back()
            raise JournalError(f"journal {self.path}: cannot write record {record.seq}: {e}") from e
        self._size_before_last = self._size
        self._size += len(line)
        self._next_seq += 1
        return record

    def take_back_last(self) -> None:
        """Cut off the record just appended (a step that failed after it); cutting
        needs no space. Raises JournalError if the file refuses even that."""
        if self._size_before_last is None:
            raise JournalError(f"journal {self.path}: no record to take back")
        self._size = self._size_before_last
        self._size_before_last = None
        self._next_seq -= 1
        self._cut_back()
        if self._broken:
            raise JournalError(f"journal {self.path}: {self._broken}")

    def _cut_back(self) -> None:
        try:
            os.ftruncate(self._fd, self._size)
            os.fsync(self._fd)
        except OSError as e:
            self._broken = f"a failed write could not be taken back ({e}); restart the stand"

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


def keep_aside(path: Path) -> Path:
    """A durable copy of `path` beside it: written, fsynced, its folder fsynced,
    all before the caller cuts the original."""
    copy = _free_name(path)
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


def _free_name(path: Path) -> Path:
    n = 1
    while (copy := path.with_name(f"{path.name}.damaged-{n}")).exists():
        n += 1
    return copy
