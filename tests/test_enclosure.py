"""The stands' bodies (hardware/enclosure/): every printed part is a closed,
consistently oriented solid that fits a 220 x 220 x 250 mm bed; the panels and
what hangs on them fit their pockets; each seat sees its whole active area and
none of the other seat's; keys and connectors meet openings; a touch build's
keys sit under the centres of their labels' bands on the screen; walls are at
least 1.6 mm; a module slides down its channel from the open top; and a table
entry changed so that a panel no longer fits fails.

Each build is rendered once for the module (about 1-2 s a render with Debian's
openscad 2021.01); the checks then work on the meshes (trimesh) and on the
facts the model echoes, with rays cast in numpy.
"""

from __future__ import annotations

import importlib.util
import itertools
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
ENCLOSURE = ROOT / "hardware" / "enclosure"

if shutil.which("openscad") is None:
    pytest.skip(
        "openscad is missing (make test installs it as root: apt-get install openscad xvfb)",
        allow_module_level=True,
    )
trimesh = pytest.importorskip("trimesh")

_spec = importlib.util.spec_from_file_location("enclosure_render", ENCLOSURE / "render.py")
assert _spec is not None and _spec.loader is not None
render = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = render  # its dataclass looks itself up there
_spec.loader.exec_module(render)

BED = (220.0, 220.0, 250.0)
MIN_WALL = 1.6


class Build:
    def __init__(self, name: str, folder: Path) -> None:
        self.name = name
        scad = ENCLOSURE / f"{name}.scad"
        self.parts = {}
        for part in render.PARTS[name]:
            done = render.render(scad, folder / f"{name}-{part}.stl", part)
            assert done.ok, done.log
            self.parts[part] = trimesh.load(folder / f"{name}-{part}.stl", force="mesh")
            if part == "body":
                self.facts = done.facts
        done = render.render(scad, folder / f"{name}-assembled.stl", "assembled")
        assert done.ok, done.log
        self.assembled = trimesh.load(folder / f"{name}-assembled.stl", force="mesh")
        self.fit = render.render(scad, folder / f"{name}-fit.stl", "fit")

    def all(self, kind: str) -> list[list]:
        return [f[1:] for f in self.facts if f[0] == kind]

    def one(self, kind: str) -> list:
        (found,) = self.all(kind)
        return found


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Build]:
    folder = tmp_path_factory.mktemp("enclosure")
    return {name: Build(name, folder) for name in render.BUILDS}


def hits(mesh, origin, direction) -> np.ndarray:
    """Distances along the ray (origin, unit direction) to every triangle it
    crosses, sorted (Moller-Trumbore over all triangles at once)."""
    o = np.asarray(origin, float)
    d = np.asarray(direction, float)
    d = d / np.linalg.norm(d)
    v0, v1, v2 = (mesh.triangles[:, i, :] for i in range(3))
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(d, e2)
    det = np.einsum("ij,ij->i", e1, p)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = o - v0
    u = np.einsum("ij,ij->i", s, p) * inv
    q = np.cross(s, e1)
    v = (q @ d) * inv
    t = np.einsum("ij,ij->i", e2, q) * inv
    tol = 1e-9
    hit = ok & (u >= -tol) & (v >= -tol) & (u + v <= 1 + tol) & (t > 1e-6)
    return np.sort(t[hit])


def blocked(mesh, start, end) -> bool:
    start, end = np.asarray(start, float), np.asarray(end, float)
    length = float(np.linalg.norm(end - start))
    found = hits(mesh, start, end - start)
    return bool(np.any(found < length - 1e-3))


def each_part(builds):
    for build in builds.values():
        for part, mesh in build.parts.items():
            yield f"{build.name} {part}", mesh


def test_every_part_is_a_closed_consistently_oriented_solid(builds):
    for name, mesh in each_part(builds):
        assert mesh.is_watertight, f"{name}: not closed"
        assert mesh.is_winding_consistent, f"{name}: faces not consistently oriented"
        assert mesh.is_volume and mesh.volume > 0, f"{name}: not a solid with outward normals"


def test_every_part_fits_the_print_bed(builds):
    for name, mesh in each_part(builds):
        size = mesh.bounds[1] - mesh.bounds[0]
        assert all(s <= b for s, b in zip(size, BED, strict=True)), f"{name}: {size} mm"
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-6), f"{name}: not on the bed"


def test_panels_and_what_hangs_on_them_fit_their_pockets(builds):
    for build in builds.values():
        assert build.fit.empty, f"{build.name}: contents and body overlap\n{build.fit.log}"


def test_each_seat_sees_its_whole_active_area_through_its_window(builds):
    for build in builds.values():
        for seat in (0, 1):
            (eyes,) = [f[1] for f in build.all("eyes") if f[0] == seat]
            (points,) = [f[1] for f in build.all("active") if f[0] == seat]
            assert len(points) == 5  # four corners and the centre
            for eye in eyes:
                for point in points:
                    assert not blocked(build.assembled, eye, point), (
                        f"{build.name}: seat {seat}'s eye {eye} cannot see {point}"
                    )


def facing(points) -> np.ndarray:
    """The screen's outward normal from its active corners (lower-left,
    lower-right, upper-right, upper-left as the seat sees them)."""
    c = np.asarray(points, float)
    n = np.cross(c[1] - c[0], c[3] - c[0])
    return n / np.linalg.norm(n)


def test_neither_seat_sees_the_other_seats_screen(builds):
    # Seen only if the eye is in front of the screen's plane and nothing of the
    # body is in the way: through its own window an eye sees the other panel's
    # back, not its face.
    for build in builds.values():
        for seat in (0, 1):
            (eyes,) = [f[1] for f in build.all("eyes") if f[0] == seat]
            (points,) = [f[1] for f in build.all("active") if f[0] == 1 - seat]
            normal = facing(points[:4])
            standing = [[x, y, 1500] for x, y, _ in eyes]  # a player who stands up
            for eye in eyes + standing:
                for point in points:
                    in_front = float(np.dot(np.subtract(eye, point), normal)) > 0
                    seen = in_front and not blocked(build.assembled, eye, point)
                    assert not seen, f"{build.name}: seat {seat}'s eye {eye} sees {point}"


def test_each_screen_faces_its_own_seat(builds):
    for build in builds.values():
        for seat in (0, 1):
            (eyes,) = [f[1] for f in build.all("eyes") if f[0] == seat]
            (points,) = [f[1] for f in build.all("active") if f[0] == seat]
            for eye in eyes:
                assert float(np.dot(np.subtract(eye, points[4]), facing(points[:4]))) > 0


def test_keys_reach_out_through_their_openings(builds):
    for build in builds.values():
        keys = build.all("key")
        assert sorted(k[0] for k in keys) == [0] * 4 + [1] * 4, build.name
        for _seat, point, out in keys:
            assert not hits(build.assembled, point, out).size, f"{build.name}: key {point} covered"


def test_connectors_and_leads_meet_openings(builds):
    expected = {
        "minimal": {"SD card", "USB and Ethernet", "power lead"},
        "touch-mpr121": {"cable exit"},
        "touch-serial": {"cable exit"},
    }
    for build in builds.values():
        ports = build.all("port")
        assert {p[0] for p in ports} == expected[build.name]
        for name, point, out in ports:
            assert not hits(build.assembled, point, out).size, f"{build.name}: {name} blocked"


def thickness(mesh, point, inward) -> float:
    d = np.asarray(inward, float) / np.linalg.norm(inward)
    start = np.asarray(point, float) - 0.5 * d
    found = hits(mesh, start, d)
    assert found.size >= 2, f"no wall at {point}"
    distinct = found[np.concatenate(([True], np.diff(found) > 1e-4))]
    assert distinct.size >= 2, f"no wall at {point}"
    return float(distinct[1] - distinct[0])


def test_walls_are_at_least_1_6_mm(builds):
    for build in builds.values():
        walls = build.all("wall")
        assert len(walls) >= 6, build.name
        for name, point, inward in walls:
            got = thickness(build.parts["body"], point, inward)
            assert got >= MIN_WALL, f"{build.name}: {name} is {got:.2f} mm"
        for name, point, inward in build.all("wall_lid"):
            got = thickness(build.parts["lid"], point, inward)
            assert got >= MIN_WALL, f"{build.name}: {name} is {got:.2f} mm"


def test_the_screens_lean_back_15_to_25_degrees(builds):
    for build in builds.values():
        (tilt,) = build.one("tilt")
        assert 15 <= tilt <= 25


def test_a_touch_stands_foot_stays_off_the_word_cards(builds):
    for name in ("touch-mpr121", "touch-serial"):
        build = builds[name]
        (mat_side,) = build.one("mat_side")
        body = build.parts["body"]
        assert body.bounds[0][0] >= mat_side - 1e-6
        # The foot is there, on the side away from the mat.
        assert body.bounds[1][0] > -mat_side + 20


# A panel entry changed so that it no longer fits: the fit check must say so.
BREAKS = [
    # The 4.2" glass 8 mm wider than the drawing: past the board's right edge
    # (6.0 + 99 > 103), into the end wall.
    ("touch-mpr121", '["glass", [91.0, 77.0, 1.18]]', '["glass", [99.0, 77.0, 1.18]]'),
    # The 2.9" flex cable at the board's corner: the channel's stop is there.
    (
        "touch-serial",
        '["fpc", [19.27, 15.31, 1.5, "left"]]',
        '["fpc", [6.0, 15.31, 1.5, "left"]]',
    ),
    # The 2.7" glass 2 mm further right: past the board's edge, its flex's fold
    # into the end wall.
    ("minimal", '["glass_at", [14.08, 5.1]]', '["glass_at", [16.08, 5.1]]'),
    # HAT B's leads standing 40 mm off its back: they meet the Pi in the wedge.
    ("minimal", "55.0, 23.5]]", "55.0, 40.0]]"),
]


@pytest.mark.parametrize(("build", "old", "new"), BREAKS)
def test_a_panel_entry_that_no_longer_fits_fails_the_fit_check(tmp_path, build, old, new):
    for name in ("body.scad", "panels.scad", f"{build}.scad"):
        shutil.copy(ENCLOSURE / name, tmp_path / name)
    table = (tmp_path / "panels.scad").read_text()
    assert table.count(old) == 1
    (tmp_path / "panels.scad").write_text(table.replace(old, new))
    done = render.render(tmp_path / f"{build}.scad", tmp_path / "fit.stl", "fit")
    assert not done.empty and done.ok, f"{build}: the changed entry still fits"
    # The same copy, unchanged, fits: the copy is not what breaks it.
    (tmp_path / "panels.scad").write_text(table)
    done = render.render(tmp_path / f"{build}.scad", tmp_path / "fit.stl", "fit")
    assert done.empty


CHANNELS = [
    b for b in render.BUILDS if '["retainer", "channel"]' in (ENCLOSURE / f"{b}.scad").read_text()
]


@pytest.mark.parametrize("build", CHANNELS)
def test_each_module_slides_down_its_channel_from_the_open_top(tmp_path, build):
    """What a module sweeps on its way in (its board, glass, flex cable and
    connector, from above the body down to its place) touches nothing of the body;
    with the top closed it would."""
    done = render.render(ENCLOSURE / f"{build}.scad", tmp_path / "way_in.stl", "way_in")
    assert done.empty, f"{build}: a module meets the body on its way in\n{done.log}"
    for name in ("body.scad", "panels.scad", f"{build}.scad"):
        shutil.copy(ENCLOSURE / name, tmp_path / name)
    source = (tmp_path / f"{build}.scad").read_text()
    assert source.count('["lid", true]') == 1
    (tmp_path / f"{build}.scad").write_text(source.replace('["lid", true]', '["lid", false]'))
    closed = render.render(tmp_path / f"{build}.scad", tmp_path / "closed.stl", "way_in")
    assert closed.ok and not closed.empty, f"{build}: a closed top should stop the module"


# ---- the keys under their labels ----------------------------------------------

# The touch builds' keys, left to right as a seat sees them (hardware/README.md,
# the profiles' [input.keys]); the screen draws their labels in four equal bands
# along its bottom edge, in this order.
KEY_ORDER = ("clue", "pass", "undo", "menu")
KEY_BODY = 12.0  # a 12 mm tactile key's body, square (hardware/README.md's parts list)
KEY_TOLERANCE = 1.0  # mm along the face between a key's centre and its label's


def keys_under_the_screen(facts: list[list], seat: int) -> tuple[float, list[float], list[float]]:
    """A seat's screen and keys as the seat sees them, from the model's echoed
    facts: the active area's width, each key's distance from the active area's
    lower-left corner along its bottom edge (left to right, sorted), and each
    key's height above that edge (up the face; negative is below the screen)."""
    (corners,) = [f[2] for f in facts if f[0] == "active" and f[1] == seat]
    c = np.asarray(corners, float)
    across = c[1] - c[0]  # lower-left to lower-right, as the seat sees them
    width = float(np.linalg.norm(across))
    across /= width
    up = c[3] - c[0]  # lower-left to upper-left
    up /= np.linalg.norm(up)
    keys = [np.asarray(f[2], float) - c[0] for f in facts if f[0] == "key" and f[1] == seat]
    return width, sorted(float(k @ across) for k in keys), [float(k @ up) for k in keys]


def keys_off_their_labels(facts: list[list]) -> list[str]:
    """What is wrong with where each seat's four keys sit: each must be under the
    screen, its centre within KEY_TOLERANCE (along the face) of the centre of
    its quarter of the active area's width, counted left to right as that seat
    sees its screen; neighbours' 12 mm bodies must not touch. Empty when right."""
    wrong = []
    for seat in (0, 1):
        width, along, heights = keys_under_the_screen(facts, seat)
        if len(along) != len(KEY_ORDER):
            wrong.append(f"seat {seat}: {len(along)} keys, not {len(KEY_ORDER)}")
            continue
        for k, (name, x) in enumerate(zip(KEY_ORDER, along, strict=True)):
            centre = width * (k + 0.5) / 4
            if abs(x - centre) > KEY_TOLERANCE:
                wrong.append(
                    f"seat {seat}: key {k} ({name}) at {x:.2f} mm along the screen, "
                    f"its label's centre at {centre:.2f} ({x - centre:+.2f})"
                )
        for left, right in itertools.pairwise(along):
            if right - left <= KEY_BODY:
                wrong.append(f"seat {seat}: keys at {left:.2f} and {right:.2f} mm touch")
        if max(heights) >= 0:
            wrong.append(f"seat {seat}: a key {max(heights):.2f} mm above the screen's bottom edge")
    return wrong


TOUCH = [b for b in render.BUILDS if '["buttons", true]' in (ENCLOSURE / f"{b}.scad").read_text()]


def test_the_touch_builds_are_the_ones_with_keys_in_the_face():
    assert TOUCH == ["touch-mpr121", "touch-serial"]


@pytest.mark.parametrize("build", TOUCH)
def test_each_key_sits_under_the_centre_of_its_label(builds, build):
    facts = builds[build].facts
    for seat in (0, 1):
        width, along, _ = keys_under_the_screen(facts, seat)
        assert width > 0 and len(along) == 4, f"{build}: seat {seat}"
    wrong = keys_off_their_labels(facts)
    assert not wrong, f"{build}:\n" + "\n".join(wrong)


# body.scad's keys before they followed the labels: the same row for every
# panel, centred on the board.
OLD_BUTTON_S = "function button_s(b) = [-30, -10, 10, 30];"


@pytest.mark.parametrize("build", TOUCH)
def test_keys_placed_by_the_old_fixed_row_are_off_their_labels(tmp_path, build):
    """The check above fails on the keys' old fixed row: the 2.9" screen's outer
    keys were 8.0 and 1.9 mm off their labels, the 4.2"'s 1.8 mm."""
    for name in ("body.scad", "panels.scad", f"{build}.scad"):
        shutil.copy(ENCLOSURE / name, tmp_path / name)
    source = (tmp_path / "body.scad").read_text()
    start = source.index("function button_s(b)")
    end = source.index(";", source.index("[for (k = [0:3])", start)) + 1
    (tmp_path / "body.scad").write_text(source[:start] + OLD_BUTTON_S + source[end:])
    # Every part echoes the facts; the lid is the quickest to render.
    done = render.render(tmp_path / f"{build}.scad", tmp_path / "lid.stl", "lid")
    assert done.ok, done.log
    wrong = keys_off_their_labels(done.facts)
    assert any("label's centre" in w for w in wrong), f"{build}: the old row passed"
    # The copy with its own row passes: the copying is not what fails.
    shutil.copy(ENCLOSURE / "body.scad", tmp_path / "body.scad")
    done = render.render(tmp_path / f"{build}.scad", tmp_path / "lid.stl", "lid")
    assert done.ok and not keys_off_their_labels(done.facts)


def test_a_panel_too_narrow_for_four_keys_under_it_is_refused(tmp_path):
    """A panel whose active area's quarters are closer than two keys can stand
    stops the render with the numbers (no overlapping keys are drawn)."""
    for name in ("body.scad", "panels.scad", "touch-serial.scad"):
        shutil.copy(ENCLOSURE / name, tmp_path / name)
    table = (tmp_path / "panels.scad").read_text()
    old = '["active", [66.89, 29.05]]'
    assert table.count(old) == 1
    (tmp_path / "panels.scad").write_text(table.replace(old, '["active", [50.0, 29.05]]'))
    done = render.render(tmp_path / "touch-serial.scad", tmp_path / "lid.stl", "lid")
    assert not done.ok
    assert "the active area is 50 mm wide" in done.log and "12.5 mm apart" in done.log, done.log
