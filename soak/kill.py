"""SIGKILL chains: `keystand run` cut at random moments, again and again on the
same state dir, across the builds (desktop; minimal, touch-serial and
touch-mpr121 emulated) and both games.

Each chain is one state dir and one game; each of its runs picks a build, a
panel pace and a script (seeded) and is killed at a random moment: during
start-up (the journal's repair included) or after the stand says READY (the
notify socket systemd would give it). After every cut:

- every frame a panel finished showing (`--shown-log`) is in its game's journal;
- every record sound on disk before the run is still there, unchanged; the
  records the run added are what its script makes of the game, in order (a
  prefix of it): none changed, none invented (a touch not touched is a phantom,
  one touched once and journaled twice a double);
- the state dir loads (`keystand state`), its settings and history parse.

A chain's next run is the restart that must keep all of this; the chain ends
with a run that is not killed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import oracle
from common import Context, Tally, case_rng, keystand, sound_records, spawn

BUILDS = ("desktop", "minimal", "touch-serial", "touch-mpr121")
CHAINS = ("duet-1", "classic-1", "duet-2", "classic-2", "duet-long", "classic-long")
# A "-long" chain starts on a game of this many records, undo churn the store
# journaled with its checkpoints: its runs resume through the last checkpoint and,
# every 64 records, write one in an event's write, killed like any other.
LONG = 300
FIRST = {"duet": ("clue A", "clue B"), "classic": ("clue red 2", "clue blue 2")}
SPEEDS = (0.0, 0.02, 0.1)  # panel pace: instant, or refreshes a kill can land in
READY_WITHIN = 60.0
EARLY = 0.2  # the share of cuts made during start-up, before READY


@dataclass
class Chain:
    name: str
    game: str
    folder: Path
    rng: random.Random
    cuts: int = 0
    runs: int = 0
    builds: tuple[str, ...] = BUILDS  # drawn from for each run
    extra: tuple[str, ...] = ()  # more arguments for every run (soak/edges.py's faults)
    # Inputs the stand may rightly not take (a full disk, a held panel): what a run
    # journaled is what its script makes of the game with some steps passed over.
    skips: bool = False
    before_run: Callable[[Chain], None] | None = None  # e.g. fill the disk again

    @property
    def state(self) -> Path:
        return self.folder / "state"

    @property
    def shown(self) -> Path:
        return self.folder / "shown.log"


@dataclass
class Before:
    """The state dir as a run finds it."""

    records: list[dict[str, Any]]
    mode: str  # "none": boot deals a game; "over": the game ended; "playing"
    shown_at: int  # the shown log's size
    extra: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def run(ctx: Context, tally: Tally, jobs: int = 2) -> None:
    chains = [
        Chain(name, name.split("-")[0], ctx.work / "kill" / name, case_rng(ctx.seed, "kill", name))
        for name in CHAINS
        if ctx.wants(name)
    ]
    for chain in chains:
        chain.folder.mkdir(parents=True)
        if chain.name.endswith("-long"):
            _long_game(chain)
    (ctx.work / "kill" / "settings.toml").write_text("# the soak's: nothing from /etc\n")
    lock = threading.Lock()
    workers = [
        threading.Thread(target=_worker, args=(ctx, tally, chains[i::jobs], lock), daemon=True)
        for i in range(min(jobs, len(chains)))
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for chain in chains:
        tally.add("chain_runs", chain.runs)
    tally.notes.append(
        "chains: "
        + ", ".join(f"{c.name} {c.cuts} cuts in {c.runs} runs" for c in chains)
        + "; each run a build (desktop; minimal, touch-serial, touch-mpr121 emulated) "
        "and a panel pace drawn at random"
    )


def _long_game(chain: Chain) -> None:
    """The game a "-long" chain starts on: a clue given and taken back, over and
    over, LONG records, journaled by the store as the stand journals (checkpoints
    and all)."""
    from keystand import games
    from keystand.store import Store

    game = games.get(chain.game)
    state = game.start(game.generate(chain.rng.randrange(1_000_000)))
    store = Store(chain.state)
    store.start_game(state)
    clue = next(
        e for e in map(game.parse_event, FIRST[chain.game]) if not games.refused(state.apply(e)[1])
    )
    steps, n = [clue, game.parse_event("undo")], 0
    while store.records < LONG:
        event = steps[n % 2]
        state, _ = state.apply(event)
        store.record(event, state)
        n += 1
    store.close()


def _worker(ctx: Context, tally: Tally, chains: list[Chain], lock: threading.Lock) -> None:
    live = list(chains)
    while live:
        for chain in list(live):
            limit = ctx.limit if ctx.limit is not None else (1 if ctx.quick else None)
            out_of_time = ctx.left() <= 0 and chain.cuts > 0
            if out_of_time or (limit is not None and chain.cuts >= limit):
                _last_restart(ctx, tally, chain, lock)
                live.remove(chain)
                continue
            if not _cut(ctx, tally, chain, lock, kill=True):
                live.remove(chain)  # a failure ends its chain: its state dir is kept


def _cut(ctx: Context, tally: Tally, chain: Chain, lock: threading.Lock, *, kill: bool) -> bool:
    """One run of `chain`, killed at a random moment (or, `kill` False, let end).
    False if a failure was found."""
    rng = chain.rng
    build = rng.choice(chain.builds)
    if chain.before_run is not None:
        chain.before_run(chain)
    speed = rng.choice(SPEEDS)
    before = _before(chain)
    script, plan = oracle.script(chain.game, before.records, before.mode, rng, grid=build)
    if not kill:
        script, plan = "wait 50\n", oracle.plan_of(chain.game, "wait 50\n", "none")
    run_dir = chain.folder / f"run-{chain.runs:05d}"
    run_dir.mkdir()
    (run_dir / "script.txt").write_text(script)
    early = rng.random() < EARLY
    delay = rng.uniform(0.0, 0.5 if early else oracle.length(plan, build))
    chain.runs += 1
    case = f"{chain.name}:{chain.runs}"
    rc, log, killed = _run(ctx, chain, build, speed, run_dir, delay if kill else None, early)
    if killed:
        chain.cuts += 1
        with lock:
            tally.add("cuts")
            tally.add("cuts_during_start" if early else "cuts_after_ready")
            tally.add(f"cuts_{build}")
    else:
        with lock:
            tally.add("runs_ended")
    problems = []
    text = log.read_text(errors="replace")
    if (not killed and rc != 0) or "Traceback" in text:
        problems.append(("crashes", f"{build}: exit {rc}: {_tail(text)}"))
    problems += _check(chain, before, plan, tally, lock)
    if problems:
        with lock:
            for kind, what in problems:
                _fail(ctx, tally, chain, case, kind, f"{build}, pace {speed}: {what}", run_dir)
        return False
    shutil.rmtree(run_dir)
    return True


def _run(
    ctx: Context,
    chain: Chain,
    build: str,
    speed: float,
    run_dir: Path,
    delay: float | None,
    early: bool,
) -> tuple[int | None, Path, bool]:
    """Start the stand; kill it `delay` seconds after its start (`early`) or after
    READY; (exit status, its output, whether it was killed)."""
    args: list[str | Path] = [
        "run",
        "--profile",
        build,
        "--config",
        ctx.work / "kill" / "settings.toml",
        "--game",
        chain.game,
        "--state-dir",
        chain.state,
        "--script",
        run_dir / "script.txt",
        "--speed",
        str(speed),
        "--shown-log",
        chain.shown,
        *chain.extra,
    ]
    if build == "desktop":
        args.append("--no-page")
    else:
        args += ["--emulate", run_dir / "emulate"]
    address = str(run_dir / "notify")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(address)
    env = {**os.environ, "NOTIFY_SOCKET": address}
    log = run_dir / "stand.log"
    proc = spawn(args, log, env)
    try:
        if delay is None:
            return proc.wait(300), log, False
        if not early and not _ready(listener, proc):
            return proc.wait(300), log, False  # ended (or never got ready): no cut
        try:
            return proc.wait(delay), log, False  # it ended before its moment
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait(60)
            return None, log, True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
        listener.close()
        Path(address).unlink(missing_ok=True)


def _ready(listener: socket.socket, proc: subprocess.Popen[bytes]) -> bool:
    listener.settimeout(0.1)
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if b"READY=1" in listener.recv(4096):
                return True
        except TimeoutError:
            continue
    return False


def _before(chain: Chain) -> Before:
    records = sound_records(chain.state / "current.journal")
    shown_at = chain.shown.stat().st_size if chain.shown.exists() else 0
    if not records or records[-1].get("t") == "end":
        return Before(records, "none", shown_at)
    game, state = oracle.replay(records)
    return Before(records, "playing" if game.playing(state) else "over", shown_at)


def _check(
    chain: Chain, before: Before, plan: oracle.Plan, tally: Tally, lock: threading.Lock
) -> list[tuple[str, str]]:
    """What the cut broke: (goal figure, what) for each problem found."""
    state = chain.state
    problems: list[tuple[str, str]] = []
    now = sound_records(state / "current.journal")
    old_id = before.records[0].get("id") if before.records else None
    new_id = now[0].get("id") if now else None
    if old_id is not None:
        kept = now if new_id == old_id else sound_records(state / "games" / f"{old_id}.journal")
        problems += oracle.kept_whole(before.records, kept, str(old_id))
        if new_id == old_id:
            added = now[len(before.records) :]
            # The script's lines meant for a new game go on in this one when none
            # was dealt: a game that ended within its reveal delay before the cut is
            # held again on the restart (its end screen ignores the clue that would
            # deal, and an undo takes the end back: README "A stand restarted within
            # those ten seconds holds them again"), and a full disk refuses New game.
            dealt = before.mode == "over" or plan.prefix == oracle.NEW_GAME
            steps = plan.fresh if dealt else plan.same
            problems += oracle.walk(before.records, added, steps, skips=chain.skips)
        else:
            tail = kept[len(before.records) :]
            if any(r.get("t") != "end" for r in tail):
                problems.append(("changed", f"game {old_id} archived with {tail}"))
    if new_id is not None and new_id != old_id:
        problems += oracle.walk(now[:1], now[1:], plan.fresh, skips=chain.skips)
    problems += oracle.checkpoints(now)
    added = len(now) - (len(before.records) if new_id == old_id else 1) if now else 0
    with lock:
        tally.add("events_checked", max(added, 0))
    frames = _frames(chain, before.shown_at)
    with lock:
        tally.add("shown_frames_checked", len(frames))
    for seat, game_id, count in frames:
        on_disk = _records_of(state, game_id)
        if on_disk < count:
            problems.append(
                ("lost", f"seat {seat} showed game {game_id} at {count} records; {on_disk} on disk")
            )
    problems += _loads(state)
    with lock:
        tally.add("state_loads")
    return problems


def _frames(chain: Chain, since: int) -> list[tuple[str, str, int]]:
    if not chain.shown.exists():
        return []
    with open(chain.shown, "rb") as f:
        f.seek(since)
        lines = f.read().decode(errors="replace").splitlines()
    out = []
    for line in lines:
        fields = line.split()
        if len(fields) == 3 and fields[2].isdigit():
            out.append((fields[0], fields[1], int(fields[2])))
    return out


def _records_of(state: Path, game_id: str) -> int:
    current = sound_records(state / "current.journal")
    if current and current[0].get("id") == game_id:
        return len(current)
    return len(sound_records(state / "games" / f"{game_id}.journal"))


def _loads(state: Path) -> list[tuple[str, str]]:
    """`keystand state` reads the state dir; settings and history parse."""
    problems: list[tuple[str, str]] = []
    if not state.exists():
        return problems  # cut before the stand made it: nothing to load
    done = keystand("state", "--state-dir", state, "--json", timeout=120)
    current = sound_records(state / "current.journal")
    no_game = not current or current[-1].get("t") == "end"
    if done.returncode != 0 and not (
        done.returncode == 2 and no_game and "no game in" in done.stderr
    ):
        problems.append(
            ("stranded", f"keystand state: exit {done.returncode}: {_tail(done.stderr)}")
        )
    elif done.returncode == 0:
        json.loads(done.stdout)
    settings = state / "settings.json"
    if settings.exists():
        try:
            if not isinstance(json.loads(settings.read_text()), dict):
                raise ValueError("not an object")
        except ValueError as e:
            problems.append(("lost", f"settings.json does not parse: {e}"))
    history = state / "history.jsonl"
    if history.exists():
        for n, line in enumerate(history.read_text(errors="replace").splitlines(), 1):
            try:
                json.loads(line)
            except ValueError:
                problems.append(("lost", f"history.jsonl line {n} does not parse: {line[:80]!r}"))
    return problems


def _last_restart(ctx: Context, tally: Tally, chain: Chain, lock: threading.Lock) -> None:
    """The restart after the chain's last cut: a run let end, checked the same way."""
    if chain.runs:
        _cut(ctx, tally, chain, lock, kill=False)


def _fail(
    ctx: Context, tally: Tally, chain: Chain, case: str, kind: str, what: str, run_dir: Path
) -> None:
    repro = f"--seed {ctx.seed} --only {tally.category} --case {chain.name} --cuts {chain.cuts}"
    tally.fail(
        case,
        kind,
        what,
        keep=[chain.state, chain.shown, run_dir],
        repro=f'make soak SOAK_ARGS="{repro}"',
    )


def _tail(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(lines[-3:])[-400:]


__all__ = ["BUILDS", "CHAINS", "run"]
