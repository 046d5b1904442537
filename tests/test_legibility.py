"""Every word on every panel, measured in millimetres on the real panel (issue 22
item 1): the smallest text's cap height, over every box any screen draws text in.

The goal is 2.0 mm, and every panel meets it (docs/screens.md "Panels" says how).
Each panel's figure may only grow: FLOOR holds today's, so a change that shrinks
a word fails here, and one that grows it moves the floor up (and docs/screens.md's
table)."""

from __future__ import annotations

import pytest

from keystand.layouts import MODELS, panel, text_slots
from keystand.layouts.legibility import GOAL_MM, cap_height, smallest
from keystand.layouts.panels import ACTIVE_AREA_MM, NATIVE, ROTATIONS, pixel_mm

# mm: the smallest cap height on each panel today (docs/screens.md "Panels").
FLOOR = {
    "epd2in13_V4": 2.14,
    "epd2in7_V2": 2.17,
    "epd2in9_V2": 2.03,
    "epd4in2_V2": 2.33,
    "epd4in26": 2.2,
}


def test_a_pixel_is_the_active_area_over_the_pixels_on_both_sides() -> None:
    """Waveshare's figures agree with themselves: square pixels, within 1 %."""
    for model in MODELS:
        width, height, _ = NATIVE[model]
        _, short_mm = ACTIVE_AREA_MM[model]
        across = short_mm / min(width, height)
        assert abs(across - pixel_mm(model)) / pixel_mm(model) < 0.01, model
    assert round(pixel_mm("epd2in7_V2"), 3) == 0.217  # 57.288 mm over 264 px


def test_a_cap_height_is_measured_from_the_font() -> None:
    sizes = [cap_height(size) for size in range(8, 41)]
    assert sizes == sorted(sizes) and sizes[0] > 0  # larger type, taller capitals
    assert 0.65 < cap_height(40) / 40 < 0.8  # a sans serif's capitals: about 0.73 em


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("rotation", ROTATIONS)
def test_no_text_shrinks_below_its_panels_floor(model: str, rotation: int) -> None:
    spec = panel(model, rotation)
    found = smallest(spec, text_slots(spec))
    assert found.mm >= FLOOR[model], f"{model} {rotation}: {found} below {FLOOR[model]} mm"


def test_the_floors_are_todays_figures_and_the_goal_is_kept_in_view() -> None:
    """A floor below today's figure would let a word shrink unseen; every panel is
    at the goal and must stay there."""
    for model in MODELS:
        spec = panel(model)
        assert smallest(spec, text_slots(spec)).mm == FLOOR[model], model
    for model in MODELS:
        assert FLOOR[model] >= GOAL_MM, model
