"""Render the stands: every build's printed parts to STL and a preview PNG.

`make enclosure` runs this; tests/test_enclosure.py loads it for the same
commands. STL export needs no display; Debian's openscad 2021.01 crashes
drawing a PNG without one, so previews go through `xvfb-run` when there is no
$DISPLAY. Each render also returns the facts the model echoes (lines
`ECHO: "KS", kind, ...`): eye points, active-area corners, keys, ports, walls.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILDS = ("minimal", "touch-mpr121", "touch-serial")
# The parts a build prints: every build has a body; the touch builds' modules
# go in from the top, which a lid then closes.
PARTS = {"minimal": ("body",), "touch-mpr121": ("body", "lid"), "touch-serial": ("body", "lid")}
OUT = ROOT / "build" / "enclosure"
PREVIEWS = HERE / "previews"
# Seat A's face, from above and to the side (openscad's --camera: translate,
# rotate, distance).
CAMERA = "0,0,40,62,0,205,520"
EMPTY = "Current top level object is empty."


@dataclass(frozen=True)
class Render:
    ok: bool  # openscad wrote the file
    empty: bool  # openscad said the object was empty (a fit check's pass)
    log: str
    facts: list[list[object]]


def openscad() -> str | None:
    return shutil.which("openscad")


def facts(log: str) -> list[list[object]]:
    """The model's `echo("KS", ...)` lines, each as a list (kind first)."""
    out = []
    for line in log.splitlines():
        if line.startswith('ECHO: "KS", '):
            out.append(json.loads("[" + line[len('ECHO: "KS", ') :] + "]"))
    return out


def define(value: object) -> str:
    return json.dumps(value)


def render(
    scad: Path, out: Path, part: str = "body", defines: dict[str, object] | None = None
) -> Render:
    """Run openscad on `scad` for `part` into `out` (.stl or .png)."""
    exe = openscad()
    if exe is None:
        raise FileNotFoundError("openscad is not installed (make enclosure installs it as root)")
    cmd = [exe, "-o", str(out), "-D", f"part={define(part)}"]
    for name, value in (defines or {}).items():
        cmd += ["-D", f"{name}={value if isinstance(value, str) else define(value)}"]
    if out.suffix == ".png":
        cmd += ["--imgsize=900,700", "--autocenter", f"--camera={CAMERA}", "--colorscheme=Tomorrow"]
        if not os.environ.get("DISPLAY"):
            xvfb = shutil.which("xvfb-run")
            if xvfb is None:
                raise FileNotFoundError("xvfb-run is needed for a preview without a display")
            cmd = [xvfb, "-a", *cmd]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    done = subprocess.run([*cmd, str(scad)], capture_output=True, text=True, check=False)
    log = done.stdout + done.stderr
    return Render(done.returncode == 0 and out.exists(), EMPTY in log, log, facts(log))


def main() -> int:
    if openscad() is None:
        print("keystand: openscad is missing: sudo apt-get install openscad xvfb", file=sys.stderr)
        return 1
    for build in BUILDS:
        scad = HERE / f"{build}.scad"
        for part in PARTS[build]:
            out = OUT / f"{build}-{part}.stl"
            result = render(scad, out, part)
            if not result.ok:
                print(result.log, file=sys.stderr)
                return 1
            print(out.relative_to(ROOT))
        fit = render(scad, OUT / f"{build}-fit.stl", "fit")
        if not fit.empty:
            print(f"{build}: the panels do not fit the body (see {build}-fit.stl)", file=sys.stderr)
            return 1
        png = PREVIEWS / f"{build}.png"
        if not render(scad, png, "preview").ok:
            print(f"{build}: no preview", file=sys.stderr)
            return 1
        print(png.relative_to(ROOT))
    import mat  # beside this file (the script's folder is on sys.path)

    for paper in mat.PAPERS:
        for electrodes in ("strips", "pads"):
            mat.main(["--paper", paper, "--map", electrodes, str(OUT / "mat")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
