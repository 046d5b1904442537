"""One record per panel model (keystand.panel_models): every other table keyed by
a model's name is derived from it, and a model no driver can build is refused in
one line by `profile check`, `doctor` and `run --emulate`."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from keystand import cli, profile, render
from keystand.doctor import Machine, diagnose
from keystand.drivers import factory
from keystand.drivers.display import MODELS, TIMINGS
from keystand.drivers.display.emulator import CHIPS, CONTROLLERS
from keystand.drivers.display.timing import ESTIMATED, RESET_WAIT
from keystand.drivers.display.waveshare import RECIPES
from keystand.layouts import panel
from keystand.layouts import panels as layout_panels
from keystand.panel_models import NEEDS, PANELS, Timing, buildable, refusal

PI = """
[stand]
driver = "{driver}"
[panels]
model = "{model}"
rotation = 0
[panels.B]
spi_device = 1
rst = 22
dc = 23
busy = 27
pwr = -1
[input]
kinds = ["keyboard"]
"""


def test_every_drivers_table_is_the_records() -> None:
    assert MODELS is PANELS
    assert {name: m.timing for name, m in PANELS.items()} == TIMINGS
    assert {name: m.reset_wait for name, m in PANELS.items()} == RESET_WAIT
    assert {name: m.vendor for name, m in PANELS.items() if m.vendor} == RECIPES
    assert {name: spec.name for name, spec in CONTROLLERS.items()} == {
        name: m.controller for name, m in PANELS.items() if m.controller in CHIPS
    }
    # Each estimate is the record's own word, with how it was made.
    assert {(name, kind) for name, m in PANELS.items() for kind in m.timing.estimates} == ESTIMATED


def test_every_host_and_layout_table_is_the_records() -> None:
    assert profile.PANEL_MODELS == render.PANEL_NAMES == layout_panels.MODELS == tuple(PANELS)
    for name, m in PANELS.items():
        assert layout_panels.NATIVE[name] == (m.width, m.height, m.diagonal)
        assert layout_panels.ACTIVE_AREA_MM[name] == m.active_mm
        assert layout_panels.pixel_mm(name) == m.active_mm[0] / max(m.width, m.height)


@pytest.mark.parametrize("name", PANELS)
def test_each_record_is_whole(name: str) -> None:
    """Every shipped model: a cited active area whose pixels are square (both sides
    agree within 1 %), refresh figures, a vendor file with its recipe, a controller
    the emulator plays, and a landscape style of its own in the layouts."""
    m = PANELS[name]
    long_side, short_side = m.landscape
    assert m.active_source and "mm" in m.active_source
    assert abs(m.active_mm[1] / short_side - m.pixel_mm) / m.pixel_mm < 0.01
    assert 0 < m.timing.partial <= m.timing.fast <= m.timing.full
    assert m.timing.source  # where the figures are from; an estimate says how it was made
    assert all(how.strip() for how in m.timing.estimates.values())
    assert 0 < m.reset_wait <= 0.2
    assert m.vendor is not None and m.vendor.module
    assert m.controller in CHIPS
    assert panel(name).size == (long_side, short_side)
    assert name in layout_panels._STYLES  # its styles: the one table beside the record


def test_the_needs_name_every_panel_driver() -> None:
    assert set(NEEDS) == set(factory.PANELS)
    assert buildable("sim") == buildable("waveshare") == tuple(PANELS)


def test_an_estimated_kind_must_be_a_refresh_kind_and_say_how() -> None:
    with pytest.raises(ValueError, match=r"estimated \['slow'\]: expected refresh kinds"):
        Timing(1.0, 1.0, 0.3, source="wiki", estimates={"slow": "a guess"})
    with pytest.raises(ValueError, match=r"estimated \['fast'\]: say how each figure"):
        Timing(1.0, 1.0, 0.3, source="wiki", estimates={"fast": " "})
    assert Timing(1.0, 0.5, 0.3, source="wiki", estimates={"fast": "half"}).estimated == {"fast"}


@pytest.fixture
def sim_only(monkeypatch: pytest.MonkeyPatch) -> str:
    """A record with no vendor file: the simulated panel builds it, Waveshare's cannot."""
    name = "epd_sim_only"
    monkeypatch.setitem(PANELS, name, replace(PANELS["epd2in7_V2"], name=name, vendor=None))
    return name


def test_refusal_names_what_the_driver_lacks(sim_only: str) -> None:
    assert refusal("sim", sim_only) is None
    said = refusal("waveshare", sim_only)
    assert said == (
        f"panel model {sim_only!r} has no vendor in its record: the waveshare driver cannot "
        f"build it (it builds {', '.join(RECIPES)})"
    )
    assert refusal("waveshare", "epd7in5_V2") == (
        f"panel model 'epd7in5_V2': expected one of {', '.join(PANELS)}"
    )


def test_profile_check_refuses_a_model_the_driver_cannot_build(
    sim_only: str, tmp_path: Path
) -> None:
    path = tmp_path / "pi.toml"
    path.write_text(PI.format(driver="waveshare", model=sim_only))
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["profile", "check", str(path)], out=out, err=err) == 1
    said = out.getvalue().splitlines()
    assert said == [f"{path}: panels.A.model: {refusal('waveshare', sim_only)}"]
    path.write_text(PI.format(driver="sim", model=sim_only))
    assert profile.load(str(path)).panels["A"].model == sim_only


def test_doctor_refuses_it_in_its_profile_line(sim_only: str, tmp_path: Path) -> None:
    path = tmp_path / "pi.toml"
    path.write_text(PI.format(driver="waveshare", model=sim_only))
    checks = list(diagnose(str(path), Machine(vendor_file=lambda model: None)))
    assert [(c.name, c.ok) for c in checks] == [("profile", False), ("vendor package", True)]
    assert checks[0].detail == f"{path}: panels.A.model: {refusal('waveshare', sim_only)}"


def test_run_emulate_refuses_a_controller_it_does_not_play_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    name = "epd_other_chip"
    monkeypatch.setitem(PANELS, name, replace(PANELS["epd2in7_V2"], name=name, controller="UC8179"))
    path = tmp_path / "pi.toml"
    path.write_text(PI.format(driver="waveshare", model=name))
    script = tmp_path / "game.txt"
    script.write_text("clue A\n")
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", "--profile", str(path), "--emulate", str(tmp_path / "out"), "--script"]
    argv += [str(script), "--state-dir", str(tmp_path / "state"), "--speed", "0"]
    assert cli.main(argv, out=out, err=err) == 2
    said = err.getvalue().strip().splitlines()
    assert len(said) == 1, said
    assert f"panel model {name!r}: its controller UC8179 is not one the emulator plays" in said[0]
    assert f"emulated models: {', '.join(CONTROLLERS)})" in said[0]
