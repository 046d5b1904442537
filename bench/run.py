"""`make bench`: every figure in one run, written to BENCHMARKS.md and bench/results.json.

    .venv/bin/python bench/run.py [--games 20] [--burst-games 10] [--classic-games 10]
                                  [--classic-burst-games 10] [--tiny]
                                  [--markdown BENCHMARKS.md] [--json bench/results.json]

Touch to visible per panel model (our policy and the naive way, on recorded
Duet games at table pace and in bursts; our policy on recorded classic games,
fewer of them to keep the run short), SPI and GPIO writes per frame (our HAL and
the vendor's stock path), refreshes per game, render time, cold start, import
time, resume at 10 and 10,000 journal records, peak memory, and an estimate for
a Raspberry Pi Zero 2 W, and each Pi build's CPU per idle minute (bench/idle.py,
which also runs alone). `--tiny` runs everything on the smallest input (the
tests do, so this script cannot rot).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boot
import games
import idle
import latency
import panels
import reference
import report
import resume
import startup
from machine import machine

from keystand.cliutil import SCRIPT_CAP
from keystand.drivers.display import TIMINGS, Refresh
from keystand.drivers.display.hal import PanelHal, StockPathHal
from keystand.drivers.display.timing import ESTIMATED
from keystand.panel_clock import Handover, Timeline
from keystand.panel_worker import RefreshPolicy
from keystand.profile import load as load_profile

ROOT = Path(__file__).resolve().parent.parent


def ms(seconds: float) -> float:
    return round(seconds * 1e3, 1) if math.isfinite(seconds) else float("nan")


def spread(values: list[float]) -> dict[str, float]:
    return {"median_ms": ms(latency.median(values)), "p99_ms": ms(latency.p99(values))}


def per_game(counts: dict[str, int], busy: float, games_played: int) -> dict[str, float]:
    out: dict[str, float] = {k: round(v / games_played, 2) for k, v in counts.items()}
    out["busy_s"] = round(busy / games_played, 1)
    return out


def model_figures(model: str, args: argparse.Namespace, max_partials: int) -> dict[str, Any]:
    """One panel model: its frames' costs, then each game's figures (Duet's at the
    top level, as ever; classic's under "classic", the same keys), the naive way on
    Duet's games."""
    ours_cost, stock_cost = (panels.frame_costs(model, hal) for hal in (PanelHal, StockPathHal))
    busy = panels.seconds(model, ours_cost)
    naive_busy = panels.seconds(model, stock_cost)
    duet = game_figures(model, "duet", args, max_partials, ours_cost)
    table = games.session(args.games, args.seed)
    naive_played = latency.play(model, table, args.games, args.seed, stock=True)
    naive, naive_idle = latency.the_naive_way(naive_played, naive_busy)
    naive_timeline = naive.timelines
    assert not isinstance(naive_timeline, dict)
    naive_counts = {k: v // 2 for k, v in naive_timeline.counts().items()}
    classic = game_figures(model, "classic", args, max_partials, ours_cost)
    ours_median, naive_median = duet.total_median, latency.median(naive_idle)
    timing = TIMINGS[model]
    return {
        "vendor_reset": duet.figures.pop("vendor_reset"),
        "partial_refresh_ms": ms(timing.partial),
        "timing_model_ms": {k.value: ms(timing.seconds(k)) for k in Refresh},
        "timing_model_estimated": sorted(kind for m, kind in ESTIMATED if m == model),
        "panel_busy_ms": {k.value: ms(v) for k, v in busy.items()},
        "vendor_delays_ms": {k.value: ms(c.delays) for k, c in ours_cost.items()},
        **duet.figures,
        "naive_median_ms": ms(naive_median),
        "naive_p99_ms": ms(latency.p99(naive_idle)),
        "naive_as_played": spread(naive.total),
        "naive_software": spread(naive.software),
        "speedup_vs_naive_median": round(naive_median / ours_median, 1),
        "spi_writes_full_frame": ours_cost[Refresh.FULL].spi_writes,
        "vendor_spi_writes_full_frame": stock_cost[Refresh.FULL].spi_writes,
        "frames": {
            k.value: {
                "spi_writes": ours_cost[k].spi_writes,
                "vendor_spi_writes": stock_cost[k].spi_writes,
                "gpio_writes": ours_cost[k].gpio_writes,
                "vendor_gpio_writes": stock_cost[k].gpio_writes,
                "spi_bytes": ours_cost[k].spi_bytes,
                "at_protocol_floor": ours_cost[k].at_floor,
                "vendor_at_protocol_floor": stock_cost[k].at_floor,
            }
            for k in panels.KINDS
        },
        "naive_per_game": per_game(naive_counts, naive_timeline.busy() / 2, args.games),
        "classic": classic.figures,
    }


def ready_sooner(results: dict[str, Any]) -> dict[str, Any]:
    """Plug to both panels readable for each shipped Pi build, and New game to both
    panels readable on every panel, estimated on a Zero 2 W (bench/boot.py)."""
    slower = results["cpu_reference"]["slower_on_zero2w"]
    models = results["models"]
    power_on = {}
    for build, start in results["pi_start"]["builds"].items():
        model = max({p.model for p in load_profile(build).panels.values()}, key=_full_s)
        fast = TIMINGS[model].fast_is_quicker
        power_on[build] = boot.power_on(build, start["cpu_ms"], slower, model, models[model], fast)
    new_game = {
        model: boot.new_game(m, slower, TIMINGS[model].fast_is_quicker)
        for model, m in models.items()
    }
    return {"power_on": power_on, "new_game": new_game}


def _full_s(model: str) -> float:
    return TIMINGS[model].full


def pi_path(tiny: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shipped Pi builds on their Pi path: their starts, and each stand at rest
    (bench/idle.py); keystand installed from its source into a venv of its own, as
    systemd/install.sh does (`--tiny`, for the tests: this venv's editable install,
    nothing downloaded, a short idle window)."""
    if tiny:
        python = Path(sys.executable)
        rest = idle.idle(python, 1.0, windows=3, quiet=1.0)
        rest["installed"] = "editable (--tiny)"
        return startup.pi_starts(python, "editable (--tiny)", 1), rest
    print("bench: keystand installed from its source into a fresh venv ...", file=sys.stderr)
    with tempfile.TemporaryDirectory() as folder:
        python = startup.installed_python(Path(folder))
        starts = startup.pi_starts(python, "from its source, not editable", 11)
        return starts, idle.idle(python, idle.WINDOW_S)


def software_passes(args: argparse.Namespace, passes: int) -> dict[str, dict[str, Any]]:
    """Software time per touch of every model, in `passes` passes of the same Duet
    session taking the models in turn (a moment the machine was busy falls on one
    model as likely as another). The median and p99 are over every touch of every
    pass, pooled: the median of the passes' p99s hid the slowest touches (issue 33).
    Each pass's own p99 is kept beside them. The figures the goal compares, model
    against model."""
    table = games.session(args.games, args.seed)
    pooled: dict[str, list[float]] = {model: [] for model in panels.MODELS}
    p99s: dict[str, list[float]] = {model: [] for model in panels.MODELS}
    for _ in range(passes):
        for model in panels.MODELS:
            software = [
                t.software
                for t in latency.play(model, table, args.games, args.seed, stock=False).touches
            ]
            pooled[model] += software
            p99s[model].append(ms(latency.p99(software)))
    return {
        model: {
            "median_ms": ms(latency.median(pooled[model])),
            "p99_ms": ms(latency.p99(pooled[model])),
            "p99_passes_ms": p99s[model],
            "touches": len(pooled[model]),
        }
        for model in panels.MODELS
    }


@dataclass
class GameFigures:
    figures: dict[str, Any]
    total_median: float  # seconds, unrounded (the speed-up against the naive way)


def sessions(args: argparse.Namespace, game: str) -> tuple[int, int]:
    """How many of `game`'s games to record at table pace and in bursts."""
    if game == "duet":
        return args.games, args.burst_games
    return args.classic_games, args.classic_burst_games


def game_figures(
    model: str,
    game: str,
    args: argparse.Namespace,
    max_partials: int,
    costs: dict[Refresh, panels.FrameCost],
) -> GameFigures:
    """One game's recorded sessions (table pace, bursts) on two panels of `model`,
    through our policy: touch to visible, refreshes per game, the clearing, full
    refreshes in front of a touch. The same code and keys for every game."""
    table_games, burst_games = sessions(args, game)
    busy = panels.seconds(model, costs)
    table = games.session(table_games, args.seed, game=game)
    bursts = games.session(burst_games, args.seed + 1000, burst=True, game=game)
    played = latency.play(model, table, table_games, args.seed, stock=False, game=game)
    burst_played = latency.play(
        model, bursts, burst_games, args.seed + 1000, stock=False, game=game
    )
    ours = latency.ours(played, busy, max_partials)
    burst = latency.ours(burst_played, busy, max_partials)
    timelines = ours.timelines
    assert isinstance(timelines, dict)
    seats = list(timelines.values())
    counts = {k: sum(t.counts()[k] for t in seats) // len(seats) for k in seats[0].counts()}
    runs = [_partial_runs(t) for t in seats]
    figures = {
        "vendor_reset": _vendor_reset(model, played, burst_played, max_partials, costs),
        "touches": len(ours.total),
        "touch_to_visible_median_ms": ms(latency.median(ours.total)),
        "touch_to_visible_p99_ms": ms(latency.p99(ours.total)),
        "panel_and_queue": spread(ours.panel),
        "software": spread(ours.software),
        "burst_touches": len(burst.burst_last),
        "burst_last_visible_ms": ms(latency.p99(burst.burst_last)),
        "burst_last_visible_median_ms": ms(latency.median(burst.burst_last)),
        "per_game": per_game(counts, sum(t.busy() for t in seats) / len(seats), table_games),
        # The frames that want a full refresh (the deal, the end screen), drawn with
        # the panel's fast waveform where it has one (rule 5), whose FULL refresh
        # is then drawn in a quiet moment.
        "full_refreshes_per_game": round(
            sum(_wanted_full(t, played.handovers[s]) for s, t in timelines.items())
            / len(seats)
            / table_games,
            2,
        ),
        "full_waveform": "fast" if TIMINGS[model].fast_is_quicker else "full",
        "owed_full_in_quiet_moments_per_game": round(
            sum(1 for t in seats for d in t.drawn if d.frame is None and d.kind is Refresh.FULL)
            / len(seats)
            / table_games,
            2,
        ),
        "full_refreshes_before_a_touch_result": ours.behind,
        "touches_behind_a_clearing": ours.behind_clearing,
        # Per panel and game: the clearings done in the game's quiet moments (rule 3a);
        # both panels, the session: those wasted right before a full refresh.
        "clearing_in_quiet_moments_per_game": round(
            ours.clearing_quiet / len(seats) / table_games, 2
        ),
        "clearings_before_a_full_refresh": ours.clearing_wasted,
        "burst_touches_behind_a_full_refresh": burst.behind,
        "longest_partial_run": max(max(r, default=0) for r in runs),
        "partials_past_the_budget": sum(sum(max(0, x - max_partials) for x in r) for r in runs)
        // len(runs),
        "ceiling": RefreshPolicy(max_partials=max_partials).ceiling,
        "render": spread(played.render),
    }
    return GameFigures(figures, latency.median(ours.total))


def _wanted_full(timeline: Timeline, handovers: list[Handover]) -> int:
    """The frames drawn that wanted a full refresh (whichever waveform drew them)."""
    return sum(1 for d in timeline.drawn if d.frame is not None and handovers[d.frame].full)


def _vendor_reset(
    model: str,
    played: latency.Played,
    burst_played: latency.Played,
    max_partials: int,
    costs: dict[Refresh, panels.FrameCost],
) -> dict[str, float] | None:
    """Where the vendor's reset waits are longer than the datasheet's (the 2.7"
    V2's partial resets each time), the same games with `[panels] vendor_reset =
    true`, the fallback for a panel that misbehaves: what it costs."""
    vendor = panels.frame_costs(model, PanelHal, vendor_reset=True)
    if vendor[Refresh.PARTIAL].delays <= costs[Refresh.PARTIAL].delays:
        return None
    busy = panels.seconds(model, vendor)
    ours = latency.ours(played, busy, max_partials)
    burst = latency.ours(burst_played, busy, max_partials)
    return {
        "reset_ms": ms(vendor[Refresh.PARTIAL].delays),
        "partial_busy_ms": ms(busy[Refresh.PARTIAL]),
        "touch_to_visible_median_ms": ms(latency.median(ours.total)),
        "touch_to_visible_p99_ms": ms(latency.p99(ours.total)),
        "burst_last_visible_ms": ms(latency.p99(burst.burst_last)),
        "full_refreshes_before_a_touch_result": ours.behind,
    }


def _partial_runs(timeline: Any) -> list[int]:
    """Lengths of the runs of partial refreshes between two others."""
    runs, run = [], 0
    for drawn in timeline.drawn:
        if drawn.kind is Refresh.PARTIAL:
            run += 1
        else:
            runs.append(run)
            run = 0
    return [*runs, run]


def earlier(tiny: bool) -> dict[str, str]:
    """The earlier scripts' own output, run now (the referee; screens and restarts)."""
    small = {
        "rules_bench.py": ["--games", "20", "--long", "1000"],
        "service_bench.py": ["--touches", "5", "--repeat", "5"],
    }
    out = {}
    for name, tiny_args in small.items():
        done = subprocess.run(
            [sys.executable, str(ROOT / "bench" / name), *(tiny_args if tiny else [])],
            capture_output=True,
            text=True,
            check=True,
        )
        out[name] = done.stdout.strip()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20, help="recorded games at table pace")
    ap.add_argument("--burst-games", type=int, default=10, help="recorded games in bursts")
    ap.add_argument("--classic-games", type=int, default=10, help="classic games at table pace")
    ap.add_argument("--classic-burst-games", type=int, default=10, help="classic games in bursts")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="one game of each, quick start-up")
    ap.add_argument("--markdown", type=Path, default=ROOT / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "results.json")
    args = ap.parse_args(argv)
    if args.tiny:
        args.games = args.burst_games = args.classic_games = args.classic_burst_games = 1
    started = time.monotonic()
    load_at_start = os.getloadavg()[0]  # the other work on the machine, before ours
    max_partials = load_profile("desktop").stand.max_partials
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "command": "make bench  # .venv/bin/python bench/run.py "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "games": args.games,
        "burst_games": args.burst_games,
        "classic_games": args.classic_games,
        "classic_burst_games": args.classic_burst_games,
        "max_partials": max_partials,
        "table_pace": {
            "touch_gap_s": list(games.TOUCH_GAP),
            "clue_think_s": list(games.THINK),
            "burst": f"{games.BURST} touches within {games.BURST_WITHIN:g} s",
        },
        "models": {},
    }
    for model in panels.MODELS:
        print(f"bench: {model} ...", file=sys.stderr)
        results["models"][model] = model_figures(model, args, max_partials)
    print("bench: software time per touch, the models in turn ...", file=sys.stderr)
    for model, software in software_passes(args, 1 if args.tiny else 5).items():
        results["models"][model]["software"] = software
    print("bench: start-up, imports, memory ...", file=sys.stderr)
    startup.compile_bytecode()
    results["cold_start"] = startup.cold_starts(3 if args.tiny else 9)
    results["first_frame_ms"] = results["cold_start"]["run"]["ms"]
    results["first_frame_runs_ms"] = results["cold_start"]["run"]["runs_ms"]
    results["resume"] = resume.resume(3 if args.tiny else 9)
    results["peak_rss_mb"] = round(startup.peak_rss_mb(), 1)
    worst = 1024 * 1024 if args.tiny else SCRIPT_CAP
    results["worst_script"] = {
        "bytes": worst - worst % len(startup.WORST_LINE),
        "line": startup.WORST_LINE.decode().strip(),
        "peak_rss_mb": round(startup.worst_script_rss_mb(worst), 1),
    }
    results["import_ms"] = startup.import_ms()
    results["first_frame_cost"] = startup.first_frame_cost(1 if args.tiny else 5)
    results["pi_start"], results["idle"] = pi_path(args.tiny)
    results["journal_fsync"] = spread(latency.journal_fsync(20 if args.tiny else 200))
    results["cpu_reference"] = reference.cpu_reference(
        reference.sysbench_events(1 if args.tiny else 10),
        reference.python_pass_ms(20 if args.tiny else 200),
        results["models"],
    )
    results.update(ready_sooner(results))
    results["earlier"] = earlier(args.tiny)
    results["goals"] = report.goals(results)
    results["seconds"] = round(time.monotonic() - started, 1)
    results["load_average"] = {"start": load_at_start, "end": os.getloadavg()[0]}
    args.json.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n")
    args.markdown.write_text(report.markdown(results))
    print(f"bench: {args.markdown} and {args.json} in {results['seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
