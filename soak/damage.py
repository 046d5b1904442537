"""Damaged journals: every truncation point, every bit of the last two records,
crafted records with sound CRCs, and random byte damage, each loaded as the
stand loads a journal on start (`common.load_journal`).

Journals the stand itself wrote (a Duet and a classic game, played by `keystand
run`) are the originals, and each again with a checkpoint after every fourth
event (as the store writes one after 64 records: its events the game's undo
chain, vouching for the bytes before it), so a start's fast path meets the damage
too; their ids and times are fixed so a case is the same bytes on every run. For
each variant:

- loading never raises (a crash);
- the records loaded are the original's, in order: none changed, none invented;
- no sound record is dropped: every record whose line is whole before the
  first damaged byte is kept, and so is the record whose own length and CRC
  are sound when only its line end is damaged (issue 20, item 5);
- whatever is cut was first kept aside: a copy of the whole file, byte for
  byte, beside it (a torn tail, which no screen ever showed, may go uncopied);
- the repaired journal loads again to the same records, unchanged;
- a sample also goes through the stand's start (`Stand.boot`): no crash, and
  the game resumed is the replay of the records kept.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import crafted
import oracle
from common import Context, Tally, case_rng, keystand, load_journal

from keystand.journal import CHECKPOINT, encode

CODES = {"duet": "JYVN-0YEP-FZX9", "classic": "9CY-EPF-ZXQ"}
FIXED_AT = "2026-01-01T12:00:00+0000"
STORE_EVERY = 25  # every so many variants also go through the stand's start
STATE_EVERY = 400  # and through `keystand state` in its own process
RANDOM_AT_LEAST = 3000  # random variants, more while the budget lasts


@dataclass(frozen=True)
class Original:
    name: str
    data: bytes
    records: list[dict[str, Any]]
    spans: list[tuple[int, int]]  # each record's line: [start, end), end after its "\n"


@dataclass(frozen=True)
class Variant:
    case: str
    data: bytes
    keep: int  # records a sound loader must keep
    allowed: list[dict[str, Any]]  # the records it may give, at most
    torn_ok: bool = False  # what is cut may go uncopied (a torn tail)
    # Other lists a loader may give as rightly: past bytes that are no record, the
    # original records that follow in sequence (a loader may pick up again there).
    alternatives: tuple[list[dict[str, Any]], ...] = ()


def run(ctx: Context, tally: Tally) -> None:
    scratch = _scratch(ctx)
    try:
        played = [_original(ctx, name) for name in CODES]
        originals = [*played, *(checkpointed(o) for o in played)]
        n = 0
        for variant in _variants(ctx, originals):
            if not ctx.wants(variant.case):
                continue
            n += 1
            _one(
                ctx,
                tally,
                scratch,
                variant,
                store=n % STORE_EVERY == 1 or ":craft:" in variant.case,
            )
            if n % STATE_EVERY == 1:
                _state_cli(tally, scratch, variant)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _scratch(ctx: Context) -> Path:
    """A tmpfs when there is one: a damaged load fsyncs its copy, and the bytes,
    not the disk, are under test here."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else ctx.work
    return Path(tempfile.mkdtemp(prefix="keystand-soak-damage-", dir=base))


def _original(ctx: Context, name: str) -> Original:
    """A game the stand plays and journals, re-encoded with a fixed id and time."""
    folder = ctx.work / "damage" / name
    folder.mkdir(parents=True)
    rng = case_rng(0, "damage", name)  # not the soak's seed: the same bytes every run
    script = "".join(oracle.line(name, rng) + "\n" for _ in range(80))
    (folder / "script.txt").write_text(script)
    (folder / "settings.toml").write_text("")
    done = keystand(
        "run", "--profile", "desktop", "--config", folder / "settings.toml", "--game", name,
        "--card-code", CODES[name], "--state-dir", folder / "state", "--script",
        folder / "script.txt", "--speed", "0", "--no-page",
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"damage: the {name} original: {done.stderr.strip()[-300:]}")
    loaded = load_journal(folder / "state" / "current.journal")
    records = []
    for _seq, data in loaded.records:
        fixed = dict(data)
        fixed.update({k: v for k, v in (("id", "0a1b2c3d4e5f"), ("at", FIXED_AT)) if k in fixed})
        records.append(fixed)
    return original_of(name, records)


def original_of(name: str, records: list[dict[str, Any]]) -> Original:
    """The journal of `records` as journal.py writes one, with each record's line
    (a checkpoint vouching for the bytes before it: its size and CRC-32)."""
    lines, kept, spans, at, crc = [], [], [], 0, 0
    for seq, data in enumerate(records):
        if data.get("t") == CHECKPOINT:
            data = {**data, "size": at, "crc": f"{crc:08x}"}
        line = encode(seq, data)
        lines.append(line)
        kept.append(data)
        spans.append((at, at + len(line)))
        at += len(line)
        crc = zlib.crc32(line, crc)
    return Original(name, b"".join(lines), kept, spans)


def checkpointed(o: Original) -> Original:
    """`o` with a checkpoint after every fourth event that makes the game's state
    (not an undo, not refused): the game's undo chain there, as the store writes it."""
    records = [r for r in o.records if r.get("t") != CHECKPOINT]
    game, state = oracle.replay(records[:1])
    out, events = [records[0]], 0
    for record in records[1:]:
        out.append(record)
        if record.get("t") != "event":
            continue
        before, state = state, oracle._next(game, state, record)
        if state is before or str(state.made_by) != record.get("e"):
            continue  # refused, or an undo: no checkpoint goes with it
        events += 1
        if events % 4 == 0:
            chain, at = [], state
            while at.previous is not None:
                chain.append(str(at.made_by))
                at = at.previous
            out.append({"t": CHECKPOINT, "events": chain[::-1], "at": FIXED_AT})
    return original_of(f"{o.name}-checkpoints", out)


def _variants(ctx: Context, originals: list[Original]) -> Iterator[Variant]:
    for o in originals:
        yield from _cuts(o, ctx.quick)
        yield from _bits(o, ctx.quick)
        yield from crafted.variants(o, ctx.quick)
    if ctx.case is not None:  # one case: the random variant it names, if it is one
        name, _, index = ctx.case.partition(":random:")
        found = [o for o in originals if o.name == name]
        if found and index.isdigit():
            yield _random(found[0], ctx.case, case_rng(ctx.seed, "damage", name, int(index)))
        return
    i = 0
    while i < (50 if ctx.quick else RANDOM_AT_LEAST) or (not ctx.quick and ctx.left() > 0):
        o = originals[i % len(originals)]
        yield _random(o, f"{o.name}:random:{i}", case_rng(ctx.seed, "damage", o.name, i))
        i += 1


def _cuts(o: Original, quick: bool) -> Iterator[Variant]:
    """Every truncation point (a torn tail: the file as a power cut leaves it)."""
    step = 37 if quick else 1
    for t in range(0, len(o.data) + 1, step):
        keep = sum(1 for _s, e in o.spans if e <= t)
        yield Variant(f"{o.name}:cut:{t}", o.data[:t], keep, o.records, torn_ok=True)


def _bits(o: Original, quick: bool) -> Iterator[Variant]:
    """Every bit of the last two records flipped."""
    start = o.spans[-2][0]
    for offset in range(start, len(o.data), 7 if quick else 1):
        for bit in range(8):
            data = bytearray(o.data)
            data[offset] ^= 1 << bit
            yield damaged(o, f"{o.name}:bit:{offset}.{bit}", bytes(data))


def _random(o: Original, case: str, rng: Any) -> Variant:
    """Random damage: bytes changed, a run overwritten, bytes inserted or deleted."""
    data = bytearray(o.data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data))
        kind = rng.randrange(4)
        if kind == 0:
            data[at] = rng.randrange(256)
        elif kind == 1:
            run = bytes(rng.randrange(256) for _ in range(rng.randint(2, 64)))
            data[at : at + len(run)] = run
        elif kind == 2:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        else:
            del data[at : at + rng.randint(1, 16)]
    return damaged(o, case, bytes(data))


def damaged(o: Original, case: str, data: bytes) -> Variant:
    """A variant of `o` damaged from its first differing byte on: the records whose
    lines are whole before it must stay, and so must a record of which only the
    line end is damaged (its own length and CRC are sound)."""
    d = next((i for i, (a, b) in enumerate(zip(o.data, data, strict=False)) if a != b), None)
    if d is None:
        d = min(len(o.data), len(data))
    keep = sum(1 for _s, e in o.spans if e <= d)
    if d < len(data) and any(e - 1 == d for _s, e in o.spans):
        keep += 1
    return Variant(case, data, keep, o.records, torn_ok=len(data) < len(o.data) and d == len(data))


# -- one variant ---------------------------------------------------------------------


def _one(ctx: Context, tally: Tally, scratch: Path, v: Variant, *, store: bool) -> None:
    folder = scratch / "j"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    path = folder / "current.journal"
    path.write_bytes(v.data)
    tally.add("variants")
    tally.add(f"variants_{v.case.split(':')[1]}")
    try:
        loaded = load_journal(path)
    except BaseException as e:  # a crash is the finding: RecursionError included
        if isinstance(e, KeyboardInterrupt):
            raise
        _fail(ctx, tally, v, "crashes", f"loading raised {type(e).__name__}: {str(e)[:200]}")
        return
    got = [data for _seq, data in loaded.records]
    after = path.read_bytes() if path.exists() else b""
    problems: dict[str, list[str]] = {}
    for kind, what in judge(v, got, after, _copies(folder, path)):
        problems.setdefault(kind, []).append(what)
    said = loaded.said.replace(str(folder), "<dir>")
    for kind, whats in problems.items():  # a variant fails each figure once
        _fail(ctx, tally, v, kind, "; ".join(whats), said=said)
    try:
        again = load_journal(path)
        if [d for _s, d in again.records] != got or path.read_bytes() != after:
            _fail(ctx, tally, v, "changed", "the repaired journal loads differently a second time")
    except Exception as e:
        _fail(ctx, tally, v, "crashes", f"the repaired journal: {type(e).__name__}: {e}")
    if store:
        _store(ctx, tally, scratch, v, got)


def judge(
    v: Variant, got: list[dict[str, Any]], after: bytes, copies: list[bytes]
) -> list[tuple[str, str]]:
    """What is wrong with loading `v`: it gave `got`, left `after` in the file and
    these copies beside it."""
    problems = []
    if not any(got == alt[: len(got)] for alt in v.alternatives):
        for n, record in enumerate(got):
            if n >= len(v.allowed):
                problems.append(("changed", f"record {n} invented: {str(record)[:120]}"))
                break
            if record != v.allowed[n]:
                was = str(v.allowed[n])[:100]
                problems.append(("changed", f"record {n} is {str(record)[:100]}, was {was}"))
                break
    if len(got) < v.keep:
        problems.append(
            ("lost", f"{v.keep - len(got)} sound record(s) dropped: kept {len(got)} of {v.keep}")
        )
    if after != v.data and not v.torn_ok and v.data not in copies:
        cut = len(v.data) - len(after)
        problems.append(("lost", f"{cut} bytes cut and no copy of the file kept aside"))
    return problems


def _copies(folder: Path, path: Path) -> list[bytes]:
    return [p.read_bytes() for p in folder.rglob("*") if p.is_file() and p != path]


def _store(
    ctx: Context, tally: Tally, scratch: Path, v: Variant, got: list[dict[str, Any]]
) -> None:
    """The stand's start on the variant: no crash; the game it resumes is the
    replay of the records the journal kept (a start record it cannot use: the
    file kept somewhere in the state dir, whole)."""
    from keystand.stand import Stand
    from keystand.store import Store

    root = scratch / "state"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "current.journal").write_bytes(v.data)
    tally.add("stand_starts")
    try:
        stand = Stand(Store(root))
        stand.boot()
        stand.store.close()
    except Exception as e:
        _fail(
            ctx, tally, v, "crashes", f"the stand's start raised {type(e).__name__}: {str(e)[:200]}"
        )
        return
    try:
        _game, expected = oracle.replay(got) if got else (None, None)
    except (ValueError, KeyError):
        expected = None  # a start record no game can use: the stand deals a new game
    if expected is not None and stand.state != expected:
        _fail(ctx, tally, v, "changed", "the stand resumed another game than its journal's records")
    if (
        expected is None
        and got
        and not any(p.read_bytes() == v.data for p in root.rglob("*") if p.is_file())
    ):
        _fail(ctx, tally, v, "lost", "an unusable journal was not kept whole in the state dir")


def _state_cli(tally: Tally, scratch: Path, v: Variant) -> None:
    """`keystand state` on the variant, in its own process: exit 0, or 2 with one line."""
    root = scratch / "cli"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "current.journal").write_bytes(v.data)
    done = keystand("state", "--state-dir", root, "--json")
    tally.add("state_commands")
    if done.returncode not in (0, 2) or "Traceback" in done.stderr:
        tally.fail(
            v.case, "crashes", f"keystand state: exit {done.returncode}: {done.stderr[-200:]}"
        )
    elif done.returncode == 0:
        json.loads(done.stdout)


def _fail(ctx: Context, tally: Tally, v: Variant, kind: str, what: str, said: str = "") -> None:
    folder = ctx.work / "damage" / "failed"
    folder.mkdir(parents=True, exist_ok=True)
    bad = folder / "damaged.journal"
    bad.write_bytes(v.data)
    note = folder / "what.txt"
    note.write_text(f"{v.case}: {kind}: {what}\nthe loader said: {said}\n")
    tally.fail(
        v.case, kind, what + (f" (the loader said: {said[:200]})" if said else ""), keep=[bad, note]
    )


def crc_of(seq: int, payload: bytes) -> int:
    return zlib.crc32(b"%08d" % seq + payload)
