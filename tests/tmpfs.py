"""A small tmpfs for the full-disk tests: mounted for one test, gone after.
Mounting needs root on Linux; elsewhere the test is skipped with the reason."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted(tmp_path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (mount's spelling: "256k") at `tmp_path/disk`."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
