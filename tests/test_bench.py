"""`make bench` on the tiniest input, so it cannot rot: every figure is produced
(how fast is never asserted), and the counts that do not depend on the machine
are: SPI writes per frame, refreshes per game, full refreshes in front of a touch."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from keystand.drivers.display import waveshare as ws

ROOT = Path(__file__).resolve().parent.parent

try:
    ws.vendor_file("epd2in7_V2")
except ws.VendorMissing as missing:
    pytest.skip(f"{missing}", allow_module_level=True)

MODEL_KEYS = {
    "partial_refresh_ms",
    "touch_to_visible_p99_ms",
    "touch_to_visible_median_ms",
    "burst_last_visible_ms",
    "naive_median_ms",
    "speedup_vs_naive_median",
    "spi_writes_full_frame",
    "vendor_spi_writes_full_frame",
    "full_refreshes_per_game",
    "full_refreshes_before_a_touch_result",
    "panel_and_queue",
    "software",
    "per_game",
    "naive_per_game",
    "frames",
    "render",
}
# Our HAL's writes for a full frame (tests/test_waveshare.py checks them byte by
# byte) and the stock epdconfig's for the same vendor calls.
FULL_FRAME = {
    "epd2in13_V4": (26, 34),
    "epd2in7_V2": (14, 11632),
    "epd2in9_V2": (32, 194),
    "epd4in2_V2": (22, 28),
}


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("bench")
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--tiny",
            "--markdown",
            str(out / "BENCHMARKS.md"),
            "--json",
            str(out / "results.json"),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return json.loads((out / "results.json").read_text()), (out / "BENCHMARKS.md").read_text()


def test_every_figure_is_produced(bench: tuple[dict, str]) -> None:
    results, markdown = bench
    assert set(results["models"]) == set(FULL_FRAME)
    for model, figures in results["models"].items():
        assert set(figures) >= MODEL_KEYS, model
        for key in MODEL_KEYS - {"panel_and_queue", "software", "per_game", "naive_per_game"}:
            value = figures[key]
            if isinstance(value, float):
                assert math.isfinite(value) and value > 0, (model, key)
        assert figures["touches"] > 0 and figures["burst_touches"] > 0
        assert set(figures["frames"]) == {"full", "partial", "fast"}
    for key in ("first_frame_ms", "peak_rss_mb", "date", "machine", "command", "goals"):
        assert results[key], key
    assert results["import_ms"]["keystand.cli"] > 0
    assert {"rules_bench.py", "service_bench.py"} == set(results["earlier"])
    for heading in ("## Goals", "## Touch to visible", "## SPI and GPIO", "## Refreshes per"):
        assert heading in markdown
    assert "Zero 2 W" in markdown
    assert len(results["goals"]) == 4 * 5 + 2
    for goal in results["goals"]:
        assert goal["goal"] in markdown


def test_spi_writes_per_frame_at_the_floor(bench: tuple[dict, str]) -> None:
    results, _ = bench
    for model, (ours, stock) in FULL_FRAME.items():
        figures = results["models"][model]
        assert (figures["spi_writes_full_frame"], figures["vendor_spi_writes_full_frame"]) == (
            ours,
            stock,
        )
        for kind, frame in figures["frames"].items():
            assert frame["at_protocol_floor"], (model, kind)
            assert frame["spi_writes"] <= frame["vendor_spi_writes"]


def test_refreshes_per_game_and_none_in_front_of_a_touch(bench: tuple[dict, str]) -> None:
    results, _ = bench
    for model, figures in results["models"].items():
        assert figures["full_refreshes_per_game"] == 2, model  # the deal and the end screen
        assert figures["full_refreshes_before_a_touch_result"] == 0, model
        assert figures["burst_touches_behind_a_full_refresh"] == 0, model
        assert figures["per_game"]["clearing"] >= 1, model  # the ghosting was cleared
        assert figures["longest_partial_run"] <= figures["ceiling"]
        assert figures["naive_per_game"]["full"] > figures["per_game"]["full"]
