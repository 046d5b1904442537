"""What the soak's categories share: the tally of figures and failures, the one
call into journal.py, the `keystand` command, seeded randomness and time.

Every figure a category keeps is a count in its `Tally`. The goal figures are
`lost`, `changed`, `stranded`, `phantom` and `double`; each category also keeps
its own (`crashes`, `untold`, `uncopied`, ...). A failure is one line naming
the case, keeps what it found (a state dir, a damaged file) under the kept
folder, and gives the one command that reproduces it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keystand.journal import Journal, read

ROOT = Path(__file__).resolve().parent.parent
GOALS = ("lost", "changed", "stranded", "phantom", "double")
SHOWN_FAILURES = 5  # failures of one kind printed in full; the rest are counted
KEPT_FAILURES = 3  # failures of one kind whose files are kept


@dataclass(frozen=True)
class Loaded:
    """What loading a journal gave: its records (seq, data) and what was said."""

    records: list[tuple[int, dict[str, Any]]]
    said: str


def load_journal(path: Path) -> Loaded:
    """journal.py's public loader, the one way the soak opens a journal the way
    the stand does on start (repairs and all). Kept in one place: journal.py's
    loading is being changed on another branch."""
    journal, _, recovery = Journal.open(path)
    journal.close()
    # Every record kept, those a checkpoint let the start pass over parsed too.
    records = recovery.loaded.all_records()
    return Loaded([(r.seq, r.data) for r in records], str(recovery))


def sound_records(path: Path) -> list[dict[str, Any]]:
    """The sound records of a journal, read without changing the file (what a
    restart keeps of it)."""
    if not path.is_file():
        return []
    records, _end, _damaged = read(path)
    return [r.data for r in records]


def case_rng(seed: int, *parts: object) -> random.Random:
    """A generator for one case alone: the same seed and case give the same draws
    whatever else ran, so a case reproduces by itself."""
    return random.Random(":".join(map(str, (seed, *parts))))


def keystand(
    *args: str | Path, timeout: float = 120, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keystand", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def spawn(
    args: list[str | Path], log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`keystand ARGS` in the background, its output into `log`."""
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "keystand", *map(str, args)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )


@dataclass
class Context:
    """One soak run: its seed, its clock and where things go."""

    seed: int
    quick: bool
    work: Path  # scratch, removed at the end
    kept: Path  # what failures keep
    deadline: float = 0.0  # time.monotonic() at which this category stops
    case: str | None = None  # only this case (a repro)
    limit: int | None = None  # kill: cuts per chain (a repro)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def wants(self, case: str) -> bool:
        """Whether `case` runs: every case, or the one asked for (and its sub-cases)."""
        return self.case is None or case == self.case or case.startswith(self.case + ":")


@dataclass
class Failure:
    category: str
    case: str
    kind: str
    what: str
    repro: str
    kept: str | None = None


@dataclass
class Tally:
    """A category's figures and failures."""

    category: str
    ctx: Context
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[Failure] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    families: Counter[str] = field(default_factory=Counter)  # "kind: family" of each failure
    examples: dict[str, Failure] = field(default_factory=dict)  # each family's first
    family: Callable[[str], str] = lambda case: case.split(":")[0]

    def add(self, name: str, n: int = 1) -> None:
        self.counts[name] += n

    def fail(
        self,
        case: str,
        kind: str,
        what: str,
        keep: list[Path] | None = None,
        repro: str | None = None,
    ) -> None:
        """A failure of goal figure (or own figure) `kind` in `case`: said, its
        files kept, its repro command given (`repro`, else by the case)."""
        self.counts[kind] += 1
        self.kinds[kind] += 1
        family = f"{kind}: {self.family(case)}"
        self.families[family] += 1
        kept = None
        if keep and self.kinds[kind] <= KEPT_FAILURES:
            folder = self._keep(case, kind, keep)
            kept = str(folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder)
        failure = Failure(self.category, case, kind, what, repro or self.repro(case), kept)
        self.failures.append(failure)
        self.examples.setdefault(family, failure)
        if self.kinds[kind] <= SHOWN_FAILURES:
            print(f"soak: FAIL {self.category} {case}: {kind}: {what}", file=sys.stderr)
            if kept:
                print(f"      kept: {kept}", file=sys.stderr)
            print(f"      repro: {failure.repro}", file=sys.stderr, flush=True)
        elif self.kinds[kind] == SHOWN_FAILURES + 1:
            print(f"soak: ({self.category}: more {kind} failures, counted)", file=sys.stderr)

    def repro(self, case: str) -> str:
        args = f"--seed {self.ctx.seed} --only {self.category} --case {case}"
        return f'make soak SOAK_ARGS="{args}"'

    def _keep(self, case: str, kind: str, paths: list[Path]) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{case}-{kind}")
        into = self.ctx.kept / self.category / safe
        n = 1
        while (found := into.with_name(f"{into.name}-{n}")).exists():
            n += 1
        found.mkdir(parents=True)
        for path in paths:
            if path.is_dir():
                shutil.copytree(path, found / path.name, symlinks=True, dirs_exist_ok=True)
            elif path.exists():
                shutil.copy2(path, found / path.name)
        return found

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {goal: self.counts.get(goal, 0) for goal in GOALS}
        out.update(sorted((k, v) for k, v in self.counts.items() if k not in GOALS))
        out["failing"] = dict(sorted(self.families.items()))
        out["examples"] = {k: vars(v) for k, v in sorted(self.examples.items())}
        out["failures"] = [vars(f) for f in self.failures[:50]]
        out["failures_total"] = len(self.failures)
        out["notes"] = self.notes
        return out


def machine() -> dict[str, Any]:
    """The machine, as bench/run.py names it (bench/machine.py), and whether the
    soak ran as root (the full-disk scenarios need it)."""
    spec = importlib.util.spec_from_file_location("bench_machine", ROOT / "bench" / "machine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {**module.machine(), "root": os.geteuid() == 0}


def dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")
