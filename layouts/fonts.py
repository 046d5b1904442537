"""The font the screens use, shipped with the package (fonts/LICENSE says why we may).

DejaVu Sans Condensed Bold: Latin, German and Cyrillic in one face, bold for
e-ink read at arm's length, condensed so German and Russian fit the small
panels. Text is laid out with Pillow's basic layout engine (no dependence on
libraqm being installed) and drawn without anti-aliasing, as a 1-bit panel
shows it.
"""

from __future__ import annotations

import struct
from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).parent / "fonts"
FONT_FILE = FONT_DIR / "DejaVuSansCondensed-Bold.ttf"


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    """The screen font at `size` pixels."""
    return ImageFont.truetype(str(FONT_FILE), size, layout_engine=ImageFont.Layout.BASIC)


@cache
def codepoints(path: Path = FONT_FILE) -> frozenset[int]:
    """Every character the font has a glyph for, read from its `cmap` table."""
    data = path.read_bytes()
    tables = {}
    (count,) = struct.unpack_from(">H", data, 4)
    for k in range(count):
        tag, _, offset, _ = struct.unpack_from(">4sIII", data, 12 + 16 * k)
        tables[tag] = offset
    cmap = tables[b"cmap"]
    (subtables,) = struct.unpack_from(">H", data, cmap + 2)
    found: set[int] = set()
    for k in range(subtables):
        platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * k)
        if (platform, encoding) not in ((3, 1), (3, 10), (0, 3), (0, 4)):
            continue  # not a Unicode map
        start = cmap + offset
        (fmt,) = struct.unpack_from(">H", data, start)
        if fmt == 4:
            found |= _format4(data, start)
        elif fmt == 12:
            found |= _format12(data, start)
    return frozenset(found)


def _format4(data: bytes, start: int) -> set[int]:
    (seg2,) = struct.unpack_from(">H", data, start + 6)
    n = seg2 // 2
    ends = struct.unpack_from(f">{n}H", data, start + 14)
    starts = struct.unpack_from(f">{n}H", data, start + 16 + seg2)
    deltas = struct.unpack_from(f">{n}h", data, start + 16 + 2 * seg2)
    range_at = start + 16 + 3 * seg2
    ranges = struct.unpack_from(f">{n}H", data, range_at)
    found = set()
    for k in range(n):
        for c in range(starts[k], ends[k] + 1):
            if c == 0xFFFF:
                continue
            if ranges[k] == 0:
                glyph = (c + deltas[k]) & 0xFFFF
            else:
                at = range_at + 2 * k + ranges[k] + 2 * (c - starts[k])
                (glyph,) = struct.unpack_from(">H", data, at)
                if glyph:
                    glyph = (glyph + deltas[k]) & 0xFFFF
            if glyph:
                found.add(c)
    return found


def _format12(data: bytes, start: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, start + 12)
    found: set[int] = set()
    for k in range(groups):
        first, last, glyph = struct.unpack_from(">III", data, start + 16 + 12 * k)
        found.update(c for c in range(first, last + 1) if glyph + (c - first))
    return found
