"""The machine the figures were taken on (bench/run.py; soak/common.py loads it
too): the same names in BENCHMARKS.md, bench/results.json and soak/results.json."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "arch": platform.machine(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "system": platform.platform(),
    }
