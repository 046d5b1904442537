"""The hardware READMEs: hardware/README.md's pads mat (its profile form loads
as the touch-mpr121 build's profile, the parts list counts its three chips),
and grid-firmware/README.md's `cat /dev/ttyACM0` once the stand is installed."""

from __future__ import annotations

import re
from pathlib import Path

from keystand.drivers.inputs.mpr121 import electrode_map
from keystand.inputkinds.mpr121 import Mpr121
from keystand.profile import load

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "hardware" / "README.md"


def pads_example() -> str:
    found = re.search(r"<!-- profile: mpr121 pads -->\n```toml\n(.*?)```", README.read_text(), re.S)
    assert found, "hardware/README.md shows the pads form under its marker"
    return found.group(1)


def test_the_readmes_pads_form_loads_as_the_touch_mpr121_profile(tmp_path: Path) -> None:
    shipped = (ROOT / "hardware" / "touch-mpr121.toml").read_text()
    head, _, _ = shipped.partition("[input.mpr121]")
    path = tmp_path / "pads.toml"
    path.write_text(head + pads_example())
    mpr121 = load(str(path)).input.table("mpr121")
    assert isinstance(mpr121, Mpr121) and set(mpr121.electrodes) == {"pads"}
    pads = electrode_map(mpr121.electrodes)
    assert pads.addresses == (0x5A, 0x5B, 0x5C)
    cells = [c for address in pads.addresses for c in pads.cells_of(address)]
    assert sorted(cells) == [(r, c) for r in range(5) for c in range(5)]


def test_the_parts_list_counts_three_mpr121s_for_the_pads_mat() -> None:
    (row,) = [line for line in README.read_text().splitlines() if "| MPR121 breakout" in line]
    assert "3 for the pads mat" in row and "| 1 (3) | 1 (3) |" in row


def test_reading_the_grids_port_on_an_installed_stand_stops_the_service_first() -> None:
    """The stand holds /dev/ttyACM0: a `cat` beside it gets part of the bytes."""
    text = (ROOT / "hardware" / "grid-firmware" / "README.md").read_text()
    sections = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    for name in ("The mat", "Updating (maintenance mode)"):
        said = " ".join(sections[name].split())
        assert "cat /dev/ttyACM0" in said, name
        assert said.index("sudo systemctl stop keystand") < said.rindex("cat /dev/ttyACM0"), name
