"""The card code on the end screen can be read back exactly, character by
character, on every panel (issue 22 item 1: at 1.5 mm `...-SKKB` was read as
`...-5KKB`). Each character drawn is matched against every character of the
code's own alphabet drawn in its place; the code's own wins, and every other is
at least MARGIN pixels away, so no two of its characters look alike at its size."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from keystand.layouts import MODELS, End, Ending, Mark, SeatId, SeatView, Stage, panel, render
from keystand.layouts import end as end_screen
from keystand.layouts.legibility import cap_height
from keystand.layouts.panels import ROTATIONS, pixel_mm
from keystand.layouts.text import TextBox, font, width, wrap
from keystand.rules import generate
from keystand.rules.checkcode import ALPHABET

MARGIN = 6  # pixels that differ between a character and the likest other one
SIDE = (Mark.AGENT,) * 9 + (Mark.ASSASSIN,) * 3 + (Mark.BYSTANDER,) * 13
# Codes that hold the pairs small type confuses (5 S, 8 B, E F, C G, 0 D, 2 Z), and dealt ones.
CODES = ["5S8B-EF0D-2ZCG", "SKKB-GV88-BX4S", *(generate(seed).code for seed in range(6))]


def end_view(code: str) -> SeatView:
    return SeatView(
        seat=SeatId.A,
        side=SIDE,
        stage=Stage.OVER,
        end=End(Ending.WON, 22, code, SIDE),
    )


def drawn(line: str, box: TextBox, y: int, size: int, image_size: tuple[int, int]) -> Image.Image:
    """`line` drawn as the end screen draws it: centred in `box`, at `y`."""
    image = Image.new("1", image_size, 1)
    d = ImageDraw.Draw(image)
    d.fontmode = "1"
    x0, _, x1, _ = font(size).getbbox(line, anchor="la")
    x = box.x - x0 + (box.w - (x1 - x0)) // 2
    d.text((x, y), line, font=font(size), fill=0, anchor="la")
    return image


def read_back(image: Image.Image, code: str, box: TextBox, size: int) -> tuple[str, int]:
    """The code as read from `image`, and the smallest margin any character won by."""
    read, margin = [], 10**9
    lh = box.line_height
    for k, line in enumerate(wrap(code, size, box.w)):
        y = box.y + k * lh
        x0, _, x1, _ = font(size).getbbox(line, anchor="la")
        left = box.x - x0 + (box.w - (x1 - x0)) // 2
        for i, ch in enumerate(line):
            if ch == "-":
                read.append(ch)
                continue
            start = left + int(font(size).getlength(line[:i])) - 1
            end = left + int(font(size).getlength(line[: i + 1])) + 1
            window = (start, y, end, y + lh)
            seen = image.crop(window).tobytes()
            distances = {}
            for other in ALPHABET:
                candidate = drawn(line[:i] + other + line[i + 1 :], box, y, size, image.size)
                got = candidate.crop(window)
                distances[other] = sum(
                    bin(a ^ b).count("1") for a, b in zip(seen, got.tobytes(), strict=True)
                )
            best = min(distances, key=lambda c: distances[c])
            read.append(best)
            runner_up = min(d for c, d in distances.items() if c != best)
            margin = min(margin, runner_up - distances[best])
    return "".join(read), margin


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("rotation", ROTATIONS[:2])
def test_each_code_reads_back_exactly_with_a_margin(model: str, rotation: int) -> None:
    spec = panel(model, rotation)
    lay = end_screen.layout(spec)
    code_box, _ = end_screen.code_boxes(lay.code, lay.code_lines, spec.style.code)
    for code in CODES:
        image = render(end_view(code), spec, "en").convert("1")
        read, margin = read_back(image, code, code_box, spec.style.code)
        assert read == code, (model, rotation, read)
        assert margin >= MARGIN, (model, rotation, code, margin)


@pytest.mark.parametrize("model", MODELS)
def test_the_code_is_at_least_two_millimetres_tall(model: str) -> None:
    assert cap_height(panel(model).style.code) * pixel_mm(model) >= 2.0


def test_the_widest_code_the_layout_makes_room_for_is_the_widest_there_is() -> None:
    for size in {panel(m).style.code for m in MODELS}:
        widest = max(ALPHABET, key=lambda c: width(c, size))
        assert width(widest, size) <= width("W", size)
        assert end_screen.WIDEST_CODE == "WWWW-WWWW-WWWW"
