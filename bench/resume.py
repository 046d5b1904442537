"""Resume against the journal's length: `keystand run` from its exec to the first
frame handed to a panel, on a state dir whose game in play has 10 records and on
one whose game has 10,000 (one long game's undo churn), each run on a fresh copy,
the two taken in turn round by round (the machine's other work falls on both);
medians and their ratio. Ratios travel between machines; milliseconds do not.

    .venv/bin/python bench/resume.py [--runs 9]   # this part of `make bench` alone
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

import startup

from keystand import games
from keystand.store import Store

SHORT, LONG = 10, 10_000  # records in the journal of the game in play


def journal_of(root: Path, records: int) -> int:
    """A Duet game journaled in `root` as the stand journals one (each event with
    the state after it, so its checkpoints too), at least `records` long: won.txt's
    events, then, past the ninth, a touch taken back and made again, over and over.
    Returns the records written."""
    game = games.get("duet")
    events = [step.event for step in game.script(startup.GAME.read_bytes())]
    churn = [events[9], game.parse_event("undo")]
    state = game.start(game.card_from_code(startup.CODE))
    store = Store(root)
    # The bytes are those the stand writes; 10,000 fsyncs would only slow the setup.
    with mock.patch.object(os, "fsync", lambda fd: None):
        store.start_game(state)
        n = 0
        while store.records < records:
            event = events[n] if n < 9 else churn[(n - 9) % 2]
            state, result = state.apply(event)
            assert not games.refused(result), result
            store.record(event, state)
            n += 1
    written = store.records
    store.close()
    return written


def _first_frame_ms(state: Path) -> float:
    """`keystand run`'s exec to its first frame, on a copy of `state`."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(state, folder + "/s")
        script = Path(folder) / "idle.txt"
        script.write_text("wait 100\n")
        args = [sys.executable, "-c", startup.FIRST_FRAME, *startup._run_args(folder + "/s")]
        started = time.perf_counter()
        done = subprocess.run(
            [*args, "--script", str(script)], capture_output=True, text=True, timeout=120
        )
        took = (time.perf_counter() - started) * 1e3  # exec to exit: it leaves at the frame
        if done.returncode != 0:
            raise RuntimeError(f"keystand run showed no frame: {done.stderr[-500:]}")
        return took


def resume(runs: int = 9) -> dict[str, Any]:
    """The first frame's time at 10 and at 10,000 records, medians of `runs`
    rounds, and their ratio (the goal: within 1.2x)."""
    with tempfile.TemporaryDirectory() as folder:
        dirs = {size: Path(folder) / str(size) for size in (SHORT, LONG)}
        written = {size: journal_of(path, size) for size, path in dirs.items()}
        took: dict[int, list[float]] = {SHORT: [], LONG: []}
        for _ in range(runs):
            for size, path in dirs.items():
                took[size].append(_first_frame_ms(path))
        journal_bytes = (dirs[LONG] / "current.journal").stat().st_size
    short, long = (round(startup._median(took[size]), 1) for size in (SHORT, LONG))
    return {
        "records": [written[SHORT], written[LONG]],
        "journal_bytes": journal_bytes,
        "ms": [short, long],
        "ratio": round(long / short, 2),
        "runs_ms": [[round(t, 1) for t in took[size]] for size in (SHORT, LONG)],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    startup.compile_bytecode()
    print(json.dumps(resume(args.runs), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
