"""The shipped real builds run: `keystand run --profile minimal --emulate DIR`
drives both 2.7" V2 HATs' real drivers over emulated controllers, and each
seat's controller ends showing the last picture the stand handed its panel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from keystand.drivers.display.emulator import replay
from keystand.profile import load

CODE = "5VHK-ZHXC-WE7S"
GAME = "clue A\ntouch 0 0\nwait 50\ntouch 1 1\nwait 50\npass B\nclue B\ntouch 4 4\n"
README = Path(__file__).resolve().parent.parent / "hardware" / "README.md"


@pytest.mark.parametrize("build", ["minimal", "touch-mpr121", "touch-serial", "touch-mpr121-4in26"])
def test_a_scripted_game_on_a_shipped_build_ends_on_each_seats_last_picture(
    tmp_path: Path, build: str
) -> None:
    script = tmp_path / "game.txt"
    script.write_text(GAME)
    out = tmp_path / "out"
    # The build's own inputs (keys, a grid) give way to --script: the run ends with it.
    done = subprocess.run(
        [
            sys.executable, "-m", "keystand", "run", "--profile", build, "--emulate", str(out),
            "--script", str(script), "--card-code", CODE, "--speed", "0.01",
            "--state-dir", str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    profile = load(build)
    for seat, panel in profile.panels.items():
        pngs = sorted(out.glob(f"{seat}-[0-9][0-9][0-9][0-9].png"))
        assert len(pngs) >= 2, seat  # the game's frames, then the neutral picture
        updates = replay((out / f"{seat}.spi").read_text().splitlines(), panel.model)
        assert len(updates) == len(pngs)
        with Image.open(pngs[-1]) as last:
            sent = last.convert("1")
        final = updates[-1].image.rotate(panel.rotation, expand=True)
        assert final.size == sent.size and final.tobytes() == sent.tobytes(), seat
        assert f"seat {seat}: {len(pngs)} frames; the controller shows {pngs[-1].name}" in (
            done.stderr
        )


def test_the_readme_wiring_tables_are_the_profiles() -> None:
    """Each build's table row `| use | GPIO | pin |` is in hardware/README.md."""
    from keystand import pins

    text = README.read_text()
    for build in ("minimal", "touch-mpr121", "touch-serial"):
        section = text.split(f"<!-- wiring: {build} -->")[1].split("<!-- end -->")[0]
        rows = {
            tuple(cell.strip() for cell in line.strip("|").split("|")[:3])
            for line in section.splitlines()
            if line.startswith("|")
        }
        for use in pins.check(load(build)):
            assert (use.what, str(use.pin), str(pins.HEADER_PIN[use.pin])) in rows, (build, use)


def test_a_real_build_off_a_pi_is_refused_in_one_line(tmp_path: Path) -> None:
    """Without --emulate a desktop has no GPIO for the real drivers: one line,
    pointing at doctor, no traceback, exit 6."""
    if Path("/proc/device-tree/model").exists():
        pytest.skip("this machine may have real GPIO")
    script = tmp_path / "game.txt"
    script.write_text("clue A\n")
    done = subprocess.run(
        [
            sys.executable, "-m", "keystand", "run", "--profile", "minimal", "--script",
            str(script), "--state-dir", str(tmp_path / "state"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 6  # the machine lacks the hardware: systemd does not retry
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("keystand run: seat A (epd2in7_V2): cannot claim GPIO17 for RST")
    assert last.endswith("(keystand doctor --profile minimal says what to fix)")
