"""The panel models keystand drives: one record each, the only table keyed by a
model's name (the layouts' type styles aside).

A record holds what the drivers and the layouts must agree on about one piece
of glass: its native frame (width x height as the controller addresses it and
the vendor's module names it), its diagonal and active area (with where the
figure comes from), how long each refresh takes, how long to wait around a
hardware reset, the vendor's model file with the recipe that maps keystand's
refresh kinds onto its methods, and the controller the emulator plays. Every
other table (the drivers' `MODELS`, `TIMINGS`, `RESET_WAIT`, `RECIPES`, the
emulator's `CONTROLLERS`, the layouts' `NATIVE` and `ACTIVE_AREA_MM`, the
profile's and `render`'s model lists) is derived from `PANELS`.

Like `keystand.errors` this module imports nothing of keystand, so the drivers
and the layouts, which import neither each other nor the host, both read it.
Adding a panel model: docs/drivers.md, "Adding a panel model".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol


class _Kind(Protocol):
    """A refresh kind as the drivers name it (`Refresh.FULL` ...): its value."""

    @property
    def value(self) -> str: ...


KINDS = ("full", "fast", "partial")


@dataclass(frozen=True)
class Timing:
    """Seconds per refresh kind. A panel with no fast waveform has fast == full.
    `source` says where the figures come from; `estimates` names each kind whose
    figure is keystand's estimate rather than published or measured, with how it
    was estimated (bench reports them as estimates)."""

    full: float
    fast: float
    partial: float
    source: str
    estimates: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.estimates) - set(KINDS))
        if unknown:
            raise ValueError(f"estimated {unknown}: expected refresh kinds of {', '.join(KINDS)}")
        unsaid = sorted(kind for kind, how in self.estimates.items() if not how.strip())
        if unsaid:
            raise ValueError(f"estimated {unsaid}: say how each figure was estimated")

    @property
    def estimated(self) -> frozenset[str]:
        """The kinds whose figure is an estimate."""
        return frozenset(self.estimates)

    @property
    def fast_is_quicker(self) -> bool:
        """The panel has a fast full-screen waveform worth drawing a full frame with
        (panel_worker.RefreshPolicy, rule 5)."""
        return self.fast < self.full

    def seconds(self, refresh: _Kind) -> float:
        figure: float = getattr(self, refresh.value)
        return figure


@dataclass(frozen=True)
class Call:
    """One vendor method and the arguments keystand calls it with (the 2.66"'s
    `init(0)` for a full refresh, `init(1)` before a partial one)."""

    method: str
    args: tuple[int, ...] = ()


@dataclass(frozen=True)
class Recipe:
    """How keystand's refresh kinds map onto one vendor model file's methods: data
    the Waveshare driver reads (drivers/display/waveshare.py), never code.

    `module` is the file's name in the vendor package (`waveshare_epd/NAME.py`).
    `init` readies a full refresh, `init_fast` a fast one, `init_partial` a
    partial one where the file has a separate partial init (the 2.66"'s
    `init(1)`, the 7.5" V2's `init_part`; None: a partial follows whichever init
    ran before it, and the plain `init` wakes the panel for one). `full` and
    `fast` name display methods. A partial refresh compares the new image with
    the second RAM (0x26, the "old image"); `full_sets_base` and
    `fast_sets_base` say whether those methods write it too (when not, the
    panel writes 0x26 itself first).
    """

    module: str
    init: Call
    init_fast: Call
    full: str
    fast: str
    fast_sets_base: bool
    partial: str
    init_partial: Call | None = None
    full_sets_base: bool = True
    partial_takes_window: bool = False
    probe: Call | None = None  # an init that activates the controller without drawing
    bytewise: bool = False  # the file sends a frame one send_data call a byte (ByteRuns)
    lut_bytewise: bool = False  # its lut() sends the waveform a byte a call (LutRun)
    # Rows the frame is turned down by before the vendor's methods get it: for a
    # file whose RAM cursor lands the buffer's first row elsewhere than on the
    # glass's top row (the 4.26"'s), so the glass shows the frame as drawn.
    roll_rows: int = 0

    @property
    def wakes_partial(self) -> Call:
        """The init before a partial refresh when the panel needs one."""
        return self.init if self.init_partial is None else self.init_partial


@dataclass(frozen=True)
class PanelModel:
    """One panel model: everything keystand knows of it, in one place."""

    name: str
    width: int  # native: sources, as the controller addresses them
    height: int  # native: gates
    diagonal: str
    active_mm: tuple[float, float]  # the active area, long side by short side
    active_source: str  # where that figure comes from
    timing: Timing
    reset_wait: float  # seconds around a hardware reset before BUSY takes over
    vendor: Recipe | None = None  # None: no vendor file drives it (simulated only)
    controller: str | None = None  # the controller the emulator plays (None: none)
    # The glass's gates are wired in reverse of the controller's scan: its top row
    # shows RAM row height - 1 (the 4.26"'s; the controller has no reverse scan).
    gates_reversed: bool = False

    @property
    def landscape(self) -> tuple[int, int]:
        """The size as the stand reads it: the long side across."""
        return (max(self.width, self.height), min(self.width, self.height))

    @property
    def pixel_mm(self) -> float:
        """The side of one pixel, in millimetres (the active area's long side over
        its long side's pixels)."""
        return self.active_mm[0] / max(self.width, self.height)


# Seconds around a hardware reset (`PanelHal.reset_wait`): the vendor's files wait
# fixed times (20 + 2 + 20 ms on the 2.13" V4, 50 on the 2.9" V2,
# 100 on the 4.2" V2, 200 on the 2.7" V2, the last before every partial refresh),
# far past what their controllers ask (the 4.26"'s waits 20 + 2 + 20 ms too). All
# five are Solomon Systech SSD16xx controllers: the SSD1680 (2.13" V4, 2.7" V2,
# 2.9" V2; SSD1680 Rev 0.14, Jun 2019), the SSD1683 (4.2" V2; Rev 1.0, Jan 2021)
# and the SSD1677 (4.26"; GxEPD2's driver for the same glass waits 10 ms after
# its reset, "according to specs", then BUSY). RES#
# needs a low pulse of at least 10 us (the vendor's 2 ms pulse is kept) and at
# least 10 ms at power-on; after it the controller holds BUSY high until it is
# ready, and the host waits for BUSY low before the next command. (The figures as
# summarised in RichAyotte/russignol, libs/epd-2in13-v4/docs/
# SSD1680_datasheet_notes.md; Waveshare's own 2.13" V4 file resets the same SSD1680
# in 20 + 2 + 20 ms.)
# 20 ms, then BUSY, keeps every figure with room to spare; `[panels] vendor_reset =
# true` restores the vendor's waits for a panel that misbehaves.
DATASHEET_RESET = 0.02

_ACTIVE = "Waveshare's specification page"
_WIKI = "Waveshare's wiki for the panel (full refresh / fast refresh / partial refresh)"

PANELS: dict[str, PanelModel] = {
    m.name: m
    for m in (
        PanelModel(
            "epd2in13_V4",
            122,
            250,
            '2.13"',
            (48.55, 23.71),
            f'{_ACTIVE}, 2.13inch e-Paper HAT (V4): "Display area" 48.55 x 23.71 mm',
            Timing(full=2.0, fast=2.0, partial=0.3, source=_WIKI),
            DATASHEET_RESET,
            # display() writes only 0x24; displayPartBaseImage is display() plus the
            # 0x26 base.
            Recipe(
                "epd2in13_V4",
                init=Call("init"),
                init_fast=Call("init_fast"),
                full="displayPartBaseImage",
                fast="display_fast",
                fast_sets_base=False,
                partial="displayPartial",
                probe=Call("init_fast"),
            ),
            controller="SSD1680",
        ),
        PanelModel(
            "epd2in7_V2",
            176,
            264,
            '2.7"',
            (57.288, 38.192),
            f'{_ACTIVE}, 2.7inch e-Paper HAT (V2): "Display size" 57.288 x 38.192 mm',
            Timing(
                full=6.0,
                fast=1.5,
                partial=0.3,
                source=_WIKI,
                estimates={
                    "fast": "Waveshare publishes no figure; its init_Fast picks the "
                    "controller's fast waveform by writing a high temperature (0x1A), as "
                    "the 4.2\" V2's init_fast mode 0 does, whose published figure is 1.5 s"
                },
            ),
            DATASHEET_RESET,
            # display_Base is display() plus the 0x26 base; display_Partial takes a
            # window and hard-resets the controller itself.
            Recipe(
                "epd2in7_V2",
                init=Call("init"),
                init_fast=Call("init_Fast"),
                full="display_Base",
                fast="display_Fast",
                fast_sets_base=False,
                partial="display_Partial",
                partial_takes_window=True,
                probe=Call("init_Fast"),
                bytewise=True,
            ),
            controller="SSD1680",
        ),
        PanelModel(
            "epd2in9_V2",
            128,
            296,
            '2.9"',
            (66.89, 29.05),
            f'{_ACTIVE}, 2.9inch e-Paper Module (V2): "Display size" 66.89 x 29.05 mm',
            Timing(full=2.0, fast=2.0, partial=0.3, source=_WIKI),
            DATASHEET_RESET,
            # No display_Fast: the fast init loads a faster LUT and the same display
            # follows.
            Recipe(
                "epd2in9_V2",
                init=Call("init"),
                init_fast=Call("init_Fast"),
                full="display_Base",
                fast="display_Base",
                fast_sets_base=True,
                partial="display_Partial",
                lut_bytewise=True,
            ),
            controller="SSD1680",
        ),
        PanelModel(
            "epd4in2_V2",
            400,
            300,
            '4.2"',
            (84.8, 63.6),
            f'{_ACTIVE}, 4.2inch e-Paper Module (V2): "Display size" 84.8 x 63.6 mm',
            Timing(full=4.0, fast=1.5, partial=0.5, source=_WIKI),
            DATASHEET_RESET,
            # display() and display_Fast() write both RAMs; init_fast mode 0 is the
            # 1.5 s one.
            Recipe(
                "epd4in2_V2",
                init=Call("init"),
                init_fast=Call("init_fast", (0,)),
                full="display",
                fast="display_Fast",
                fast_sets_base=True,
                partial="display_Partial",
                probe=Call("init_fast", (0,)),
            ),
            controller="SSD1683",
        ),
        # The 4.26" (800 x 480), an SSD1677: three and a half times the 2.7"'s pixels
        # to the square millimetre. What its vendor file (epd4in26.py, V1.0 of
        # 2023-12-20, in waveshare-epaper 1.4.0) does differently from the others:
        # X addresses count pixels over two bytes (0x44, 0x4E), Y addresses ten
        # bits; the window runs from Y 479 down to 0 (data entry 0x01: X up, Y
        # down) with the Y counter set to 0. The glass's gates run in reverse of
        # the controller's scan (GxEPD2's GDEQ0426T82 driver: "gates are reversed
        # on this display, but controller has no gates reverse scan"), so the
        # glass's top row is RAM row 479; starting the Y counter at 0 puts the
        # buffer's first row on RAM row 0 (the glass's bottom row) and the rest one
        # row up: the recipe rolls the frame down a row first (`roll_rows`). Not
        # yet checked on a real panel: the emulator's SSD1677 follows GxEPD2.
        PanelModel(
            "epd4in26",
            800,
            480,
            '4.26"',
            (92.8, 55.68),
            f'{_ACTIVE}, 4.26inch e-Paper HAT: "Display size" 92.80 x 55.68 mm, dot pitch '
            "0.116 mm (the glass is Good Display's GDEQ0426T82); the page was not at hand "
            "when this record was written: the figures are 800 and 480 pixels at that pitch",
            Timing(
                full=3.0,
                fast=1.5,
                partial=0.5,
                source='fast: the vendor\'s init_Fast ("TEMP (1.5s)"; GxEPD2 measured the '
                "same waveform at 1.57 s); partial: GxEPD2's 0.50 s on the same glass",
                estimates={
                    "full": "no published figure for the full waveform (0xF7, the sensor's "
                    "temperature): keystand's estimate"
                },
            ),
            DATASHEET_RESET,
            # display_Base writes both RAMs; display_Fast only 0x24; display_Partial
            # resets the controller itself and takes no window.
            Recipe(
                "epd4in26",
                init=Call("init"),
                init_fast=Call("init_Fast"),
                full="display_Base",
                fast="display_Fast",
                fast_sets_base=False,
                partial="display_Partial",
                probe=Call("init_Fast"),
                roll_rows=1,
            ),
            controller="SSD1677",
            gates_reversed=True,
        ),
    )
}


def model(name: str) -> PanelModel:
    """The record of `name`; ValueError naming the models there are."""
    try:
        return PANELS[name]
    except KeyError:
        raise ValueError(f"panel model {name!r}: expected one of {', '.join(PANELS)}") from None


# What each panel driver (drivers/factory.py's PANELS, by name) needs of a record
# to build a panel from it (tests/test_panel_models.py checks the two name the
# same drivers).
NEEDS: dict[str, tuple[str, ...]] = {"sim": (), "waveshare": ("vendor",)}


def buildable(driver: str) -> tuple[str, ...]:
    """The models `driver` can build."""
    needs = NEEDS.get(driver, ())
    return tuple(m.name for m in PANELS.values() if all(getattr(m, n) for n in needs))


def refusal(driver: str, name: str) -> str | None:
    """Why `driver` cannot build a panel of model `name`, in one line, or None."""
    if name not in PANELS:
        return f"panel model {name!r}: expected one of {', '.join(PANELS)}"
    missing = [n for n in NEEDS.get(driver, ()) if getattr(PANELS[name], n) is None]
    if missing:
        return (
            f"panel model {name!r} has no {' or '.join(missing)} in its record: the "
            f"{driver} driver cannot build it (it builds {', '.join(buildable(driver))})"
        )
    return None
