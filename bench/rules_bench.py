"""Referee speed and memory: how long the stand takes to judge one event and to
rebuild a game from its event list (what a restart does), and what a game's
state chain holds in memory.

    .venv/bin/python bench/rules_bench.py [--games N] [--seed S] [--long N]

`--long N` also times `keystand play` (the real command, a fresh process) on
scripts of N/10 and N events that keep a game going (clues, touches, undos,
penalties): a game costs O(N), so the second takes about ten times the first.

Prints one line per figure; BENCHMARKS.md records the figures and the machine.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from keystand.rules import Clue, Event, Pass, Seat, Touch, Undo, generate
from keystand.rules.duet import Duet, Status


def random_game(rng: random.Random) -> tuple[Duet, list[Event]]:
    """A plausible game: clues, mostly-good guesses, passes, the odd undo."""
    card = generate(rng.randrange(2**32))
    state = Duet.start(card)
    events: list[Event] = []
    for _ in range(400):
        if state.status is not Status.PLAYING:
            break
        guesser = state.guesser or rng.choice(list(Seat))
        giver_side = card.agents(guesser.partner) - state.agents
        choice = rng.random()
        if choice < 0.15:
            event: Event = Clue(rng.choice(list(Seat)))
        elif choice < 0.25:
            event = Pass(guesser)
        elif choice < 0.27:
            event = Undo()
        elif giver_side and choice < 0.85:
            event = Touch.at(rng.choice(sorted(giver_side)))
        else:
            event = Touch.at(rng.randrange(25))
        state, _ = state.apply(event)
        events.append(event)
    return state, events


LONG_TURN = ["clue A", "touch 0 0", "undo", "undo", "clue B", "penalty", "undo", "undo"]


def time_play(n: int) -> float:
    """Seconds `keystand play --json` takes on a script of `n` events (one run)."""
    lines = (LONG_TURN * (n // len(LONG_TURN) + 1))[:n]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        code = generate(5).code
        cmd = [sys.executable, "-m", "keystand", "play", "--card-code", code, "--json"]
        t0 = time.perf_counter()
        subprocess.run([*cmd, "--script", str(path)], check=True, capture_output=True)
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--long", type=int, default=100_000, help="events of the long script")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games = [random_game(rng) for _ in range(args.games)]
    events = sum(len(e) for _, e in games)

    per_event = []
    for rep in range(3):
        t0 = time.perf_counter()
        for state, evs in games:
            Duet.replay(state.card, state.mission, evs)
        per_event.append((time.perf_counter() - t0) / events)
        del rep
    longest = max(games, key=lambda g: len(g[1]))
    t_long = []
    for _ in range(20):
        t0 = time.perf_counter()
        Duet.replay(longest[0].card, longest[0].mission, longest[1])
        t_long.append(time.perf_counter() - t0)

    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    kept = Duet.replay(longest[0].card, longest[0].mission, longest[1])
    used = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    del kept

    print(
        f"machine: {platform.machine()} {platform.python_implementation()} "
        f"{platform.python_version()}"
    )
    print(
        f"games: {len(games)}, events: {events}, "
        f"won {sum(g[0].status is Status.WON for g in games)}, "
        f"lost {sum(g[0].status is Status.LOST for g in games)}"
    )
    print(f"apply, per event: {statistics.median(per_event) * 1e6:.1f} us (median of 3 passes)")
    print(
        f"replay of the longest game ({len(longest[1])} events): "
        f"{statistics.median(t_long) * 1e3:.2f} ms (median of 20)"
    )
    print(f"memory of that game's state chain: {used / 1024:.0f} KiB")
    if args.long:
        short, long = time_play(args.long // 10), time_play(args.long)
        print(f"keystand play, {args.long // 10} events: {short:.2f} s")
        print(f"keystand play, {args.long} events: {long:.2f} s ({long / short:.1f}x)")


if __name__ == "__main__":
    main()
