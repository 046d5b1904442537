"""`make soak`: the stand's own crash, damage and fault harness, figures written
to docs/reliability.md and soak/results.json.

    .venv/bin/python soak/run.py [--minutes 28] [--quick] [--seed N]
                                 [--only kill,damage,disk,faults,edges] [--case CASE]
                                 [--merge]

Five categories, each in its own module (docs/reliability.md says what each
checks): `kill` (SIGKILL chains across the builds and both games), `damage`
(damaged journals), `disk` (a full disk on a small tmpfs; root only), `faults`
(the grids' and the panels' faults) and `edges` (a disk failing while the stand
runs, two stands at once, SIGKILL during the history's rewrite and on a full
disk, a stuck panel under SIGKILL; parts of it root only). The time budget is shared out,
the kill chains last taking what is left. A failure says which case, keeps
what it found under soak/kept/ and prints the one command that reproduces it.
The figures files are written only by a whole run (no --only, --case or
--quick) unless --markdown or --json name where, or --merge: a run of some
categories (--only) puts its figures into soak/results.json and
docs/reliability.md in place of theirs, the other categories' figures kept
as their own runs wrote them, each category naming the run it comes from.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import random
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import damage
import disk
import edges
import faults
import kill
import report
from common import ROOT, Context, Tally, dump, machine

CATEGORIES = ("damage", "disk", "faults", "edges", "kill")
# How failures are grouped in the summary: by chain, variant, scenario and pages, fault.
FAMILY = {
    "kill": lambda case: case.split(":")[0],
    "damage": lambda case: ":".join(case.split(":")[1 : 3 if ":craft:" in case else 2]),
    "disk": lambda case: case.split(":")[0],
    "faults": lambda case: ":".join(case.split(":")[: 3 if case.startswith("panel:") else 2]),
    "edges": lambda case: case.split(":")[0].split("-")[0],
}
FLOOR = {"damage": 30, "disk": 60, "faults": 180, "edges": 300, "kill": 0}  # seconds, if any
SHARE = {"damage": 0.08, "disk": 0.04, "faults": 0.22, "edges": 0.3, "kill": 1.0}  # of what is left


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=28.0, help="the time budget (default 28)")
    ap.add_argument("--quick", action="store_true", help="a little of each category")
    ap.add_argument("--seed", type=int, help="default: a new one, printed")
    ap.add_argument("--only", help="comma-separated categories: " + ", ".join(CATEGORIES))
    ap.add_argument("--case", help="one case of the one category --only names (a repro)")
    ap.add_argument("--cuts", type=int, help="kill: cuts per chain, then stop")
    ap.add_argument("--jobs", type=int, default=2, help="kill chains run at once (default 2)")
    ap.add_argument("--keep", type=Path, default=ROOT / "soak" / "kept", help="failures' files")
    ap.add_argument("--markdown", type=Path, help="default: docs/reliability.md (a whole run)")
    ap.add_argument("--json", type=Path, help="default: soak/results.json (a whole run)")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="--only's categories into the figures files, the others' figures kept",
    )
    args = ap.parse_args(argv)
    only = args.only.split(",") if args.only else list(CATEGORIES)
    unknown = [c for c in only if c not in CATEGORIES]
    if unknown:
        ap.error(f"--only {args.only}: unknown {', '.join(unknown)} (of {', '.join(CATEGORIES)})")
    if args.case and len(only) != 1:
        ap.error("--case needs --only naming one category")
    if args.minutes <= 0:
        ap.error(f"--minutes {args.minutes:g}: above 0")
    args.only = [c for c in CATEGORIES if c in only]
    if args.merge and (args.quick or args.case or args.cuts):
        ap.error("--merge: figures for the docs, not --quick, --case or --cuts")
    whole = args.merge or not (args.quick or args.case or args.cuts or len(only) < len(CATEGORIES))
    args.markdown = args.markdown or (ROOT / "docs" / "reliability.md" if whole else None)
    args.json = args.json or (ROOT / "soak" / "results.json" if whole else None)
    return args


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    # The stand's own log lines from in-process starts (a repaired journal, a full
    # disk) are what the soak provokes; its failures say what matters.
    logging.getLogger("keystand").addHandler(logging.NullHandler())
    logging.getLogger("keystand").propagate = False
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    command = "make soak" + (
        f' SOAK_ARGS="{shlex.join(argv if argv is not None else sys.argv[1:])}"'
        if (argv if argv is not None else sys.argv[1:])
        else ""
    )
    print(f"soak: seed {seed} ({args.minutes:g} minutes{', quick' if args.quick else ''})")
    started = time.monotonic()
    end = started + args.minutes * 60
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    work = Path(tempfile.mkdtemp(prefix=f"keystand-soak-{seed}-"))
    ctx = Context(seed, args.quick, work, args.keep / f"{stamp}-seed{seed}", case=args.case)
    ctx.limit = args.cuts
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "command": command,
        "seed": seed,
        "minutes": args.minutes,
        "quick": args.quick,
        "categories": {},
    }
    try:
        for n, category in enumerate(args.only):
            left = end - time.monotonic()
            later = len(args.only) - n - 1
            share = (
                left if not later else max(left * SHARE[category], min(FLOOR[category], left / 2))
            )
            ctx.deadline = time.monotonic() + max(share, 0.0)
            tally = Tally(category, ctx, family=FAMILY[category])
            print(f"soak: {category} ({share / 60:.1f} minutes at most) ...", flush=True)
            began = time.monotonic()
            _category(category, ctx, tally, args.jobs)
            figures = tally.figures()
            figures["seconds"] = round(time.monotonic() - began, 1)
            figures["run"] = report.provenance(results)
            results["categories"][category] = figures
            print(f"soak: {category}: {report.one_line(figures)}", flush=True)
            for family, n in figures["failing"].items():
                print(f"soak:   {n} x {family}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["seconds"] = round(time.monotonic() - started, 1)
    if args.merge and args.json and args.json.exists():
        results = merged(json.loads(args.json.read_text()), results)
    results["goals"] = report.goals(results)
    failed = sum(c.get("failures_total", 0) for c in results["categories"].values())
    if args.json:
        dump(args.json, results)
    if args.markdown:
        args.markdown.write_text(report.markdown(results))
    written = " and ".join(str(p) for p in (args.markdown, args.json) if p)
    print(
        f"soak: {failed} failure(s) in {results['seconds']:g} s"
        + (f"; figures in {written}" if written else "")
        + (f"; kept under {ctx.kept}" if ctx.kept.exists() else ""),
        flush=True,
    )
    return 1 if failed else 0


def merged(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The figures of run `now` with those of the categories it did not run taken
    from `before` (an earlier run's soak/results.json), each category keeping the
    run it comes from (`run`: its command, date and seed)."""
    categories = {}
    for name in CATEGORIES:
        if name in now["categories"]:
            categories[name] = now["categories"][name]
        elif name in before.get("categories", {}):
            kept = dict(before["categories"][name])
            kept.setdefault("run", report.provenance(before))
            categories[name] = kept
    runs = {json.dumps(f["run"], sort_keys=True) for f in categories.values()}
    return {**now, "categories": categories, "merged": len(runs) > 1}


def _category(category: str, ctx: Context, tally: Tally, jobs: int) -> None:
    if category == "kill":
        kill.run(ctx, tally, jobs)
    elif category == "damage":
        damage.run(ctx, tally)
    elif category == "disk":
        disk.run(ctx, tally)
    elif category == "edges":
        edges.run(ctx, tally)
    else:
        faults.run(ctx, tally)


if __name__ == "__main__":
    sys.exit(main())
