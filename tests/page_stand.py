"""`keystand run` serving the simulator page, as a child process, for the tests
that play on the page: started once it prints the page's address, asked through
the page's routes, and stopped by SIGTERM with a clean exit checked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

from PIL import Image

WAIT = 120.0  # seconds: generous, for a loaded machine; every wait is for a condition


def wait_for(check: Callable[[], object], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(0.05)


class PageStand:
    """`keystand run ARGS` on any free port, its state under tmp_path/state and
    its output in files there (a pipe nobody reads could fill and stall it)."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.state = tmp_path / "state"
        self.out, self.err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(
                [
                    *(sys.executable, "-m", "keystand", "run", *args),
                    *("--port", "0", "--state-dir", str(self.state)),
                ],
                stdout=out,
                stderr=err,
                text=True,
            )
        self.url = ""
        wait_for(self._started, "the simulator page's address")

    def _started(self) -> bool:
        found = re.search(r"http://127\.0\.0\.1:\d+/", self.out.read_text())
        assert found or self.proc.poll() is None, self.err.read_text()
        self.url = found.group(0) if found else ""
        return bool(found)

    def status(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "status", timeout=10) as r:
            return json.load(r)

    def send(self, line: str) -> None:
        req = urllib.request.Request(self.url + "input", data=line.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=10) as r:
            assert r.status == 200

    def screen(self, seat: str) -> Image.Image:
        """What seat's screen shows, as the page serves it."""
        with urllib.request.urlopen(self.url + f"screen/{seat}.png", timeout=10) as r:
            return Image.open(BytesIO(r.read())).convert("1")

    def shows(self, seat: str, want: Image.Image) -> bool:
        return self.screen(seat).tobytes() == want.convert("1").tobytes()


@contextmanager
def serving(tmp_path: Path, *args: str) -> Iterator[PageStand]:
    """The stand for the `with` block; after it, stopped. Its exit status is
    checked only when the block passed, so a failure in it is the one told."""
    stand = PageStand(tmp_path, *args)
    try:
        yield stand
    finally:
        stand.proc.terminate()
        stand.proc.wait(WAIT)
    assert stand.proc.returncode == 0, stand.err.read_text()
