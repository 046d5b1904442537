"""The simulator page's word buttons hold their labels in every state (issue 22
item 9: "missed by A, B" spilled out of the button), checked in Debian's
Chromium on the page served with a status the test writes: every word of the
page's list, covered and missed by both seats, on Codenames' 5x5 and a 4x5 grid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from keystand.drivers.inputs.simulator import SimulatorPage

CHROMIUM = Path("/usr/bin/chromium")
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is missing: sudo apt-get install chromium"
)
BROWSER_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu"]
WAIT_MS = 30_000
# The word buttons any of whose labels does not fit: a label whose
# text is cut (scroll width beyond its client width) or is wider than its button.
OVERFLOW = """() => [...document.querySelectorAll('.table button')].filter(b =>
    b.scrollWidth > b.clientWidth || b.scrollHeight > b.clientHeight ||
    [...b.children].some(c => c.scrollWidth > c.clientWidth ||
                              c.getBoundingClientRect().width > b.clientWidth)
  ).map(b => b.textContent)"""


def status(game: str, rows: int, cols: int) -> dict[str, Any]:
    cells = list(range(rows * cols))
    state = {
        "status": "playing",
        "phase": "guessing",
        "clue_giver": "A",
        "guesser": "B",
        "covered": cells[::2],
        "misses": {"A": cells, "B": cells},
        "turns_left": 9,
        "mistakes_left": 9,
        "agents_found": 0,
    }
    return {"game": game, "grid": {"rows": rows, "cols": cols}, "state": state}


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (4, 5)])
def test_every_word_button_holds_its_labels(rows: int, cols: int) -> None:
    shown: dict[str, Any] = status("g0", rows, cols)
    page_driver = SimulatorPage(screens=dict, png=lambda seat: None, status=lambda: shown, port=0)
    page_driver.start(lambda event: None, lambda report: None)
    words: set[str] = set()
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.goto(page_driver.url)
            for k in range(12):  # twelve deals: every word of the page's list, and the longest
                shown = status(f"g{k}", rows, cols)
                page.wait_for_function(
                    f"document.querySelectorAll('#table-A button .miss')[0]?.textContent"
                    f" === 'miss A B' && document.getElementById('table-A').dataset.game"
                    f" === 'g{k} {rows}x{cols}'",
                    timeout=WAIT_MS,
                )
                assert page.evaluate(OVERFLOW) == []
                words |= set(page.locator("#table-A .word").all_text_contents())
            browser.close()
    finally:
        page_driver.stop()
    assert {"NAPOLEON", "UMBRELLA"} <= words  # the widest words were dealt and fit
