"""`keystand run --emulate DIR`: a Pi profile's real drivers (the unmodified
Waveshare code through our HAL) over emulated controllers and MockFactory pins.
A scripted game ends where `keystand play` says, and every frame decodes, from
the transfer log on disk, to the image the stand handed the panel."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from command import keystand
from PIL import Image

from keystand.drivers.display.emulator import replay

CODE = "5VHK-ZHXC-WE7S"
GAME = "clue A\ntouch 0 0\nwait 50\ntouch 1 1\nwait 50\npass B\nclue B\ntouch 4 4\nundo\n"
# Two 2.7" V2 panels: A as the HAT has it, B on CE1 and other pins, mixed mountings.
PROFILE = """
[stand]
driver = "waveshare"
[panels]
model = "epd2in7_V2"
rotation = 90
[panels.B]
model = "epd2in9_V2"
rotation = 270
spi_device = 1
rst = 16
dc = 20
busy = 21
pwr = -1
[input]
kinds = []
"""


@pytest.fixture
def pi_profile(tmp_path: Path) -> Path:
    path = tmp_path / "pi.toml"
    path.write_text(PROFILE)
    return path


def emulate(tmp_path: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    return keystand(
        "run",
        "--profile",
        profile,
        "--emulate",
        tmp_path / "out",
        "--script",
        script,
        "--card-code",
        CODE,
        "--speed",
        "0.01",
        "--state-dir",
        tmp_path / "state",
        *extra,
    )


def test_a_scripted_game_through_the_real_drivers_ends_where_play_says(
    tmp_path: Path, pi_profile: Path
) -> None:
    done = emulate(tmp_path, pi_profile)
    assert done.returncode == 0, done.stderr
    ran = json.loads(keystand("state", "--state-dir", tmp_path / "state", "--json").stdout)
    script = tmp_path / "game.txt"
    script.write_text(GAME.replace("wait 50\n", ""))
    played = json.loads(keystand("play", "--card-code", CODE, "--script", script, "--json").stdout)
    assert ran == {**played, "rejected": []}

    out = tmp_path / "out"
    for seat, model, rotation in (("A", "epd2in7_V2", 90), ("B", "epd2in9_V2", 270)):
        pngs = sorted(out.glob(f"{seat}-[0-9][0-9][0-9][0-9].png"))
        assert pngs and pngs[0].name == f"{seat}-0001.png"
        lines = (out / f"{seat}.spi").read_text().splitlines()
        assert all(line[:2] in ("C ", "D ") for line in lines)
        assert all(line == line.lower() or line.startswith(("C ", "D ")) for line in lines)
        decoded = replay(lines, model)
        assert len(decoded) == len(pngs), seat  # one display update per frame handed over
        for update, png in zip(decoded, pngs, strict=True):
            with Image.open(png) as sent:
                upright = update.image.rotate(rotation, expand=True)
                assert upright.tobytes() == sent.convert("1").tobytes(), f"{png.name}"
        assert (
            f"seat {seat}: {len(pngs)} frames; the controller shows {pngs[-1].name} pixel for "
            "pixel" in done.stderr
        )


def test_a_stuck_panel_is_one_seats_fault_not_the_stands(tmp_path: Path, pi_profile: Path) -> None:
    """BUSY stuck on A from its second refresh: the error is reported, the game
    goes on (every event taken), B keeps refreshing."""
    done = emulate(tmp_path, pi_profile, "--emulate-fault", "A:busy-stuck")
    assert done.returncode == 0, done.stderr
    assert "panel A" in done.stderr and "BUSY" in done.stderr
    ran = json.loads(keystand("state", "--state-dir", tmp_path / "state", "--json").stdout)
    assert ran["clue_giver"] is not None or ran["covered"] or ran["misses"]["B"]
    b_frames = sorted((tmp_path / "out").glob("B-[0-9]*.png"))
    assert len(b_frames) >= 3
    assert "seat B:" in done.stderr and "pixel for pixel" in done.stderr.split("seat B:")[1]


def test_an_unplugged_panel_holds_the_game_before_its_seat_needs_its_side(
    tmp_path: Path, pi_profile: Path
) -> None:
    """`--emulate-fault B:unplugged` (issue 31, item 7): B's clue (by its key, or by
    A's first touch) and A's undo, which B would have to confirm, are held; A's
    screen, decoded from the bytes on its wire, names the partner's panel, what to
    check, and keeps the last input. (The in-process test in test_panel_hold.py
    plugs the panel back and sees play go on; a run cannot.)"""
    from keystand.games import Context
    from keystand.games.duet import views
    from keystand.layouts import panel, render
    from keystand.rules import Card, Seat, parse_event
    from keystand.rules.duet import Duet

    # The wait lets the stand find B's fault (its first frame fails within a second)
    # before B's clue comes: a run has no line that waits for a fault.
    held = "press B clue\ntouch 0 1\npress A undo\n"
    script = tmp_path / "game.txt"
    script.write_text("clue A\ntouch 0 0\nwait 50\npass B\nwait 5000\n" + held)
    out, log = tmp_path / "out", tmp_path / "shown.log"
    done = keystand(
        "run", "--profile", pi_profile, "--emulate", out, "--script", script,
        "--card-code", CODE, "--speed", "0.01", "--state-dir", tmp_path / "state",
        "--emulate-fault", "B:unplugged", "--shown-log", log,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for line in ("clue B: held, panel B fails", "touch 0 1: held", "undo A: held"):
        assert line in done.stderr
    ran = json.loads(keystand("state", "--state-dir", tmp_path / "state", "--json").stdout)
    assert (ran["phase"], ran["clue_giver"], ran["covered"], ran["passes"]) == (
        "awaiting_clue",
        "B",
        [0],
        1,
    )
    state = Duet.start(Card.from_code(CODE))
    for text in ("clue A", "touch 0 0", "pass B"):
        state, _ = state.apply(parse_event(text))
    want = render(
        views.for_seat(state, Seat.A, Context(partner_panel_failed=True)),
        panel("epd2in7_V2", 90),
    )
    # The frame files count every image on A's glass, a quiet moment's clearing
    # (the same picture again) too; the shown log counts new frames only.
    frames = []
    for path in sorted(out.glob("A-[0-9][0-9][0-9][0-9].png")):
        with Image.open(path) as image:
            frames.append(image.convert("1").tobytes())
    held = [n for n, frame in enumerate(frames) if frame == want.convert("1").tobytes()]
    assert held, "A never showed the held game"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--profile", "desktop", "--emulate", "{out}"], "simulated panels (try --profile"),
        (["--emulate", "{out}", "--emulate-fault", "C:melted"], "--emulate-fault 'C:melted'"),
        (["--emulate-fault", "A:busy-stuck"], "--emulate-fault needs --emulate DIR"),
    ],
)
def test_emulate_mistakes_are_one_line(
    tmp_path: Path, pi_profile: Path, args: list[str], says: str
) -> None:
    script = tmp_path / "s.txt"
    script.write_text("clue A\n")
    filled = [a.format(out=tmp_path / "out") for a in args]
    if "--profile" not in filled:
        filled = ["--profile", str(pi_profile), *filled]
    done = keystand("run", *filled, "--script", script, "--state-dir", tmp_path / "st")
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_profiles_reset_wait_reaches_each_panels_hal(tmp_path: Path) -> None:
    """The datasheet's reset wait by default (20 ms, then BUSY), `[panels] reset_wait`
    another, `vendor_reset = true` the vendor's own waits (None in the HAL); a game
    played with the fallback still ends where `play` says, every frame decoded."""
    from keystand.drivers.display.timing import RESET_WAIT
    from keystand.profile import load
    from keystand.rules import Seat
    from keystand.run import Emulation, _panels

    def waits(extra: str, name: str) -> dict[Seat, float | None]:
        path = tmp_path / f"{name}.toml"
        path.write_text(PROFILE.replace("[panels]\n", f"[panels]\n{extra}", 1))
        (tmp_path / name).mkdir()
        emulation = Emulation(tmp_path / name, {})
        panels = _panels(load(str(path)), 0, emulation, tmp_path)
        try:
            return {seat: panel.hal.reset_wait for seat, panel in panels.items()}
        finally:
            emulation.close()

    assert RESET_WAIT["epd2in7_V2"] == 0.02
    assert waits("", "default") == {Seat.A: 0.02, Seat.B: 0.02}
    assert waits("reset_wait = 0.05\n", "longer") == {Seat.A: 0.05, Seat.B: 0.05}
    assert waits("vendor_reset = true\n", "vendor") == {Seat.A: None, Seat.B: None}
    path = tmp_path / "vendor.toml"
    done = emulate(tmp_path, path)
    assert done.returncode == 0, done.stderr
    for seat in "AB":
        assert f"seat {seat}: " in done.stderr and "pixel for pixel" in done.stderr
    ran = json.loads(keystand("state", "--state-dir", tmp_path / "state", "--json").stdout)
    script = tmp_path / "game.txt"
    script.write_text(GAME.replace("wait 50\n", ""))
    played = json.loads(keystand("play", "--card-code", CODE, "--script", script, "--json").stdout)
    assert ran == {**played, "rejected": []}


def test_a_folder_of_an_earlier_run_is_this_runs_own(tmp_path: Path, pi_profile: Path) -> None:
    """Into a folder an earlier run (or another build) left: its frames, logs and
    grid link are removed first, so the summary counts and compares this run's
    frames only; every other file in the folder is kept byte for byte."""
    out = tmp_path / "out"
    out.mkdir()
    old = Image.new("1", (8, 8), 1)
    for name in ("A-0001.png", "A-0099.png", "B-0042.png"):
        old.save(out / name)
    (out / "A.spi").write_text("C 12\n")
    (out / "grid-tty").symlink_to("/dev/null")
    kept = {"notes.txt": b"mine\n", "A-0001.png.bak": b"x", "C.spi": b"y", "A-12.png": b"z"}
    for name, data in kept.items():
        (out / name).write_bytes(data)

    done = emulate(tmp_path, pi_profile)
    assert done.returncode == 0, done.stderr
    assert f"5 files of an earlier run in {out} were removed at the start" in done.stderr
    for name, data in kept.items():
        assert (out / name).read_bytes() == data
    assert not (out / "grid-tty").exists()
    for seat in "AB":
        pngs = sorted(out.glob(f"{seat}-[0-9][0-9][0-9][0-9].png"))
        assert pngs[0].name == f"{seat}-0001.png" and len(pngs) < 42
        assert (
            f"seat {seat}: {len(pngs)} frames; the controller shows {pngs[-1].name} pixel for "
            "pixel" in done.stderr
        )
