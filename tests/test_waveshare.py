"""The unmodified Waveshare model classes through our HAL, checked byte by byte.

Each of the four models runs its vendor class over `PanelHal` and the emulated
controller: every refresh kind, every mounting rotation, the SPI writes per
frame (ours and the stock `epdconfig`'s), and how the vendor files are loaded.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from importlib import metadata

import pytest
from PIL import Image, ImageChops

pytest.importorskip("gpiozero", reason="gpiozero is needed for the emulated panels")
from gpiozero.pins.mock import MockFactory

from keystand.drivers.display import PanelError, Refresh
from keystand.drivers.display import waveshare as ws
from keystand.drivers.display.emulator import Fault, emulated_waveshare
from keystand.drivers.display.hal import PanelUnplugged, StockPathHal, Wiring

try:
    ws.vendor_file("epd2in7_V2")
except ws.VendorMissing as missing:
    pytest.skip(f"{missing}", allow_module_level=True)

MODELS = tuple(ws.RECIPES)  # every model whose record names a vendor file
# The models whose recipe has a probe: an init that sends an update sequence.
PROBED = [m for m, recipe in ws.RECIPES.items() if recipe.probe]
HAT = Wiring(rst=17, dc=25, busy=24, pwr=18)  # the Waveshare HAT's own pins, CE0

# SHA-256 of the four model files in upstream's waveshareteam/e-Paper (commit
# 86aa9932, March 2026), RaspberryPi_JetsonNano/python/lib/waveshare_epd/: the
# 1.4.0 wheel ships them byte for byte.
UPSTREAM_SHA256 = {
    "epd2in13_V4": "9f5df7236029898f",
    "epd2in7_V2": "171bdc77a035f749",
    "epd2in9_V2": "981f5218c2bac6c2",
    "epd4in2_V2": "5586a2811c8d4522",
    # The 1.4.0 wheel's epd4in26.py (V1.0, 2023-12-20), as its RECORD lists it; not
    # compared with upstream's repository here.
    "epd4in26": "3ddd06b19370b722",
}


@pytest.fixture
def factory():
    pins = MockFactory()
    yield pins
    pins.reset()


@pytest.fixture
def panels(factory):
    made = []

    def make(model, *, wiring=HAT, seat="A", **kwargs):
        panel, hardware = emulated_waveshare(
            model, seat=seat, wiring=wiring, pin_factory=factory, speed=0, **kwargs
        )
        made.append((panel, hardware))
        return panel, hardware

    yield make
    for panel, hardware in made:
        panel.close()
        hardware.close()


def noise(size, seed):
    """A frame of random pixels: any misplaced, mirrored or turned pixel shows."""
    rnd = random.Random(seed)
    w, h = size
    return Image.frombytes("1", size, rnd.randbytes((w + 7) // 8 * h))


def upright(panel, hardware):
    """What the glass shows, turned back to how the seat reads it."""
    shown = hardware.shown
    return shown.rotate(panel.rotation, expand=True) if panel.rotation else shown


def assert_shows(panel, hardware, image):
    seen = upright(panel, hardware)
    assert seen.size == image.size
    wrong = ImageChops.logical_xor(seen, image.convert("1"))
    assert wrong.getbbox() is None, (
        f"{panel.model.name} at {panel.rotation}°: {sum(wrong.getdata()) // 255} pixels differ"
    )


# -- loading the vendor's files ---------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_vendor_files_are_the_pinned_upstream_release(model) -> None:
    found = ws.vendor_file(model)
    assert found.version == ws.VENDOR_VERSION == "1.4.0"
    assert found.sha256.startswith(UPSTREAM_SHA256[model])
    assert found.path.name == f"{model}.py"


def test_only_the_model_files_run_and_no_hardware_library_is_imported() -> None:
    """The vendor's epdconfig.py (probes /proc/cpuinfo, loads .so files, claims pins)
    and RPi.GPIO (imported by epd4in2_V2.py) never load; neither do spidev or
    the vendor package itself."""
    code = (
        "import sys\n"
        "from gpiozero.pins.mock import MockFactory\n"
        "from PIL import Image\n"
        "from keystand.drivers.display import Refresh\n"
        "from keystand.drivers.display.hal import Wiring\n"
        "from keystand.drivers.display.emulator import emulated_waveshare\n"
        "f = MockFactory()\n"
        f"for model in {MODELS!r}:\n"
        "    f.reset()\n"
        "    p, hw = emulated_waveshare(model, seat='A', wiring=Wiring(17, 25, 24),\n"
        "                               pin_factory=f, speed=0)\n"
        "    p.display(Image.new('1', p.size, 0), Refresh.FULL)\n"
        "    assert hw.shown.getextrema() == (0, 0), model\n"
        "    p.close(); hw.close()\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in\n"
        "             ('RPi', 'spidev', 'epaper', 'waveshare_epd', 'lgpio') or 'epdconfig' in n)\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_each_panel_runs_its_own_module_bound_to_its_own_hal(panels) -> None:
    a, _ = panels("epd2in9_V2", seat="A")
    b, _ = panels("epd2in9_V2", seat="B", wiring=Wiring(rst=5, dc=6, busy=13, spi_device=1))
    assert a.module is not b.module
    assert a.module.EPD is not b.module.EPD
    assert a.module.epdconfig is a.hal and b.module.epdconfig is b.hal
    assert a.epd.WS_20_30 == b.epd.WS_20_30 and a.epd.WS_20_30 is not b.epd.WS_20_30
    assert "[A]" in a.module.__name__ and "[B]" in b.module.__name__


def test_epd4in2_imports_rpi_gpio_but_gets_a_stand_in(panels) -> None:
    panel, _ = panels("epd4in2_V2")
    with pytest.raises(AttributeError, match=r"RPi\.GPIO\.setmode: keystand does not load"):
        panel.module.GPIO.setmode  # noqa: B018 - the access is the test


class _Dist:
    """A distribution as importlib.metadata gives it, with another version or files."""

    def __init__(self, real, *, version=None, locate=None) -> None:
        self.version = version or real.version
        self.files = real.files
        if locate is not None:
            self.files = [type(f)(f.as_posix()) for f in real.files]
            for f in self.files:
                f.hash, f.dist = next(r.hash for r in real.files if r == f), self
        self._locate = locate

    def locate_file(self, path):
        return self._locate(path)


def test_another_vendor_version_is_refused(monkeypatch, tmp_path) -> None:
    real = metadata.distribution(ws.VENDOR_DISTRIBUTION)
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(real, version="1.3.0"))
    with pytest.raises(ws.VendorMissing, match=r"1\.3\.0 is installed.*against 1\.4\.0"):
        ws.vendor_file("epd2in7_V2", checked=tmp_path / "checked.json")


def test_a_missing_vendor_package_says_how_to_install_it(monkeypatch, tmp_path) -> None:
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(ws.VendorMissing, match=r"not installed.*'\.\[pi\]'") as caught:
        ws.vendor_file("epd2in7_V2", checked=tmp_path / "checked.json")
    assert isinstance(caught.value, ImportError)


def test_a_changed_vendor_file_is_refused(monkeypatch, tmp_path) -> None:
    real = metadata.distribution(ws.VENDOR_DISTRIBUTION)
    original = ws.check_vendor_file("epd2in7_V2").path
    changed = tmp_path / "epd2in7_V2.py"
    changed.write_bytes(original.read_bytes().replace(b"delay_ms(200)", b"delay_ms(20)"))
    monkeypatch.setattr(
        metadata, "distribution", lambda name: _Dist(real, locate=lambda path: changed)
    )
    with pytest.raises(ws.VendorMissing, match="unmodified: reinstall"):
        ws.vendor_file("epd2in7_V2", checked=tmp_path / "checked.json")


def _no_metadata(monkeypatch) -> list[str]:
    """importlib.metadata refusing to be asked, and the names it was asked for."""
    asked: list[str] = []

    def refuse(name):
        asked.append(name)
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", refuse)
    return asked


def test_a_passed_check_is_remembered_until_the_file_changes(monkeypatch, tmp_path) -> None:
    # The vendor's file copied, so that its times can be changed here.
    real = metadata.distribution(ws.VENDOR_DISTRIBUTION)
    copy = tmp_path / "epd2in7_V2.py"
    copy.write_bytes(ws.check_vendor_file("epd2in7_V2").path.read_bytes())
    monkeypatch.setattr(metadata, "distribution", lambda name: _Dist(real, locate=lambda p: copy))
    checked = tmp_path / "share" / "checked.json"
    first = ws.vendor_file("epd2in7_V2", checked=checked)
    assert first.path == copy and checked.exists()

    asked = _no_metadata(monkeypatch)  # a remembered check does not ask again
    assert ws.vendor_file("epd2in7_V2", checked=checked) == first
    assert asked == []

    stat = copy.stat()  # the file changed (a new time): checked again, and refused
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    with pytest.raises(ws.VendorMissing, match="not installed"):
        ws.vendor_file("epd2in7_V2", checked=checked)
    assert asked == [ws.VENDOR_DISTRIBUTION]


def test_a_check_that_cannot_be_remembered_is_made_at_every_start(monkeypatch, tmp_path) -> None:
    # A place nothing can be written to, even by root: under a plain file.
    (tmp_path / "plain").write_text("")
    checked = tmp_path / "plain" / "checked.json"
    assert ws.vendor_file("epd2in7_V2", checked=checked) == ws.check_vendor_file("epd2in7_V2")
    asked = _no_metadata(monkeypatch)
    with pytest.raises(ws.VendorMissing, match="not installed"):
        ws.vendor_file("epd2in7_V2", checked=checked)
    assert asked == [ws.VENDOR_DISTRIBUTION]


def test_two_panels_of_one_model_compile_its_file_once(panels) -> None:
    ws._vendor_code.cache_clear()
    panels("epd4in2_V2")
    panels("epd4in2_V2", seat="B", wiring=Wiring(rst=5, dc=6, busy=13, spi_device=1))
    info = ws._vendor_code.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def test_a_model_keystand_does_not_support_is_refused() -> None:
    with pytest.raises(ValueError, match="'epd7in5_V2': expected one of epd2in13_V4"):
        ws.vendor_file("epd7in5_V2")


# -- frames -----------------------------------------------------------------------------


@pytest.mark.parametrize("model", MODELS)
def test_our_buffer_is_the_vendors_getbuffer(panels, model) -> None:
    panel, _ = panels(model)
    frame = noise((panel.model.width, panel.model.height), seed=7)
    assert bytes(ws.native_buffer(frame)) == bytes(panel.epd.getbuffer(frame))


@pytest.mark.parametrize("model", MODELS)
def test_every_refresh_kind_shows_the_frame(panels, model) -> None:
    panel, hardware = panels(model)
    kinds = [Refresh.FULL, Refresh.PARTIAL, Refresh.PARTIAL, Refresh.FAST, Refresh.PARTIAL]
    for n, kind in enumerate(kinds):
        image = noise(panel.size, seed=n)
        panel.display(image, kind)
        assert_shows(panel, hardware, image)
        assert panel.last_refresh is kind
        update = hardware.updates[-1]
        # The 2.9" V2 has no fast OTP waveform to select: its fast init loads a LUT
        # from the host, which the emulator does not time apart from the full one.
        decoded = Refresh.FULL if (model, kind) == ("epd2in9_V2", Refresh.FAST) else kind
        assert update.refresh is decoded
        assert not update.stale_base
    assert panel.upgraded == 0
    assert hardware.violations == []
    assert hardware.controller.outside_ram == 0


@pytest.mark.parametrize("model", MODELS)
def test_sleep_then_wake_with_a_partial(panels, model) -> None:
    """Sleep sends deep sleep and cuts this panel's power; the next partial
    re-initialises, puts the picture on the glass back in the old-image RAM (the
    controller lost it) and draws only the difference, without a flash."""
    panel, hardware = panels(model)
    first = noise(panel.size, seed=1)
    panel.display(first, Refresh.FULL)
    panel.sleep()
    assert panel.asleep and not panel.hal.powered and not hardware.controller.powered
    assert not panel.hal.is_open
    assert_shows(panel, hardware, first)  # e-ink keeps its picture without power
    second = noise(panel.size, seed=2)
    panel.display(second, Refresh.PARTIAL)
    assert panel.last_refresh is Refresh.PARTIAL and panel.upgraded == 0
    assert hardware.updates[-1].refresh is Refresh.PARTIAL
    assert not hardware.updates[-1].stale_base
    assert_shows(panel, hardware, second)


@pytest.mark.parametrize("model", MODELS)
def test_the_emulator_catches_a_partial_without_its_old_image(panels, model) -> None:
    """The vendor's partial straight after a power cut and init (nothing in RAM
    0x26): the emulated glass shows what a real one would, not the frame."""
    panel, hardware = panels(model)
    panel.display(noise(panel.size, seed=1), Refresh.FULL)
    panel.sleep()
    frame = noise((panel.model.width, panel.model.height), seed=2)
    panel.epd.init()
    buffer = ws.native_buffer(frame)
    if panel.recipe.partial_takes_window:
        getattr(panel.epd, panel.recipe.partial)(buffer, 0, 0, panel.epd.width, panel.epd.height)
    else:
        getattr(panel.epd, panel.recipe.partial)(buffer)
    assert hardware.updates[-1].stale_base
    assert hardware.shown.tobytes() != frame.tobytes()


@pytest.mark.parametrize("model", MODELS)
def test_a_partial_with_nothing_on_the_glass_is_a_full_refresh(panels, model) -> None:
    panel, hardware = panels(model)
    image = noise(panel.size, seed=3)
    panel.display(image, Refresh.PARTIAL)
    assert panel.last_refresh is Refresh.FULL and panel.upgraded == 1
    assert hardware.updates[-1].refresh is Refresh.FULL
    assert_shows(panel, hardware, image)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
@pytest.mark.parametrize("model", MODELS)
def test_every_mounting_rotation(panels, model, rotation) -> None:
    panel, hardware = panels(model, rotation=rotation)
    assert panel.size == (
        (panel.model.width, panel.model.height)
        if rotation in (0, 180)
        else (panel.model.height, panel.model.width)
    )
    for kind, seed in ((Refresh.FULL, 10), (Refresh.PARTIAL, 11)):
        image = noise(panel.size, seed=seed + rotation)
        panel.display(image, kind)
        assert_shows(panel, hardware, image)


def test_a_wrong_sized_image_is_refused_before_any_byte_is_sent(panels) -> None:
    panel, hardware = panels("epd2in7_V2", rotation=90)
    with pytest.raises(PanelError, match="image is 176x264, expected 264x176"):
        panel.display(Image.new("1", (176, 264), 1))
    assert hardware.write_count == 0


def test_a_vendor_failure_becomes_a_panel_error_and_the_next_frame_is_full(
    panels, monkeypatch
) -> None:
    panel, hardware = panels("epd2in7_V2")
    panel.display(noise(panel.size, seed=1), Refresh.FULL)

    def broken(image):
        raise ZeroDivisionError("in the vendor")

    monkeypatch.setattr(panel.epd, "display_Partial", broken)
    with pytest.raises(PanelError, match=r"seat A \(epd2in7_V2\): partial refresh failed"):
        panel.display(noise(panel.size, seed=2), Refresh.PARTIAL)
    monkeypatch.undo()
    image = noise(panel.size, seed=3)
    panel.display(image, Refresh.PARTIAL)
    assert panel.last_refresh is Refresh.FULL
    assert_shows(panel, hardware, image)


def up_by(frame, rows):
    """A native frame's bytes turned up by `rows` rows (its first rows last)."""
    data = frame.tobytes()
    cut = rows * ((frame.width + 7) // 8)
    return data[cut:] + data[:cut]


def test_a_rolling_recipe_hands_the_vendor_the_frame_a_row_down(panels) -> None:
    """The 4.26"'s recipe: what the vendor gets is the frame rolled down one row (so
    its cursor's one-row slip puts each row where it was drawn), and the emulated
    glass shows the frame as drawn."""
    panel, hardware = panels("epd4in26")
    frame = noise(panel.size, seed=5)
    panel.display(frame, Refresh.FULL)
    sent = b"".join(w.data for w in hardware.writes if w.dc and len(w.data) == 48000)
    assert sent[:48000] == ws.rolled(bytearray(frame.tobytes()), 100, 1)
    assert sent[:100] == frame.tobytes()[-100:]  # the last row first
    assert_shows(panel, hardware, frame)


# -- SPI writes per frame ---------------------------------------------------------------

# Writes per Panel.display() with our HAL (one per command byte, one per run of
# data bytes), and the SPI calls the stock epdconfig makes for the same vendor
# calls (one per send_data byte, one per send_data2 list). Full is init plus the
# model's both-RAMs display; fast is the fast init plus the fast display (plus
# RAM 0x26 for the 2.13" and 2.7", whose fast display writes only 0x24); partial
# is the model's partial method while the panel is awake.
WRITES = {
    "epd2in13_V4": {Refresh.FULL: (26, 34), Refresh.FAST: (28, 34), Refresh.PARTIAL: (19, 26)},
    "epd2in7_V2": {
        Refresh.FULL: (14, 11632),
        Refresh.FAST: (25, 11644),
        Refresh.PARTIAL: (15, 5827),
    },
    "epd2in9_V2": {Refresh.FULL: (32, 194), Refresh.FAST: (34, 196), Refresh.PARTIAL: (30, 198)},
    "epd4in2_V2": {Refresh.FULL: (22, 28), Refresh.FAST: (27, 33), Refresh.PARTIAL: (19, 25)},
    "epd4in26": {Refresh.FULL: (26, 40), Refresh.FAST: (31, 45), Refresh.PARTIAL: (21, 30)},
}
# The vendor's own figures for one plain display() call (hardware-facts.md):
# the 2.7" V2 sends its 5,808-byte frame one SPI call per byte; through keystand
# (`ByteRuns`) it hands the frame over in one call, as the others do.
STOCK_DISPLAY = {
    "epd2in13_V4": 5,
    "epd2in7_V2": 5812,
    "epd2in9_V2": 5,
    "epd4in2_V2": 7,
    "epd4in26": 5,
}
OUR_DISPLAY = {"epd2in13_V4": 5, "epd2in7_V2": 5, "epd2in9_V2": 5, "epd4in2_V2": 7, "epd4in26": 5}


def assert_protocol_floor(writes) -> None:
    """One write per command byte and one per run of data bytes: never two data
    writes in a row, never a command write of more than one byte."""
    for before, after in itertools.pairwise(writes):
        assert not (before.dc and after.dc), "two data writes in a row"
    assert all(w.dc or len(w.data) == 1 for w in writes)


@pytest.mark.parametrize("model", MODELS)
def test_spi_writes_per_frame(panels, model) -> None:
    (panel, hardware), (stock_panel, stock_hw) = both_paths(panels, model)
    # The first frame (FULL) also wakes the panel; PARTIAL runs awake after it.
    for n, kind in enumerate([Refresh.FULL, Refresh.PARTIAL, Refresh.FAST]):
        before, stock_before = hardware.write_count, stock_hw.write_count
        frame = noise(panel.size, seed=n)
        panel.display(frame, kind)
        stock_panel.display(frame, kind)
        ours = hardware.write_count - before
        stock = stock_hw.write_count - stock_before
        assert (ours, stock) == WRITES[model][kind], kind
        frame_writes = hardware.writes[before:]
        assert_protocol_floor(frame_writes)
        commands = sum(not w.dc for w in frame_writes)
        assert ours == commands + sum(w.dc for w in frame_writes)
    assert panel.hal.counts.spi_writes == hardware.write_count


@pytest.mark.parametrize("model", MODELS)
def test_the_vendors_plain_display_call(panels, model) -> None:
    paths = zip(both_paths(panels, model), (OUR_DISPLAY, STOCK_DISPLAY), strict=True)
    for (panel, hardware), calls in paths:
        panel.display(noise(panel.size, seed=0), Refresh.FULL)
        frame = noise((panel.model.width, panel.model.height), seed=1)
        before, calls_before = hardware.write_count, panel.hal.counts.vendor_calls
        panel.epd.display(ws.native_buffer(frame))
        panel.hal.flush()
        assert panel.hal.counts.vendor_calls - calls_before == calls[model]
        # 0x24, its data, 0x22, its option byte, 0x20 (the 4.2" V2 also writes 0x26),
        # through our HAL; the stock one writes each call.
        expected = 7 if model == "epd4in2_V2" else 5
        if calls is STOCK_DISPLAY:
            expected = calls[model]
        assert hardware.write_count - before == expected
        # The vendor's buffer as it is: a recipe that rolls the frame shows why
        # (the 4.26"'s first row lands on the glass's last, the rest a row up).
        assert hardware.shown.tobytes() == up_by(frame, ws.RECIPES[model].roll_rows)


@pytest.mark.parametrize("model", MODELS)
def test_a_probe_wakes_the_controller_without_drawing(panels, model) -> None:
    panel, hardware = panels(model)
    image = noise(panel.size, seed=4)
    panel.display(image, Refresh.FULL)
    draws = hardware.controller.draws
    checked = panel.probe()
    # The 2.9" V2's inits send no update sequence, so BUSY has nothing to answer.
    assert checked is (model != "epd2in9_V2")
    assert hardware.controller.draws == draws
    assert_shows(panel, hardware, image)
    following = noise(panel.size, seed=5)
    panel.display(following, Refresh.PARTIAL)
    assert panel.last_refresh is Refresh.PARTIAL
    assert_shows(panel, hardware, following)


@pytest.mark.parametrize("model", PROBED)
def test_a_probe_finds_an_unplugged_panel(panels, model) -> None:
    panel, _ = panels(model, fault=Fault.UNPLUGGED, rise_timeout=0.05)
    with pytest.raises(PanelUnplugged, match=rf"seat A \({model}\): BUSY on GPIO24 never"):
        panel.probe()


# -- whole buffers: the same bytes as the vendor's own loops -------------------------------


def stream(writes) -> list[tuple[bool, int]]:
    """The bytes the controller received, each with DC's level: what a write's
    chunking cannot change."""
    return [(w.dc, byte) for w in writes for byte in w.data]


def both_paths(panels, model):
    """The panel as keystand drives it, and the vendor's stock path (its own frame
    loops, the stock epdconfig's traffic), each over its own emulated controller."""
    ours = panels(model, seat="A")
    stock = panels(
        model,
        seat="B",
        wiring=Wiring(rst=5, dc=6, busy=13, spi_device=1),
        hal_class=StockPathHal,
        whole_buffers=False,
    )
    return ours, stock


@pytest.mark.parametrize("model", MODELS)
def test_whole_buffers_send_the_vendors_byte_stream(panels, model) -> None:
    """Full, partial and fast frames (and a partial after a fast one, which writes
    the old image): the same commands and data bytes, in the same order, as the
    vendor's stock path, with the frame data reaching the HAL in a few calls."""
    (panel, hardware), (stock, stock_hw) = both_paths(panels, model)
    kinds = [Refresh.FULL, Refresh.PARTIAL, Refresh.FAST, Refresh.PARTIAL, Refresh.FULL]
    for n, kind in enumerate(kinds):
        frame = noise(panel.size, seed=10 + n)
        before, stock_before = len(hardware.writes), len(stock_hw.writes)
        calls = panel.hal.counts.vendor_calls
        panel.display(frame, kind)
        stock.display(frame, kind)
        ours = stream(hardware.writes[before:])
        theirs = stream(stock_hw.writes[stock_before:])
        assert len(ours) > panel.model.width * panel.model.height // 8, kind
        assert ours == theirs, f"{model} {kind.value}: the byte streams differ"
        # Not one call a byte: the frame in a call or two, the 2.9"'s waveform in
        # one (the inits' own bytes still go as the vendor writes them).
        assert panel.hal.counts.vendor_calls - calls < len(ours) // 20, kind
        assert_shows(panel, hardware, frame)


LONGEST_PARAMETERS = 16  # bytes after one command but a frame or a LUT (0x37's: 10)


@pytest.mark.parametrize("model", MODELS)
def test_a_partial_refresh_hands_no_run_over_a_byte_at_a_time(panels, model) -> None:
    """A touch's partial refresh: every run of data bytes longer than a command's
    parameter list (a frame, the 2.9"'s 153-byte waveform before each partial)
    reaches the HAL in one vendor SPI call, where the stock path makes one a byte."""
    (panel, hardware), (stock, _) = both_paths(panels, model)
    for path in (panel, stock):
        path.display(noise(panel.size, seed=20), Refresh.FULL)
    frame = noise(panel.size, seed=21)
    calls, stock_calls = panel.hal.counts.vendor_calls, stock.hal.counts.vendor_calls
    before = len(hardware.writes)
    panel.display(frame, Refresh.PARTIAL)
    stock.display(frame, Refresh.PARTIAL)
    ours = panel.hal.counts.vendor_calls - calls
    writes = hardware.writes[before:]
    runs = [w for w in writes if w.dc and len(w.data) > LONGEST_PARAMETERS]
    assert runs, "a partial sends its frame"
    # One call a run; the commands and short parameter lists byte by byte, as the
    # vendor writes them.
    short = sum(len(w.data) for w in writes if w not in runs)
    assert ours <= len(runs) + short, f"{model}: {ours} vendor calls"
    assert ours <= stock.hal.counts.vendor_calls - stock_calls


@pytest.mark.parametrize(
    "window", [(0, 0, 176, 264), (8, 16, 96, 200), (3, 5, 77, 90), (0, 1, 176, 263), (9, 0, 15, 8)]
)
def test_a_bytewise_models_partial_window_sends_the_vendors_bytes(panels, window) -> None:
    """The 2.7" V2's display_Partial takes a window: the vendor's own arithmetic for
    it (byte columns, its operator precedence), checked on windows on and off byte
    boundaries."""
    (panel, hardware), (stock, stock_hw) = both_paths(panels, "epd2in7_V2")
    frame = ws.native_buffer(noise((panel.model.width, panel.model.height), seed=3))
    for epd, hal, hw in ((panel.epd, panel.hal, hardware), (stock.epd, stock.hal, stock_hw)):
        epd.init()
        hal.flush()  # the init's last data byte waits in our HAL for the next command
        before = len(hw.writes)
        epd.display_Partial(frame, *window)
        epd.writes_seen = stream(hw.writes[before:])
    assert panel.epd.writes_seen == stock.epd.writes_seen
    assert any(dc for dc, _ in panel.epd.writes_seen)
