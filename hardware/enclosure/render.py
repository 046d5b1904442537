"""Render the stands: every build's printed parts to STL, each sliced, the
pictures, and the touch mat's template.

`make enclosure` runs this; tests/test_enclosure.py loads it for the same
commands. STL export needs no display; Debian's openscad 2021.01 crashes
drawing a PNG without one, so pictures go through `xvfb-run` when there is no
$DISPLAY. Each render also returns the facts the model echoes (lines
`ECHO: "KS", kind, ...`): active-area points, keys, screws, ports.

Every printed part is sliced with Debian's PrusaSlicer at hardware/README.md's
settings (print.ini beside this file), twice: as printed (no supports), for
the print time and the filament it takes, and with PrusaSlicer's automatic
supports switched on, to ask it whether the part needs any (it must not). The
figures go to slices.json beside this file (committed, with each mesh's size
and volume, so the tests can tell a record older than the model without
slicing again) and to README's table of parts.

    python hardware/enclosure/render.py [--card W H]

`--card W H` is a word card's measured size in mm, for the mat's template.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUILDS = ("minimal", "touch-mpr121", "touch-serial")
# The parts a build prints, each as it lies on the bed: the body, its lid and
# base plate, the minimal build's spacers (two a HAT, above the glass) or a
# touch build's key bar (one a face), and the two fit-test coupons: one face as
# a thin frame, and the bought parts' places (hardware/README.md "Measure
# before the long print").
PARTS = {
    "minimal": ("body", "lid", "base", "spacer", "coupon", "parts_coupon"),
    "touch-mpr121": ("body", "lid", "base", "keybar", "coupon", "parts_coupon"),
    "touch-serial": ("body", "lid", "base", "keybar", "coupon", "parts_coupon"),
}
# How many of each part a stand takes (the coupon is printed once, before).
COPIES = {"spacer": 2, "keybar": 2}
OUT = ROOT / "build" / "enclosure"
PREVIEWS = HERE / "previews"
README = ROOT / "hardware" / "README.md"
SLICES = HERE / "slices.json"
PRINT_INI = HERE / "print.ini"
EMPTY = "Current top level object is empty."
# The pictures: from seat A's side along its eyes' line (45 cm back, 40 cm up,
# as body.scad's EYE_*, brought nearer), from the side along x (the tilt,
# orthographic), and the stand cut through the middle of the active area, seen
# from +x and in front (each panel in its pocket, the base plate's contents).
VIEWS = {
    "seat": ("preview", "0,-390,310,0,0,50", "perspective"),
    "side": ("preview", "450,0,55,0,0,55", "ortho"),
    "section": ("section", "330,-110,170,0,0,45", "perspective"),
}


@dataclass(frozen=True)
class Render:
    ok: bool  # openscad wrote the file
    empty: bool  # openscad said the object was empty (a fit check's pass)
    log: str
    facts: list[list[object]]


def openscad() -> str | None:
    return shutil.which("openscad")


def slicer() -> str | None:
    return shutil.which("prusa-slicer")


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
    scad: Path,
    out: Path,
    part: str = "body",
    defines: dict[str, object] | None = None,
    view: tuple[str, str] | None = None,
) -> Render:
    """Run openscad on `scad` for `part` into `out` (.stl, .png or .echo);
    a PNG from `view`, (camera eye,centre, projection)."""
    exe = openscad()
    if exe is None:
        raise FileNotFoundError("openscad is not installed (make enclosure installs it as root)")
    cmd = [exe, "-o", str(out), "-D", f"part={define(part)}"]
    for name, value in (defines or {}).items():
        cmd += ["-D", f"{name}={value if isinstance(value, str) else define(value)}"]
    if out.suffix == ".png":
        camera, projection = view or VIEWS["seat"][1:]
        cmd += [
            "--imgsize=900,700",
            f"--camera={camera}",
            f"--projection={projection}",
            "--colorscheme=Tomorrow",
        ]
        if not os.environ.get("DISPLAY"):
            xvfb = shutil.which("xvfb-run")
            if xvfb is None:
                raise FileNotFoundError("xvfb-run is needed for a picture without a display")
            cmd = [xvfb, "-a", *cmd]
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    done = subprocess.run([*cmd, str(scad)], capture_output=True, text=True, check=False)
    log = done.stdout + done.stderr
    return Render(done.returncode == 0 and out.exists(), EMPTY in log, log, facts(log))


@dataclass(frozen=True)
class Slice:
    seconds: int  # PrusaSlicer's estimate, normal mode
    grams: float  # filament used
    supports: int  # support extrusions PrusaSlicer's automatic supports would print


@dataclass(frozen=True)
class Sliced:
    """One part's line in slices.json: the slicer's figures and the mesh they
    were taken from (its size and volume: a changed model no longer matches)."""

    slice: Slice
    extents: tuple[float, float, float]  # mm, as printed
    volume: float  # mm3


def write_slices(record: dict[str, dict[str, Sliced]], path: Path = SLICES) -> None:
    out = {
        build: {
            part: {
                **s.slice.__dict__,
                "extents": [round(v, 3) for v in s.extents],
                "volume": round(s.volume, 1),
            }
            for part, s in parts.items()
        }
        for build, parts in record.items()
    }
    path.write_text(json.dumps(out, indent=1) + "\n")


def read_slices(path: Path = SLICES) -> dict[str, dict[str, Sliced]]:
    raw = json.loads(path.read_text())
    return {
        build: {
            part: Sliced(
                Slice(int(v["seconds"]), float(v["grams"]), int(v["supports"])),
                (float(v["extents"][0]), float(v["extents"][1]), float(v["extents"][2])),
                float(v["volume"]),
            )
            for part, v in parts.items()
        }
        for build, parts in raw.items()
    }


_TIME = re.compile(r"^; estimated printing time \(normal mode\) = (.+)$", re.M)
_GRAMS = re.compile(r"^; total filament used \[g\] = ([\d.]+)$", re.M)


def seconds(text: str) -> int:
    """PrusaSlicer's "1d 2h 3m 4s" as seconds."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([dhms])", text))


def _gcode(stl: Path, gcode: Path, extra: dict[str, str]) -> str:
    exe = slicer()
    if exe is None:
        raise FileNotFoundError(
            "prusa-slicer is not installed (make enclosure installs it as root)"
        )
    ini = gcode.with_suffix(".ini")
    text = PRINT_INI.read_text()
    for key, value in extra.items():
        text = re.sub(rf"^{key} = .*$", f"{key} = {value}", text, flags=re.M)
        if f"{key} = {value}" not in text:
            text += f"{key} = {value}\n"
    ini.write_text(text)
    gcode.unlink(missing_ok=True)
    done = subprocess.run(
        [exe, "--export-gcode", "--load", str(ini), "-o", str(gcode), str(stl)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 or not gcode.exists():
        raise RuntimeError(
            f"prusa-slicer failed on {stl}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return gcode.read_text()


def slice_part(stl: Path) -> Slice:
    """Slice `stl` at print.ini's settings (no supports), then again with
    PrusaSlicer's automatic supports on (its own judgement of what overhangs:
    threshold 0), counting the support it would print."""
    printed = _gcode(stl, stl.with_suffix(".gcode"), {})
    time = _TIME.search(printed)
    grams = _GRAMS.search(printed)
    if time is None or grams is None:
        raise RuntimeError(f"prusa-slicer gave no time or filament for {stl}")
    auto = _gcode(
        stl,
        stl.with_suffix(".supports.gcode"),
        {"support_material": "1", "support_material_auto": "1", "support_material_threshold": "0"},
    )
    supports = sum(1 for line in auto.splitlines() if line.startswith(";TYPE:Support material"))
    return Slice(seconds(time.group(1)), float(grams.group(1)), supports)


def hours(secs: int) -> str:
    h, m = divmod(round(secs / 60), 60)
    return f"{h} h {m:02d} min" if h else f"{m} min"


TABLE_START = "<!-- slicer: parts -->"
TABLE_END = "<!-- end -->"


def parts_table(slices: dict[str, dict[str, Slice]], sizes: dict[str, dict[str, str]]) -> str:
    """README's table of printed parts, from the slicer's figures."""
    lines = [
        "| build | part | print | size, mm | PLA, g (each) | print time (each) |",
        "|---|---|---|---|---|---|",
    ]
    for build, parts in slices.items():
        total_s = total_g = 0.0
        for part, s in parts.items():
            n = COPIES.get(part, 1)
            label = "1, first, to measure" if "coupon" in part else f"{n}"
            lines.append(
                f"| {build} | `{build}-{part}.stl` | {label} | {sizes[build][part]} | "
                f"{s.grams:.1f} | {hours(s.seconds)} |"
            )
            if "coupon" not in part:
                total_s += n * s.seconds
                total_g += n * s.grams
        lines.append(
            f"| {build} | **the stand** | | | **{total_g:.0f}** | **{hours(int(total_s))}** |"
        )
    return "\n".join(lines)


def write_table(table: str, readme: Path = README) -> None:
    text = readme.read_text()
    start = text.index(TABLE_START) + len(TABLE_START)
    end = text.index(TABLE_END, start)
    readme.write_text(text[:start] + "\n" + table + "\n" + text[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--card", nargs=2, metavar=("W", "H"), help="a word card's size, mm")
    args = parser.parse_args(argv)
    if openscad() is None or slicer() is None:
        print(
            "keystand: openscad or prusa-slicer is missing: "
            "sudo apt-get install openscad xvfb prusa-slicer",
            file=sys.stderr,
        )
        return 1
    import trimesh  # the dev dependencies' (pyproject)

    slices: dict[str, dict[str, Slice]] = {}
    sizes: dict[str, dict[str, str]] = {}
    record: dict[str, dict[str, Sliced]] = {}
    for build in BUILDS:
        scad = HERE / f"{build}.scad"
        slices[build] = {}
        sizes[build] = {}
        record[build] = {}
        for part in PARTS[build]:
            out = OUT / f"{build}-{part}.stl"
            result = render(scad, out, part)
            if not result.ok:
                print(result.log, file=sys.stderr)
                return 1
            s = slice_part(out)
            if s.supports:
                print(
                    f"{build} {part}: the slicer would support it ({s.supports} extrusions)",
                    file=sys.stderr,
                )
                return 1
            slices[build][part] = s
            mesh = trimesh.load(out, force="mesh")
            extent = mesh.extents
            sizes[build][part] = " x ".join(f"{v:.0f}" for v in extent)
            record[build][part] = Sliced(
                s, (float(extent[0]), float(extent[1]), float(extent[2])), float(mesh.volume)
            )
            print(f"{out.relative_to(ROOT)}: {hours(s.seconds)}, {s.grams:.1f} g")
        fit = render(scad, OUT / f"{build}-fit.stl", "fit")
        if not fit.empty:
            print(f"{build}: the panels do not fit the body (see {build}-fit.stl)", file=sys.stderr)
            return 1
        for view, (part, camera, projection) in VIEWS.items():
            png = PREVIEWS / f"{build}-{view}.png"
            if not render(scad, png, part, view=(camera, projection)).ok:
                print(f"{build}: no {view} picture", file=sys.stderr)
                return 1
            print(png.relative_to(ROOT))
    write_slices(record)
    print(SLICES.relative_to(ROOT))
    write_table(parts_table(slices, sizes))
    print(f"{README.relative_to(ROOT)}: the parts' table from the slicer")
    import mat  # beside this file (the script's folder is on sys.path)

    card = ["--card", *args.card] if args.card else []
    for paper in mat.PAPERS:
        for electrodes in ("strips", "pads"):
            mat.main(["--paper", paper, "--map", electrodes, *card, str(OUT / "mat")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
