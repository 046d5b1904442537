"""The simulator page's table is the game's grid (issue 21, item 3): /status names
its rows and columns, and the page deals that many words, seat B's table a half
turn of seat A's."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from keystand.drivers.inputs.simulator import SimulatorPage

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def page_4x4() -> Iterator[str]:
    page = SimulatorPage(
        screens=dict,
        png=lambda seat: None,
        status=lambda: {"game": "g1", "state": {}},
        port=0,
        rows=4,
        cols=4,
    )
    page.start(lambda event: None, lambda report: None)
    try:
        yield page.url
    finally:
        page.stop()


def test_the_status_names_the_games_grid(page_4x4: str) -> None:
    with urllib.request.urlopen(page_4x4 + "status", timeout=10) as r:
        assert json.load(r)["grid"] == {"rows": 4, "cols": 4}


@pytest.mark.parametrize(
    ("line", "code", "says"),
    [(b"touch 3 3", 200, "queued"), (b"touch 4 0", 400, "rows and columns are 0..3")],
)
def test_a_touch_off_the_games_grid_is_refused_by_the_page(
    page_4x4: str, line: bytes, code: int, says: str
) -> None:
    request = urllib.request.Request(page_4x4 + "input", data=line, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            status, body = r.status, json.load(r)
    except urllib.error.HTTPError as e:
        status, body = e.code, json.load(e)
    assert status == code and says in json.dumps(body)


def test_the_page_defaults_to_the_5x5_grid() -> None:
    page = SimulatorPage(screens=dict, png=lambda s: None, status=dict)
    assert (page.rows, page.cols) == (5, 5)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is missing")
def test_the_page_lays_out_a_4x4_table_for_each_seat(page_4x4: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM))
        try:
            tab = browser.new_page()
            tab.goto(page_4x4)
            tab.wait_for_function(
                "document.querySelectorAll('#table-A button').length > 0", timeout=30_000
            )
            for seat, first, labels in (("A", 0, "0 0"), ("B", 15, "3 3")):
                cells = tab.eval_on_selector_all(
                    f"#table-{seat} button", "bs => bs.map(b => Number(b.dataset.cell))"
                )
                assert len(cells) == 16 and cells[0] == first, seat
                assert tab.locator(f"#table-{seat} button small").first.text_content() == labels
            columns = tab.eval_on_selector(
                "#table-A", "t => getComputedStyle(t).gridTemplateColumns.split(' ').length"
            )
            assert columns == 4
        finally:
            browser.close()
