"""The touch builds' mat as a 1:1 template: SVG tiles for A4 or Letter.

    python hardware/enclosure/mat.py [--paper a4|letter] [--map strips|pads] [OUT]

(`make enclosure` writes both papers and both maps under build/enclosure/mat/.)

Drawn, in millimetres (the SVG's user unit is 1 mm, so print at 100 %, "actual
size"; the scale bar on every tile is 100 mm: measure it before cutting):

- the word cards, 5 x 5 at the card's size with a gap between them. No
  published size of the Codenames word card was found (neither Czech Games
  Edition's pages nor a card-size or sleeve list naming Codenames was among
  the material searched for issue 24); 70 x 45 mm is an estimate, the figure
  grid-firmware/README.md gives ("measure yours"): pass --card W H, in mm,
  each 30-120 mm (CARD_RANGE); a map whose pads or strips would overlap or
  leave the mat on such cards is refused (`misfit`);
- the electrodes of the map the firmware and the driver read
  (hardware/grid-firmware/main.py, drivers/inputs/mpr121.py): `strips`, five
  row strips on ELE0-ELE4 (row 0 at the top) under the rows' middles and five
  column strips on ELE5-ELE9 over them, or `pads`, one pad a card on three
  chips 0x5A-0x5C, electrode after electrode in reading order;
- the insulating layer between the row and the column strips (dashed);
- the leads' way to the cable exit at the mat's +x edge, where the stand (and
  its MPR121 board) stands.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

CARD = (70.0, 45.0)  # estimate, no published size found (see above); measure yours
GAP = 3.0
BORDER = 4.0  # mat edge round the cards
STRIP = 11.0  # copper tape 10-12 mm wide
PAD = (40.0, 25.0)  # grid-firmware/README.md "The mat", the pads variant
INSULATION_OVERLAP = 5.0
# A word card's sides, mm: wider than a fingertip's touch (about 15 mm) twice
# over, and five of them with gaps within a table's reach (120 mm: a 0.6 m mat,
# tarot-card sized); a size given in centimetres or inches by mistake falls out.
CARD_RANGE = (30.0, 120.0)
ROWS = COLS = 5
PAPERS = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}  # landscape
PAGE_MARGIN = 10.0  # most printers' unprintable edge is less
SCALE_BAR = 100.0


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    kind: str  # card, row, col, pad, insulation, exit, mat
    label: str = ""


def mat_size(card: tuple[float, float] = CARD, gap: float = GAP) -> tuple[float, float]:
    return (
        COLS * card[0] + (COLS - 1) * gap + 2 * BORDER,
        ROWS * card[1] + (ROWS - 1) * gap + 2 * BORDER,
    )


def card_at(row: int, col: int, card: tuple[float, float], gap: float) -> Rect:
    return Rect(
        BORDER + col * (card[0] + gap), BORDER + row * (card[1] + gap), card[0], card[1], "card"
    )


def pad_electrode(cell: int) -> tuple[int, int]:
    """The pads' default map (main.py): chip 0x5A, 0x5B, 0x5C, 12 electrodes a chip."""
    return 0x5A + cell // 12, cell % 12


def shapes(
    electrodes: str = "strips", card: tuple[float, float] = CARD, gap: float = GAP
) -> list[Rect]:
    width, height = mat_size(card, gap)
    out = [Rect(0, 0, width, height, "mat")]
    cards = [card_at(r, c, card, gap) for r in range(ROWS) for c in range(COLS)]
    out += cards
    if electrodes == "strips":
        ins = INSULATION_OVERLAP
        out.append(
            Rect(
                BORDER - ins,
                BORDER - ins,
                width - 2 * (BORDER - ins),
                height - 2 * (BORDER - ins),
                "insulation",
            )
        )
        for r in range(ROWS):
            mid = cards[r * COLS].y + card[1] / 2
            out.append(Rect(BORDER, mid - STRIP / 2, width - BORDER, STRIP, "row", f"ELE{r}"))
        for c in range(COLS):
            mid = cards[c].x + card[0] / 2
            out.append(
                Rect(mid - STRIP / 2, BORDER, STRIP, height - BORDER, "col", f"ELE{ROWS + c}")
            )
    elif electrodes == "pads":
        for i, cell in enumerate(cards):
            chip, ele = pad_electrode(i)
            out.append(
                Rect(
                    cell.x + (card[0] - PAD[0]) / 2,
                    cell.y + (card[1] - PAD[1]) / 2,
                    PAD[0],
                    PAD[1],
                    "pad",
                    f"0x{chip:X} ELE{ele}",
                )
            )
    else:
        raise ValueError(f"electrodes: strips or pads, not {electrodes!r}")
    out.append(Rect(width - 2, height / 2 - 15, 2, 30, "exit", "cable exit: to the stand"))
    return out


def card_side(text: str) -> float:
    """`--card`'s W or H: a finite number of millimetres in CARD_RANGE."""
    try:
        side = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: not a number of millimetres") from None
    low, high = CARD_RANGE
    if not low <= side <= high:  # also NaN and the infinities
        raise argparse.ArgumentTypeError(
            f"{text!r}: a word card's side is {low:g}-{high:g} mm (millimetres, not cm or inches)"
        )
    return side


def misfit(electrodes: str, card: tuple[float, float], gap: float = GAP) -> str | None:
    """Why this map does not fit cards of this size: two electrodes of one layer
    that overlap, or one off the mat (None: it fits)."""
    drawn = shapes(electrodes, card, gap)
    (sheet,) = [r for r in drawn if r.kind == "mat"]
    size = f"{card[0]:g} x {card[1]:g} mm cards with {gap:g} mm gaps"
    layers: dict[str, list[Rect]] = {}
    for r in drawn:
        if r.kind in ("row", "col", "pad"):
            layers.setdefault(r.kind, []).append(r)
    for kind, rects in layers.items():
        for i, a in enumerate(rects):
            if a.x < sheet.x or a.y < sheet.y or a.x + a.w > sheet.w or a.y + a.h > sheet.h:
                return f"--map {electrodes}: the {kind} on {a.label} leaves the mat on {size}"
            for b in rects[i + 1 :]:
                if a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h:
                    dims = f"{a.w:g} x {a.h:g} mm" if kind == "pad" else f"{STRIP:g} mm wide"
                    return (
                        f"--map {electrodes}: the {dims} {kind}s on {a.label} and {b.label} "
                        f"overlap on {size}"
                    )
    return None


STYLE = {
    "mat": 'fill="none" stroke="black" stroke-width="0.4"',
    "card": 'fill="none" stroke="#555" stroke-width="0.3"',
    "row": 'fill="#e8a060" fill-opacity="0.45" stroke="#b06020" stroke-width="0.2"',
    "col": 'fill="#d07040" fill-opacity="0.45" stroke="#903010" stroke-width="0.2"',
    "pad": 'fill="#e8a060" fill-opacity="0.45" stroke="#b06020" stroke-width="0.2"',
    "insulation": 'fill="none" stroke="#2060c0" stroke-width="0.3" stroke-dasharray="3 2"',
    "exit": 'fill="black"',
}


def tag(name: str, body: str = "", style: str = "", **attrs: object) -> str:
    """An SVG element; attribute names with `_` are written with `-`."""
    text = " ".join(f'{k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f"<{name} {text} {style}>{body}</{name}>"


def _rect(r: Rect) -> str:
    svg = tag(
        "rect",
        "",
        STYLE[r.kind],
        x=f"{r.x:.2f}",
        y=f"{r.y:.2f}",
        width=f"{r.w:.2f}",
        height=f"{r.h:.2f}",
        **{"class": r.kind},
    )
    if r.label:
        svg += tag(
            "text",
            r.label,
            x=f"{r.x + 1.5:.2f}",
            y=f"{r.y + 4:.2f}",
            font_size=3.5,
            font_family="sans-serif",
        )
    return svg


def tile_grid(paper: str, card: tuple[float, float] = CARD, gap: float = GAP) -> tuple[int, int]:
    """How many tiles across and down the mat takes on `paper`."""
    width, height = mat_size(card, gap)
    pw, ph = PAPERS[paper]
    return math.ceil(width / (pw - 2 * PAGE_MARGIN)), math.ceil(height / (ph - 2 * PAGE_MARGIN))


def tiles(
    paper: str = "a4",
    electrodes: str = "strips",
    card: tuple[float, float] = CARD,
    gap: float = GAP,
) -> list[str]:
    """One SVG document per tile, row by row: the mat's part on that page at 1:1,
    the tile's place, the page's cut line and a 100 mm scale bar."""
    pw, ph = PAPERS[paper]
    aw, ah = pw - 2 * PAGE_MARGIN, ph - 2 * PAGE_MARGIN
    across, down = tile_grid(paper, card, gap)
    body = "".join(_rect(r) for r in shapes(electrodes, card, gap))
    out = []
    m = PAGE_MARGIN
    for j in range(down):
        for i in range(across):
            page = tag("rect", x=m, y=m, width=aw, height=ah)
            moved = tag("g", body, transform=f"translate({m - i * aw} {m - j * ah})")
            note = (
                f"100 mm at 1:1 - tile {j + 1}.{i + 1} of {down} x {across} ({paper}, "
                f"{electrodes}); trim on the dotted line, butt the tiles"
            )
            parts = [
                tag("defs", tag("clipPath", page, id="page")),
                tag("g", moved, clip_path="url(#page)"),
                tag(
                    "rect",
                    "",
                    'fill="none" stroke="#999" stroke-width="0.2" stroke-dasharray="1 1"',
                    x=m,
                    y=m,
                    width=aw,
                    height=ah,
                    **{"class": "cut"},
                ),
                tag(
                    "line",
                    "",
                    'stroke="black" stroke-width="0.6"',
                    x1=m,
                    y1=ph - 4,
                    x2=m + SCALE_BAR,
                    y2=ph - 4,
                    **{"class": "scale"},
                ),
                tag(
                    "text",
                    note,
                    x=m + SCALE_BAR + 3,
                    y=ph - 3,
                    font_size=3,
                    font_family="sans-serif",
                ),
            ]
            out.append(
                tag(
                    "svg",
                    "".join(parts),
                    xmlns="http://www.w3.org/2000/svg",
                    width=f"{pw}mm",
                    height=f"{ph}mm",
                    viewBox=f"0 0 {pw} {ph}",
                )
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", choices=sorted(PAPERS), default="a4")
    parser.add_argument("--map", choices=("strips", "pads"), default="strips")
    parser.add_argument(
        "--card",
        nargs=2,
        type=card_side,
        default=CARD,
        metavar=("W", "H"),
        help=f"a word card's width and height in mm (default {CARD[0]:g} {CARD[1]:g}); each "
        f"{CARD_RANGE[0]:g}-{CARD_RANGE[1]:g} mm: twice a fingertip's touch at least, and "
        "five cards within a table's reach; a size in cm or inches is refused",
    )
    parser.add_argument("out", nargs="?", type=Path, default=Path("build/enclosure/mat"))
    args = parser.parse_args(argv)
    trouble = misfit(args.map, tuple(args.card))
    if trouble:
        parser.error(trouble)
    args.out.mkdir(parents=True, exist_ok=True)
    for n, svg in enumerate(tiles(args.paper, args.map, tuple(args.card)), 1):
        path = args.out / f"mat-{args.map}-{args.paper}-{n}.svg"
        path.write_text(svg)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
