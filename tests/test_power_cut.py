"""Power cuts: `keystand run` killed with SIGKILL at random moments, then started
again. The game comes back exactly as journaled, the journal holds a prefix of
the accepted events, and nothing any screen showed is lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from keystand.journal import read
from keystand.rules import Card, Clue, Mission, Pass, Seat, Touch, generate, parse_event
from keystand.rules.duet import Duet, Outcome
from keystand.store import Store

RUNS = int(os.environ.get("KEYSTAND_POWER_CUTS", "12"))


def scripted_game(rng: random.Random) -> str:
    """A long script of game actions with short waits, so kills land mid-game."""
    lines = []
    for _ in range(60):
        roll = rng.random()
        if roll < 0.2:
            lines.append(f"clue {rng.choice('AB')}")
        elif roll < 0.3:
            lines.append(f"pass {rng.choice('AB')}")
        elif roll < 0.33:
            lines.append("undo")
        else:
            lines.append(f"touch {rng.randrange(5)} {rng.randrange(5)}")
        lines.append(f"wait {rng.randrange(1, 25)}")
    return "\n".join(lines) + "\n"


def run_stand(state: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "keystand",
            "run",
            "--profile",
            "desktop",
            "--state-dir",
            str(state),
            "--speed",
            "0",
            "--no-page",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def journal_events(state: Path) -> tuple[Card, Mission, str, list]:
    records, _, _ = read(state / "current.journal")
    head = records[0].data
    events = [parse_event(r.data["e"]) for r in records[1:]]
    return Card.parse(head["card"]), Mission.parse(head["mission"]), head["id"], events


def accepted(card: Card, mission: Mission, script: str) -> list:
    """The events of the script the rules accept, in order (what the journal gets)."""
    state = Duet.start(card, mission)
    kept = []
    for line in script.splitlines():
        if line.startswith("wait"):
            continue
        event = parse_event(line)
        state, result = state.apply(event)
        if isinstance(result, Outcome):
            kept.append(event)
    return kept


@pytest.mark.parametrize("run", range(RUNS))
def test_kill_9_then_restart_resumes_exactly(tmp_path: Path, run: int) -> None:
    rng = random.Random(run)
    state_dir = tmp_path / "state"
    script = tmp_path / "game.txt"
    text = scripted_game(rng)
    script.write_text(text)
    shown = tmp_path / "shown.log"

    stand = run_stand(state_dir, "--script", str(script), "--shown-log", str(shown))
    deadline = time.monotonic() + 60
    while not (state_dir / "current.journal").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 0.8))
    stand.send_signal(signal.SIGKILL)
    stand.wait(30)

    card, mission, game_id, events = journal_events(state_dir)
    # The journal is a prefix of what the rules accepted from the script.
    expected = accepted(card, mission, text)
    assert events == expected[: len(events)]
    # Nothing a screen showed is lost: every frame shown reflected records on disk.
    records_on_disk = 1 + len(events)
    for line in shown.read_text().splitlines() if shown.exists() else []:
        fields = line.split()
        if fields[1:] == ["neutral"]:  # the picture with no key (starting, stopping)
            continue
        _seat, shown_game, shown_records = fields
        if shown_game == game_id:
            assert int(shown_records) <= records_on_disk, line

    # Restart: the same game, the same turn, equal to the replay of the journal.
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "state", "--state-dir", str(state_dir), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    replayed = Duet.replay(card, mission, events)
    got = json.loads(done.stdout)
    assert got["turns_left"] == replayed.turns_left
    assert got["covered"] == sorted(replayed.covered)
    assert got["phase"] == replayed.phase.value
    assert got["misses"] == {s.value: sorted(replayed.misses(s)) for s in Seat}

    # And the service itself comes back up on that journal and draws it.
    again = run_stand(state_dir, "--script", os.devnull, "--shown-log", str(shown))
    _out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    last = [ln.split() for ln in shown.read_text().splitlines() if ln.split()[1] == game_id]
    assert {seat for seat, _, _ in last[-2:]} == {"A", "B"}
    assert all(int(records) == records_on_disk for _, _, records in last[-2:])


@pytest.mark.parametrize("where", ["first byte", "middle", "last payload byte"])
def test_a_torn_journal_tail_loads_the_game_before_it(tmp_path: Path, where: str) -> None:
    """The journal cut inside its last record: `keystand state` (the restart path)
    gives the game up to the previous record. Every offset: test_journal.py (cut
    only before its line end, the record is whole and kept: test_journal_line_end.py)."""
    store = Store(tmp_path / "s")
    state = Duet.start(generate(11))
    store.start_game(state)
    for event in (Clue(Seat.A), Touch.at(min(state.card.agents(Seat.A))), Pass(Seat.B)):
        state, _ = state.apply(event)
        store.record(event)
    store.close()
    path = tmp_path / "s" / "current.journal"
    whole = path.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    cut = {"first byte": last_start, "middle": (last_start + len(whole)) // 2}.get(
        where, len(whole) - 2
    )
    path.write_bytes(whole[:cut])
    done = subprocess.run(
        [sys.executable, "-m", "keystand", "state", "--state-dir", str(tmp_path / "s"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    # The pass is gone: B is still guessing after one correct guess.
    assert (got["phase"], got["agents_found"], got["passes"]) == ("guessing", 1, 0)
