"""The journal: records survive, a torn tail is cut off, damage is kept aside.

A damaged line end and random damage to the last records: test_journal_line_end.py."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keystand.journal import Journal, JournalError, encode, read

RECORDS = [
    {"t": "start", "card": "GG... / ..GG.", "mission": "9-9"},
    {"t": "event", "e": "clue A"},
    {"t": "event", "e": "touch 1 2"},
    {"t": "event", "e": "pass B", "note": "ünïcödé, кириллица"},
]


def write(path: Path, records: list[dict]) -> None:
    with Journal.open(path)[0] as j:
        for r in records:
            j.append(r)


def test_records_come_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    write(path, RECORDS)
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS
    assert [r.seq for r in records] == [0, 1, 2, 3]
    assert recovery.clean


def test_appending_after_reopen_continues_the_sequence(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    write(path, RECORDS[:2])
    with Journal.open(path)[0] as j:
        assert j.next_seq == 2
        j.append(RECORDS[2])
    assert [r.seq for r in read(path)[0]] == [0, 1, 2]


def test_journal_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    write(path, RECORDS[:1])
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def test_every_cut_of_the_last_record_loads_the_game_before_it(tmp_path: Path) -> None:
    """DESIGN: journals cut at every byte offset inside the last record's payload
    load the game up to the previous record (and the torn bytes are gone from the
    file); cut just before its line end, the record is whole, and kept."""
    whole = b"".join(encode(i, r) for i, r in enumerate(RECORDS))
    last_start = len(whole) - len(encode(len(RECORDS) - 1, RECORDS[-1]))
    path = tmp_path / "cut.journal"
    for cut in range(last_start, len(whole) - 1):
        path.write_bytes(whole[:cut])
        journal, records, recovery = Journal.open(path)
        journal.close()
        assert [r.data for r in records] == RECORDS[:-1], cut
        assert recovery.torn_bytes == cut - last_start
        assert recovery.damaged_copy is None
        assert path.read_bytes() == whole[:last_start]
    path.write_bytes(whole[:-1])
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == whole and recovery.damaged_copy is None
    path.write_bytes(whole)
    assert len(Journal.open(path)[1]) == len(RECORDS)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=1, max_size=40))
def test_garbage_tail_never_breaks_the_sound_records(tmp_path_factory, junk: bytes):
    path = tmp_path_factory.mktemp("j") / "g.journal"
    whole = b"".join(encode(i, r) for i, r in enumerate(RECORDS))
    path.write_bytes(whole + junk)
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == whole
    head = b"KS1 00000004 "  # how the next record's line starts
    if head.startswith(junk):  # its write cut short: a torn tail, cut without a copy
        assert recovery.torn_bytes == len(junk) and recovery.damaged_copy is None
    elif not junk.startswith(head):  # not a start of the next record: damage, kept aside
        assert recovery.torn_bytes == 0 and recovery.cut_bytes == len(junk)
        assert recovery.damaged_copy is not None
        assert recovery.damaged_copy.read_bytes() == whole + junk


def test_a_torn_tail_is_a_start_of_the_next_record(tmp_path: Path) -> None:
    """Every start of the next record's line, short of its payload's end, is a
    torn tail; bytes that do not begin it are damage, even with no line end."""
    whole = b"".join(encode(i, r) for i, r in enumerate(RECORDS))
    nxt = encode(len(RECORDS), {"t": "event", "e": "touch 0 0"})
    path = tmp_path / "g.journal"
    for end in range(1, len(nxt) - 1):
        path.write_bytes(whole + nxt[:end])
        journal, _, recovery = Journal.open(path)
        journal.close()
        assert recovery.torn_bytes == end and recovery.damaged_copy is None, end
    for junk in (b"\0" * 40, b"KS1 00000009 ", b"KS2 ", b"x"):
        path.write_bytes(whole + junk)
        journal, _, recovery = Journal.open(path)
        journal.close()
        assert recovery.torn_bytes == 0 and recovery.damaged_copy is not None, junk


def test_a_spoiled_record_in_the_middle_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    write(path, RECORDS)
    original = path.read_bytes()
    second = len(encode(0, RECORDS[0]))
    spoiled = bytearray(original)
    spoiled[second + 30] ^= 0x01  # one bit in record 1's payload
    path.write_bytes(bytes(spoiled))
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS[:1]
    assert recovery.damaged_copy is not None
    assert recovery.damaged_copy.read_bytes() == bytes(spoiled)  # nothing lost
    assert path.read_bytes() == original[:second]


def test_records_out_of_sequence_are_not_accepted(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    path.write_bytes(encode(0, RECORDS[0]) + encode(2, RECORDS[1]))
    records, end, damaged = read(path)
    assert len(records) == 1
    assert end == len(encode(0, RECORDS[0]))
    assert damaged  # a whole line that is not the next record: damage, kept aside on open


def test_append_is_fsynced_before_it_returns(tmp_path: Path, monkeypatch) -> None:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    journal, _, _ = Journal.open(tmp_path / "g.journal")
    synced.clear()
    journal.append(RECORDS[0])
    assert synced, "append returned without fsync"
    journal.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_a_journal_error() -> None:
    journal = Journal(Path("/dev/full"), os.open("/dev/full", os.O_WRONLY), 0)
    with pytest.raises(JournalError, match=r"cannot write record 0.*No space"):
        journal.append(RECORDS[0])
    journal.close()
    assert journal.next_seq == 0


def test_a_failed_fsync_leaves_no_half_record_behind(tmp_path: Path, monkeypatch) -> None:
    """A write that reaches the file but whose fsync fails is taken back, so the
    records after it are not lost as damage on the next start."""
    path = tmp_path / "g.journal"
    journal, _, _ = Journal.open(path)
    journal.append(RECORDS[0])
    real = os.fsync
    calls = {"n": 0}

    def flaky(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fsync", flaky)
    with pytest.raises(JournalError, match="cannot write record 1"):
        journal.append(RECORDS[1])
    journal.append(RECORDS[2])  # the same sequence number, now after a clean end
    journal.close()
    monkeypatch.setattr(os, "fsync", real)
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == [RECORDS[0], RECORDS[2]]
    assert recovery.clean


def test_a_damaged_copy_is_private(tmp_path: Path) -> None:
    path = tmp_path / "game.journal"
    write(path, RECORDS)
    spoiled = bytearray(path.read_bytes())
    spoiled[len(encode(0, RECORDS[0])) + 30] ^= 0x01
    path.write_bytes(bytes(spoiled))
    journal, _, recovery = Journal.open(path)
    journal.close()
    assert recovery.damaged_copy is not None
    assert stat.S_IMODE(recovery.damaged_copy.stat().st_mode) == 0o600


def test_a_bit_flip_inside_the_last_record_is_damage_not_a_torn_tail(tmp_path: Path) -> None:
    """The last record may be the last event both screens showed: a whole line
    that fails its check is kept aside before anything is cut, and said so."""
    path = tmp_path / "game.journal"
    write(path, RECORDS)
    original = path.read_bytes()
    last = len(original) - len(encode(len(RECORDS) - 1, RECORDS[-1]))
    spoiled = bytearray(original)
    spoiled[last + 40] ^= 0x04
    path.write_bytes(bytes(spoiled))
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS[:-1]
    assert recovery.damaged_copy is not None and recovery.torn_bytes == 0
    assert recovery.damaged_copy.read_bytes() == bytes(spoiled)
    assert recovery.damaged_at == len(RECORDS) - 1
    said = str(recovery)
    assert f"damaged at record {len(RECORDS) - 1}" in said
    assert str(recovery.damaged_copy) in said
    assert "torn" not in said


def test_the_copy_is_durable_before_the_original_is_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order a power cut cannot undo: copy written, copy fsynced, its folder
    fsynced, and only then the original cut. A crash just before the cut
    leaves the copy whole."""
    import os

    from keystand import journal as journal_module

    path = tmp_path / "game.journal"
    write(path, RECORDS)
    spoiled = bytearray(path.read_bytes())
    spoiled[len(encode(0, RECORDS[0])) + 30] ^= 0x01
    path.write_bytes(bytes(spoiled))
    steps: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        steps.append("fsync " + os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def crash(where: Path, end: int) -> None:
        steps.append("cut")
        raise RuntimeError("power cut")

    monkeypatch.setattr(journal_module.os, "fsync", fsync)
    monkeypatch.setattr(journal_module, "cut", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        Journal.open(path)
    copy = path.with_name("game.journal.damaged-1")
    assert steps == ["fsync game.journal.damaged-1", f"fsync {tmp_path.name}", "cut"]
    assert copy.read_bytes() == bytes(spoiled)
    assert path.read_bytes() == bytes(spoiled)  # not cut: the crash came first


def test_a_damaged_start_record_is_kept_aside_and_reported(tmp_path: Path) -> None:
    """Damage in the first record: nothing to resume, and the stand says so (a
    JournalError naming the copy), never a new game dealt in silence."""
    from keystand.journal import JournalError
    from keystand.store import Store

    store = Store(tmp_path)
    path = tmp_path / "current.journal"
    write(path, RECORDS)
    spoiled = bytearray(path.read_bytes())
    spoiled[30] ^= 0x01
    path.write_bytes(bytes(spoiled))
    with pytest.raises(JournalError) as info:
        store.resume()
    assert "damaged at record 0" in str(info.value)
    copy = tmp_path / "current.journal.damaged-1"
    assert copy.read_bytes() == bytes(spoiled)
    assert str(copy) in str(info.value)


def _recase_crc(line: bytes) -> bytes:
    """`line` with every hex letter of its CRC in capitals (bit 0x20 flipped)."""
    head = len(b"KS1 00000000 000000 ")
    return line[:head] + line[head : head + 8].upper() + line[head + 8 :]


def test_a_crc_in_capitals_is_the_same_crc_and_nothing_after_it_is_cut(tmp_path: Path) -> None:
    """Issue 35: a case flip in a CRC digit leaves its value and the payload as they
    were; the loader once cut that record and every sound record after it."""
    lines = [encode(i, r) for i, r in enumerate(RECORDS)]
    crc_of = [line[20:28] for line in lines]
    which = next(i for i, crc in enumerate(crc_of) if crc.upper() != crc and i < len(lines) - 1)
    lines[which] = _recase_crc(lines[which])
    path = tmp_path / "game.journal"
    path.write_bytes(b"".join(lines))
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS
    assert recovery.damaged_copy is None and recovery.torn_copy is None
    # Written again as keystand writes it (the screens say nothing: no damage);
    # the file as found is kept beside it, as a torn tail's is.
    assert path.read_bytes() == b"".join(encode(i, r) for i, r in enumerate(RECORDS))
    assert recovery.recased_copy is not None
    assert recovery.recased_copy.read_bytes() == b"".join(lines)
    assert str(recovery.recased_copy) in str(recovery)
    assert f"record(s) {which}: a hex digit of the CRC is a capital letter" in str(recovery)
    again, records, recovery = Journal.open(path)
    again.close()
    assert [r.data for r in records] == RECORDS and recovery.clean


def test_the_warning_names_the_sound_records_a_damaged_one_takes_with_it(
    tmp_path: Path,
) -> None:
    """A damaged record in the middle: the records after it cannot follow without
    it and are cut (the copy keeps them); the warning says they were sound
    records, not that the cut bytes hold none."""
    lines = [encode(i, r) for i, r in enumerate(RECORDS)]
    lines[1] = lines[1].replace(b"clue A", b"clue B")  # the payload changed: its CRC fails
    path = tmp_path / "game.journal"
    path.write_bytes(b"".join(lines))
    journal, records, recovery = Journal.open(path)
    journal.close()
    assert [r.data for r in records] == RECORDS[:1]
    said = str(recovery)
    assert "no sound record" not in said
    assert "2 sound record(s) numbered 2, 3 (not record 1, so none of them" in said
    assert recovery.damaged_copy is not None
    assert recovery.damaged_copy.read_bytes() == b"".join(lines)  # the copy holds them
    assert f"the whole file was first copied to {recovery.damaged_copy}" in said


def test_bytes_with_no_sound_record_are_still_said_to_hold_none(tmp_path: Path) -> None:
    lines = [encode(i, r) for i, r in enumerate(RECORDS)]
    path = tmp_path / "game.journal"
    path.write_bytes(b"".join(lines[:2]) + b"garbage, no record at all\n")
    journal, _, recovery = Journal.open(path)
    journal.close()
    assert "the 26 bytes from there on, no sound record (b'garbage" in str(recovery)
