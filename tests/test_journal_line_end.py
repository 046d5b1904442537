"""A damaged line end never drops a shown record (issue 20, item 5).

A record whose head, length and CRC are sound is kept whatever follows it; any
other damage is kept aside before it is cut; and the log says "not shown" only
of a record that was truly torn (incomplete, no line end)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keystand import journal
from keystand.journal import Journal, Record, Recovery, encode

RECORDS = [
    {"t": "start", "card": "GG... / ..GG.", "mission": "9-9", "id": "g1"},
    {"t": "event", "e": "clue A", "at": "2024-01-01T10:00:00"},
    {"t": "event", "e": "touch 1 2", "at": "2024-01-01T10:00:05"},
    {"t": "event", "e": "pass B", "at": "2024-01-01T10:00:09"},
]
LINES = [encode(i, r) for i, r in enumerate(RECORDS)]
WHOLE = b"".join(LINES)
LAST = len(WHOLE) - len(LINES[-1])  # where the last record starts
PREV = LAST - len(LINES[-2])  # where the one before it starts
NOT_SHOWN = "not been shown"


def reopen(path: Path, data: bytes) -> tuple[list[Record], Recovery]:
    path.write_bytes(data)
    opened, records, recovery = Journal.open(path)
    opened.close()
    return records, recovery


def assert_kept_aside(path: Path, spoiled: bytes, recovery: Recovery) -> str:
    """The whole damaged file is in the copy the log names; returns the log line."""
    assert recovery.damaged_copy is not None
    assert recovery.damaged_copy.read_bytes() == spoiled
    said = str(recovery)
    assert str(recovery.damaged_copy) in said
    return said


@pytest.mark.parametrize("bit", range(8))
def test_a_flipped_bit_in_the_last_line_end_keeps_the_record(tmp_path: Path, bit: int) -> None:
    path = tmp_path / "current.journal"
    spoiled = WHOLE[:-1] + bytes([0x0A ^ (1 << bit)])
    records, recovery = reopen(path, spoiled)
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == WHOLE  # the line end written again
    said = assert_kept_aside(path, spoiled, recovery)
    assert "record 3 is sound and kept, but its line end was damaged" in said
    assert repr(spoiled[-1:]) in said  # what was found in its place
    assert NOT_SHOWN not in said
    assert recovery.torn_bytes == 0


def test_any_byte_in_place_of_the_last_line_end_keeps_the_record(tmp_path: Path) -> None:
    for byte in range(256):
        if byte == 0x0A:
            continue
        path = tmp_path / f"{byte:02x}" / "current.journal"
        path.parent.mkdir()
        spoiled = WHOLE[:-1] + bytes([byte])
        records, recovery = reopen(path, spoiled)
        assert [r.data for r in records] == RECORDS, byte
        assert path.read_bytes() == WHOLE, byte
        said = assert_kept_aside(path, spoiled, recovery)
        assert "record 3 is sound and kept" in said and NOT_SHOWN not in said, byte


@pytest.mark.parametrize("bit", range(8))
def test_a_damaged_line_end_before_the_last_record_keeps_both(tmp_path: Path, bit: int) -> None:
    path = tmp_path / "current.journal"
    spoiled = bytearray(WHOLE)
    spoiled[LAST - 1] ^= 1 << bit
    records, recovery = reopen(path, bytes(spoiled))
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == WHOLE
    said = assert_kept_aside(path, bytes(spoiled), recovery)
    assert "record 2 is sound and kept, but its line end was damaged" in said
    assert "record 3 follows, kept" in said and NOT_SHOWN not in said


def test_a_line_end_lost_between_two_records_keeps_both(tmp_path: Path) -> None:
    path = tmp_path / "current.journal"
    spoiled = WHOLE[: LAST - 1] + WHOLE[LAST:]
    records, recovery = reopen(path, spoiled)
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == WHOLE
    said = assert_kept_aside(path, spoiled, recovery)
    assert "record 2 is sound and kept, but its line end was missing" in said


def test_a_last_record_without_its_line_end_is_kept(tmp_path: Path) -> None:
    """Nothing is lost (the file is the journal less one line end), so no copy:
    the line end is written and the log says so, and never "not shown"."""
    path = tmp_path / "current.journal"
    records, recovery = reopen(path, WHOLE[:-1])
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == WHOLE
    assert recovery.damaged_copy is None and not recovery.clean
    said = str(recovery)
    assert "record 3 is sound and kept; the file ended before its line end" in said
    assert NOT_SHOWN not in said


@pytest.mark.parametrize(
    "garbage",
    [b"x", b"garbage", b"junk\nmore junk\n", b"\x00" * 12, b"KS1 00000004 ", b"KS1 00000003 "],
)
def test_a_missing_line_end_then_garbage_keeps_the_record(tmp_path: Path, garbage: bytes) -> None:
    path = tmp_path / "current.journal"
    spoiled = WHOLE[:-1] + garbage
    records, recovery = reopen(path, spoiled)
    assert [r.data for r in records] == RECORDS
    assert path.read_bytes() == WHOLE
    said = assert_kept_aside(path, spoiled, recovery)
    assert "record 3 is sound and kept" in said and NOT_SHOWN not in said
    assert recovery.cut_bytes == len(garbage) and recovery.torn_bytes == 0


def test_a_whole_last_line_that_lost_its_line_end_and_its_check_is_damage(tmp_path: Path) -> None:
    """No line end, but as long as a whole record: a shown record damaged twice,
    not a write a power cut interrupted. Kept aside, never said "not shown"."""
    path = tmp_path / "current.journal"
    spoiled = bytearray(WHOLE[:-1] + b"\x0b")
    spoiled[LAST + 40] ^= 0x04
    records, recovery = reopen(path, bytes(spoiled))
    assert [r.data for r in records] == RECORDS[:-1]
    said = assert_kept_aside(path, bytes(spoiled), recovery)
    assert "damaged at record 3" in said and NOT_SHOWN not in said
    assert path.read_bytes() == WHOLE[:LAST]


def test_a_torn_write_is_still_cut_off_and_said_so(tmp_path: Path) -> None:
    """The one case the log says "not shown": the file ends inside the record,
    short of its payload's end, and no copy is made."""
    path = tmp_path / "current.journal"
    for end in (LAST + 1, LAST + 20, len(WHOLE) - 2):
        records, recovery = reopen(path, WHOLE[:end])
        assert [r.data for r in records] == RECORDS[:-1], end
        assert recovery.damaged_copy is None and recovery.torn_bytes == end - LAST
        assert "record 3, the last, was cut short" in str(recovery) and NOT_SHOWN in str(recovery)
        assert path.read_bytes() == WHOLE[:LAST]


def test_the_repair_needs_no_second_one(tmp_path: Path) -> None:
    path = tmp_path / "current.journal"
    reopen(path, WHOLE[:-1] + b"\x0b")
    records, recovery = reopen(path, path.read_bytes())
    assert [r.data for r in records] == RECORDS and recovery.clean
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "current.journal",
        "current.journal.damaged-1",
    ]


# ----- crafted records: sound CRCs that are still not the next record -------------------


def crafted(
    seq: int, payload: bytes, head: bytes = b"KS1 %08d %06d ", crc: bytes = b"%08x"
) -> bytes:
    """A line whose CRC is sound for `seq` and `payload`, in a head of any form."""
    check = zlib.crc32(b"%08d" % seq + payload)
    return head % (seq, len(payload)) + crc % check + b" " + payload + b"\n"


@pytest.mark.parametrize(
    "extra",
    [
        encode(3, RECORDS[3]),  # the last record again: not the next in sequence
        encode(7, {"t": "event", "e": "touch 0 0"}),  # a gap
        crafted(4, b"[1,2]"),  # sound CRC, not an object
        crafted(4, b"{not json}"),
        crafted(4, b"{}", head=b"KS1 +%07d %06d "),  # its number signed
        crafted(4, b"{}", head=b"KS1 %08d %6d "),  # its length not zero-padded
    ],
)
def test_crafted_records_that_are_not_next_are_kept_aside_not_kept(
    tmp_path: Path, extra: bytes
) -> None:
    path = tmp_path / "current.journal"
    records, recovery = reopen(path, WHOLE + extra)
    assert [r.data for r in records] == RECORDS
    said = assert_kept_aside(path, WHOLE + extra, recovery)
    assert "damaged at record 4" in said and NOT_SHOWN not in said
    assert journal.load(WHOLE + extra).records == tuple(records)


# ----- any damage to the last two records ----------------------------------------------


def intact_prefix(spoiled: bytes) -> int:
    """How many records, from the first, are still whole in `spoiled` (each one's
    bytes but its line end, in order): every one of them must be kept."""
    at, count = 0, 0
    for line in LINES:
        found = spoiled.find(line[:-1], at)
        if found < 0:
            break
        at, count = found + len(line) - 1, count + 1
    return count


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """The journal with one to four kinds of damage inside its last two records:
    bit flips, bytes overwritten, inserted, deleted, the file cut."""
    buf = bytearray(WHOLE)
    for _ in range(draw(st.integers(1, 4))):
        if len(buf) <= PREV:
            break
        at = draw(st.integers(PREV, len(buf) - 1))
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete", "cut"]))
        if kind == "flip":
            buf[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set":
            buf[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            buf[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del buf[at : at + draw(st.integers(1, 4))]
        else:
            del buf[at:]
    return bytes(buf)


def check_truthful(spoiled: bytes, loaded: journal.Loaded) -> None:
    kept = [r.data for r in loaded.records]
    assert kept == RECORDS[: len(kept)]  # no event changed or invented
    assert [r.seq for r in loaded.records] == list(range(len(kept)))
    assert len(kept) >= intact_prefix(spoiled)  # no sound record dropped
    assert loaded.journal == b"".join(LINES[: len(kept)])
    if not loaded.damaged:  # nothing kept aside: nothing lost but a torn tail
        found = small_crcs(spoiled, loaded)  # a CRC in capitals is written again small
        assert found + b"\n" == loaded.journal or found.startswith(loaded.journal)
    torn = [c for c in loaded.cuts if c.torn]
    assert (NOT_SHOWN in loaded.reason) == bool(torn)
    for cut in torn:  # "not shown" only of a record with no line end, never a whole one
        assert cut.tail and spoiled.endswith(cut.data) and b"\n" not in cut.data
        assert cut.seq == len(LINES) or LINES[cut.seq][:-1] not in cut.data


def small_crcs(spoiled: bytes, loaded: journal.Loaded) -> bytes:
    """`spoiled` with the CRC of each record `loaded` found in capitals in small
    letters (the records stand where they stood: nothing was cut before them)."""
    out, at = bytearray(spoiled), 0
    for line in loaded.journal.splitlines(keepends=True):
        out[at + 20 : at + 28] = out[at + 20 : at + 28].lower()
        at += len(line)
    return bytes(out)


@settings(max_examples=1000, deadline=None)
@given(damaged())
def test_no_damage_to_the_last_two_records_drops_a_sound_one(spoiled: bytes) -> None:
    check_truthful(spoiled, journal.load(spoiled))


@settings(max_examples=150, deadline=None)
@given(damaged())
def test_the_repaired_file_holds_what_load_kept_and_the_rest_is_aside(
    tmp_path_factory: pytest.TempPathFactory, spoiled: bytes
) -> None:
    path = tmp_path_factory.mktemp("j") / "current.journal"
    records, recovery = reopen(path, spoiled)
    loaded = journal.load(spoiled)
    assert tuple(records) == loaded.records and recovery.loaded == loaded
    assert path.read_bytes() == loaded.journal
    if loaded.damaged:
        assert_kept_aside(path, spoiled, recovery)
    else:
        assert recovery.damaged_copy is None
    again, recovery = reopen(path, path.read_bytes())
    assert again == records and recovery.clean


def test_every_bit_and_every_cut_of_the_last_two_records(tmp_path: Path) -> None:
    """The exhaustive half of the above: every single bit flipped and every
    truncation point from the second-to-last record on."""
    for at in range(PREV, len(WHOLE)):
        for bit in range(8):
            spoiled = bytearray(WHOLE)
            spoiled[at] ^= 1 << bit
            loaded = journal.load(bytes(spoiled))
            check_truthful(bytes(spoiled), loaded)
            if at in (LAST - 1, len(WHOLE) - 1):  # a line end: both records stay
                assert len(loaded.records) == len(RECORDS), (at, bit)
            # A flipped bit is always kept aside: as damage, or (a CRC's hex letter
            # in capitals: the same CRC) with every record kept, the file as found.
            assert loaded.damaged or len(loaded.recased) == 1, (at, bit)
            if loaded.recased:
                assert len(loaded.records) == len(RECORDS) and bit == 5, (at, bit)
        check_truthful(WHOLE[:at], journal.load(WHOLE[:at]))


# ----- the restart path ------------------------------------------------------------------


@pytest.mark.parametrize("spoil", ["flipped", "missing", "garbage"])
def test_a_game_resumes_with_its_last_shown_event(tmp_path: Path, spoil: str) -> None:
    """The pass both screens showed is the last record; its line end damaged, the
    game still resumes after it (`keystand state` reads the same), and the log
    line names the record and the copy."""
    from keystand.rules import Clue, Pass, Seat, Touch, generate
    from keystand.rules.duet import Duet
    from keystand.store import Store

    store = Store(tmp_path)
    state = Duet.start(generate(11))
    store.start_game(state)
    for event in (Clue(Seat.A), Touch.at(min(state.card.agents(Seat.A))), Pass(Seat.B)):
        state, _ = state.apply(event)
        store.record(event)
    store.close()
    path = tmp_path / "current.journal"
    whole = path.read_bytes()
    path.write_bytes(
        {"flipped": whole[:-1] + b"\x8a", "missing": whole[:-1], "garbage": whole[:-1] + b"\0\0"}[
            spoil
        ]
    )
    peeked = Store(tmp_path).peek()
    assert peeked is not None and peeked[0] == state
    resumed = Store(tmp_path).resume()
    assert resumed is not None
    assert resumed.state == state  # the pass is there: B's turn ended
    assert path.read_bytes() == whole
    said = str(resumed.recovery)
    assert "record 3 is sound and kept" in said and NOT_SHOWN not in said
    assert (resumed.recovery.damaged_copy is None) == (spoil == "missing")


def test_a_line_end_repair_keeps_the_copy_first_and_replaces_in_one_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order a power cut cannot undo: the copy and its folder fsynced, then a
    new file fsynced, renamed over the journal, the folder fsynced again."""
    import os

    path = tmp_path / "current.journal"
    spoiled = WHOLE[:-1] + b"\x0b"
    path.write_bytes(spoiled)
    steps: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append("fsync " + os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: Path, dst: Path) -> None:
        steps.append(f"rename {Path(src).name} {Path(dst).name}")
        real_replace(src, dst)

    monkeypatch.setattr(journal.os, "fsync", fsync)
    monkeypatch.setattr(journal.os, "replace", replace)
    Journal.open(path)[0].close()
    new = steps[2].removeprefix("fsync ")  # the new file: a name of its own beside it
    assert new.startswith(".current.journal.") and new != ".current.journal."
    assert steps == [
        "fsync current.journal.damaged-1",
        f"fsync {tmp_path.name}",
        f"fsync {new}",
        f"rename {new} current.journal",
        f"fsync {tmp_path.name}",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "current.journal",
        "current.journal.damaged-1",
    ]
    assert path.read_bytes() == WHOLE
    assert (tmp_path / "current.journal.damaged-1").read_bytes() == spoiled


def test_a_torn_tail_is_cut_as_before_but_its_bytes_are_kept_aside(tmp_path: Path) -> None:
    """Damage can look torn (bytes lost from the last record's middle, its line end
    with them): the loader cannot tell, so the bytes are kept, in a copy named as
    torn; the screens are not told (a power cut is no damage) and the log is."""
    path = tmp_path / "current.journal"
    spoiled = WHOLE[:LAST] + LINES[-1][:40] + LINES[-1][60:-1]  # no line end, too short
    records, recovery = reopen(path, spoiled)
    assert [r.data for r in records] == RECORDS[:-1] and recovery.damaged_copy is None
    assert recovery.torn_copy is not None and recovery.torn_copy.read_bytes() == spoiled
    assert recovery.torn_copy.name == "current.journal.torn-1"
    assert NOT_SHOWN in str(recovery) and str(recovery.torn_copy) in str(recovery)


def test_a_sound_record_that_claims_a_taken_number_stops_the_loader(tmp_path: Path) -> None:
    """Two sound records with one number: which is the game's cannot be told, so
    nothing after the second is picked up again (it would follow the wrong one)."""
    path = tmp_path / "current.journal"
    impostor = encode(2, {"t": "event", "e": "undo", "at": "2024-01-01T10:00:06"})
    spoiled = WHOLE[:PREV] + impostor + WHOLE[PREV:]  # record 2 twice, then record 3
    records, recovery = reopen(path, spoiled)
    assert [r.data for r in records] == [*RECORDS[:2], impostor_data(impostor)]
    assert recovery.damaged_copy is not None and recovery.damaged_copy.read_bytes() == spoiled


def impostor_data(line: bytes) -> dict:
    return json.loads(line.split(b" ", 4)[4])
