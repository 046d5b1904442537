"""docs/reliability.md from soak/results.json's figures, each against its goal."""

from __future__ import annotations

from typing import Any

from common import GOALS

COLUMNS = (*GOALS, "crashes", "untold")
AT_LEAST = {"kill": ("cuts", 1000), "damage": ("variants", 10000)}
WHAT = {
    "kill": "SIGKILL chains: `keystand run` killed at random moments and started again on the "
    "same state dir, across the builds (desktop; minimal, touch-serial, touch-mpr121 "
    "emulated) and both games; the `-long` chains start on a game of 300 records of undo "
    "churn with its checkpoints, so each start resumes through one and runs write more. "
    "After each cut every frame a panel finished showing "
    "(`--shown-log`) is in its game's journal; every record sound before the run is there "
    "unchanged; what the run journaled is a prefix of what its script makes of the game "
    "(soak/oracle.py); each checkpoint holds the game the records before it replay; "
    "`keystand state` loads the state dir; settings and history parse.",
    "damage": "Damaged journals, loaded as the stand loads one on start: every truncation "
    "point and every bit of the last two records of a Duet and a classic journal the stand "
    "wrote (and of each again with checkpoints), crafted records with sound CRCs "
    "(soak/crafted.py), random byte damage. Never a "
    "crash, never a changed or invented record, never a sound record dropped, every cut kept "
    "aside (a torn tail excepted); a sample goes through the stand's start and `keystand state`.",
    "disk": "A full disk on a 1 MB tmpfs, 0 to 16 pages freed: play, New game, Game switch "
    "(both games), a language, and New game when history.jsonl holds 400 lines (its rewrite); "
    "each step checked against the same step with room (its twin), then space given back and "
    "the stand restarted (soak/disk.py).",
    "edges": "The edges (issue 35; soak/edges.py). `eio`: an LD_PRELOAD shim "
    "(soak/eio_shim.c) fails the state dir's fsync, write or both for a window while the "
    "stand plays through its page: the input is not taken and both screens say so; once the "
    "window closes the stand takes input again by itself, without a restart, the unshown "
    "record gone; a window longer than its 30 s: it stops, both screens blanked, exit 1, and "
    "started again it is where it was. `readonly` (root): the state dir on a loop-mounted "
    "ext4 remounted read-only by a filesystem error mid-game: the stand stops blanked, exit "
    "1; e2fsck, mounted again, restarted: every input it took is there and it takes input "
    "again. `two`: two stands started a millisecond or two apart on one state dir (fresh, "
    "and a game in play): one refused (exit 1, writing nothing), one journal of one run. "
    "`rotation`: SIGKILL while New game moves games to a history of 400 lines (its rewrite) "
    "and 200 kept games: every line parses, none twice, the newest 200 kept, every game "
    "archived listed and every game listed kept. `fullkill` (root): the kill chain on a 1 MB "
    "tmpfs filled to 0..16 free pages. `stuck`: the kill chain on emulated builds with panel A "
    "busy-stuck. After every run each frame shown (`--shown-log`) is on disk in its journal "
    "and `keystand state` loads.",
    "faults": "The serial grid (a real pty, the firmware's logic) and the MPR121 (emulated "
    "chips) through their drivers: garbage, partial frames, long lines, noise, unplug and "
    "replug, a flaky bus, and a finger held across a replug, a silent board, a reboot, a chip "
    "reset; whole games on emulated touch builds with `--emulate-fault grid:noise`; panels with "
    "`--emulate-fault A:busy-stuck` and `B:unplugged` (soak/faults.py, soak/grids.py).",
}


def provenance(r: dict[str, Any]) -> dict[str, Any]:
    """The run a category's figures come from: its command, date, seed, machine."""
    m = r.get("machine")
    where = f"{m['cpu']}, {m['cores']} cores" if m else "a machine not recorded"
    return {"command": r["command"], "date": r["date"], "seed": r["seed"], "machine": where}


JOURNAL = """## The journal: what a start reads

The journal (`current.journal`, firmware_host/journal.py) holds one record per line,
`KS1 <seq> <length> <crc32> <JSON payload>`, each appended and fsynced before any
screen shows its result: record 0 is the game's start, every other an accepted event
in script form (`touch 1 2`), an end, or a checkpoint. Nothing is edited in place;
undo is an event like any other. The format is keystand's own (no other tool is
promised it); the soak reads it through journal.py. The repairs of a damaged one
are in docs/input-paths.md ("The state dir and the journal, while running").

**Checkpoints.** Undo is journaled, so one long game can grow the journal without
bound (a touch taken back and made again is two records). So that a start does not
grow with it, now and then an event's record is followed, in the same write and
the same fsync, by a checkpoint:
`{"at": ..., "crc": "hhhhhhhh", "events": ["clue A", "touch 0 3"], "size": N, "t": "checkpoint"}`.

- `events`: the game's events as they stand, the chain undo can still go back
  along (each state's `previous`): the events undone and their undos are left out.
  Replayed from the start record they give what replaying every record gives: the
  game, its last outcome, each seat's view, every state undo goes back to
  (tests/test_journal_checkpoints.py: every golden script with undo churn, cut after
  every record).
- `size` and `crc`: the length and CRC-32 of the file's bytes before it, every
  record before it as written.
- Written with an event (never an undo) once at least 64 records, and as many as
  its own events, have followed the last one: checkpoints cost less than the
  events they follow (at most double the journal), and a start replays fewer
  than twice the game's own events plus 64 records.

**A start** reads the journal once: the plan that chooses the game (and refuses
`--card` while one is in play) hands the bytes it read and their replay to the
store that resumes it; a stat checks in between that the file is the one read
(device, inode, size, times), else it is read again. It finds the last checkpoint
from the end: if that is a sound record and the bytes before it have its size and
CRC-32, every record before it is as written (one CRC-32 over them finds accidental
damage as their own CRCs do), and only record 0 and the records from the checkpoint on are
parsed, and the game replayed from that checkpoint. Anything else (no checkpoint;
the checkpoint, a byte before it, a line end or a CRC's case changed) is read and
replayed record by record as without checkpoints, every checkpoint passed over
(only the records say what the game is after damage or a crafted record): the
same records kept, the same bytes cut, the same copies aside, the same log line
(tested on a bit flipped in every byte, capital CRC digits in every record, every
cut of the tail). A journal written before checkpoints loads and replays as it
always did. A checkpoint whose events the rules in force refuse (a rules change)
is passed over: the whole journal is replayed from the bytes already read, and
the log says so.

**The promises stay.** An event is on disk before a screen shows it: its
checkpoint is in the same write, so both are on disk at its fsync, or the write
was torn and never shown (`--shown-log`'s RECORDS count checkpoints, as the
journal holds them). A disk with room for the event but not its checkpoint takes
the event alone. Nothing shown is lost or changed: a checkpoint adds to the file
and replaces nothing; damage anywhere is found and repaired as before; a failed
write's recovery (opened again, cut back, read back from the disk, checked by CRC)
covers a checkpoint's bytes as any others. The kill chains' oracle passes over
checkpoints when it matches a run's events to its script, and checks that each
holds the undo chain of the full replay at its place (soak/oracle.py).

**One atomic replace** (`journal.atomic_write`: a new file of its own name beside
the target, written and fsynced, renamed over it, the folder fsynced) replaces the
journal on a repair, and settings.json, campaign.json, grid.json and the history.

**Measured** by `bench/resume.py`, a part of `make bench` (BENCHMARKS.md): `keystand
run` from exec to its first frame on a state dir whose game in play has 10 records
and on one whose game has 10,000 (0.9 MB of undo churn), the runs taken in turn:
their ratio, goal 1.2x. Before checkpoints a start spent about 70 µs per record
(+707 ms at 10,000) and read and replayed the journal twice. What still grows with
the journal is its file, append-only: read in one piece and checked in one CRC-32
pass at a start (about 7 ms in all at 10,000 records here, in-process, against
1.1 s before; a Pi's SD card adds its read of the bytes)."""


def one_line(figures: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in figures.items() if isinstance(v, int))


def goals(r: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, f in r["categories"].items():
        bad = {c: f.get(c, 0) for c in COLUMNS if f.get(c, 0)}
        skipped = next((n for n in f.get("notes", []) if n.startswith("skipped")), None)
        figure = ", ".join(f"{k} {v:,}" for k, v in bad.items()) or "all 0"
        out.append(
            {
                "goal": f"{name}: 0 in every figure ({', '.join(COLUMNS)})",
                "figure": skipped or figure,
                "met": not bad and skipped is None,
            }
        )
        if name in AT_LEAST and not r.get("quick"):
            key, least = AT_LEAST[name]
            out.append(
                {
                    "goal": f"{name}: at least {least:,} {key}",
                    "figure": f"{f.get(key, 0):,}",
                    "met": f.get(key, 0) >= least,
                }
            )
    return out


def markdown(r: dict[str, Any]) -> str:
    m = r["machine"]
    lines = [
        "# Reliability",
        "",
        "Written by `make soak` (soak/run.py); the same figures are in `soak/results.json`.",
        "The stand's own crash, damage and fault harness, in the spirit of SQLite's crash",
        "tests: not part of `make test`. Every failure names its case, keeps what it found",
        "under `soak/kept/` and prints the one command that reproduces it",
        '(`make soak SOAK_ARGS="--seed S --only CATEGORY --case CASE"`). The goal is 0 lost,',
        "0 changed, 0 stranded, 0 phantom touches and 0 double touches in every category (and",
        "never a crash, never a step that did not take effect without the screen saying so).",
        "A kill chain's repro replays its seeded builds, scripts and kill moments; what the",
        "stand had done by each moment varies from run to run, so it may take a few runs.",
        "`--minutes N` sets the budget (the kill chains take what the others leave), `--quick`",
        "runs a little of each category; `--only CATEGORIES --merge` runs those and puts",
        "their figures here in place of theirs, keeping the others' (each names its run).",
        "",
        f"- date: {r['date']}",
        f"- machine: {m['cpu']}, {m['cores']} cores, {m['arch']}, {m['python']}, {m['system']}"
        + ("" if m["root"] else " (not root: the full-disk and read-only scenarios skipped)"),
        f"- command: `{r['command']}  # .venv/bin/python soak/run.py` ({r['seconds']:g} s)",
        f"- seed: {r['seed']}",
    ]
    if r.get("merged"):
        lines.append(
            "- merged (`--merge`): the categories come from different runs (the figures "
            "above are the last one's); each one's heading below names its run"
        )
    lines += [
        "",
        "## Goals",
        "",
        "| category | ran | " + " | ".join(COLUMNS) + " |",
        "| --- | --- | " + " | ".join("---" for _ in COLUMNS) + " |",
    ]
    for name, f in r["categories"].items():
        cells = [_bold(f.get(c, 0)) for c in COLUMNS]
        lines.append(f"| {name} | {_ran(name, f)} | " + " | ".join(cells) + " |")
    lines += ["", "| goal | measured | met |", "| --- | --- | --- |"]
    for g in r["goals"]:
        lines.append(f"| {g['goal']} | {g['figure']} | {'yes' if g['met'] else '**no**'} |")
    lines += ["", "## What fails", ""]
    failing = False
    for name, f in r["categories"].items():
        for family, n in f.get("failing", {}).items():
            failing = True
            first = f.get("examples", {}).get(family)
            example = f": {first['what']} (`{first['repro']}`)" if first else ""
            lines.append(f"- {name}, {n} x {family}{example}")
    if not failing:
        lines.append("Nothing.")
    for name, f in r["categories"].items():
        lines += ["", f"## {name}", "", WHAT[name], ""]
        run = f.get("run")
        if r.get("merged") and isinstance(run, dict):
            lines.append(
                f"- from `{run['command']}` on {run['date']}, seed {run['seed']}, "
                f"{run.get('machine', 'a machine not recorded')} ({f.get('seconds', 0):g} s of it)"
            )
        for note in f.get("notes", []):
            lines.append(f"- {note}")
        lines += ["", "| figure | count |", "| --- | --- |"]
        for key, value in f.items():
            if isinstance(value, int | float) and key != "failures_total":
                lines.append(f"| {key} | {value:,} |")
    lines += ["", JOURNAL]
    return "\n".join(lines) + "\n"


def _ran(name: str, f: dict[str, Any]) -> str:
    skipped = next((str(n) for n in f.get("notes", []) if n.startswith("skipped")), None)
    if skipped:
        return skipped
    if name == "kill":
        return f"{f.get('cuts', 0):,} cuts, {f.get('shown_frames_checked', 0):,} shown frames"
    if name == "damage":
        return f"{f.get('variants', 0):,} variants"
    if name == "disk":
        return f"{f.get('scenarios', 0):,} scenarios"
    if name == "edges":
        return (
            f"{f.get('eio_windows', 0)} EIO windows, {f.get('readonly_remounts', 0)} read-only "
            f"remounts, {f.get('two_stand_pairs', 0)} stand pairs, {f.get('rotation_cuts', 0)} "
            f"rotation cuts, {f.get('fullkill_cuts', 0)} full-disk cuts, "
            f"{f.get('stuck_cuts', 0)} stuck-panel cuts"
        )
    contacts = f.get("serial_contacts", 0) + f.get("mpr121_contacts", 0)
    return (
        f"{contacts:,} grid contacts, {f.get('noise_runs', 0)} noisy games, "
        f"{f.get('panel_runs', 0)} panel faults"
    )


def _bold(n: int) -> str:
    return f"**{n:,}**" if n else "0"
