"""Profiles and scripts for the real-input tests: a Pi build with keys and each
kind of grid, and a game written once as rules lines turned into what each
build's players do (touch lines on a grid, cursor presses with keys only)."""

from __future__ import annotations

from pathlib import Path

PANELS = """
[stand]
driver = "waveshare"
[panels]
model = "epd2in7_V2"
rotation = 90
[panels.B]
spi_device = 1
rst = 16
dc = 20
busy = 21
pwr = -1
"""


def pi_profile(kinds: str, *, stand: str = "") -> str:
    """A two-panel Pi build (the real drivers, 2.7" V2 HATs) with `kinds` of input
    (a TOML list) and more `[stand]` keys (`reveal_delay = 1`)."""
    return PANELS.replace("[panels]\n", f"{stand}[panels]\n", 1) + f"[input]\nkinds = {kinds}\n"


# The 2.7" HAT's keys on seat A; seat B's HAT rewired off the panels' pins.
KEYS = """
[input.keys]
hold_time = 0.2
[input.keys.A]
clue = 5
pass = 6
undo = 13
menu = 19
[input.keys.B]
clue = 12
pass = 26
undo = 22
menu = 23
"""
PADS = """
[input.mpr121]
pads = { "0x5A" = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "0x5B" = [12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23], "0x5C" = [24] }
"""  # noqa: E501 (one TOML line)
STRIPS = """
[input.mpr121]
address = "0x5A"
rows = [0, 1, 2, 3, 4]
cols = [5, 6, 7, 8, 9]
"""
SERIAL = """
[input.serial]
port = "/dev/ttyACM0"
"""
BUILDS = {
    "keys-only": ('["keys"]', ""),
    "mpr121-pads": ('["keys", "mpr121"]', PADS),
    "mpr121-strips": ('["keys", "mpr121"]', STRIPS),
    "serial-grid": ('["keys", "serial-grid"]', SERIAL),
}


def profile(tmp_path: Path, build: str) -> Path:
    kinds, grid = BUILDS[build]
    path = tmp_path / f"{build}.toml"
    # Keys alone pick words on the keys: their labels say how (the HAT's keys, left).
    panels = PANELS.replace("rotation = 90\n", 'rotation = 90\nkeys = "left"\n', 1)
    text = panels if build == "keys-only" else PANELS
    path.write_text(f"{text}\n[input]\nkinds = {kinds}\n{KEYS}{grid}")
    return path


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


def screen_index(seat: str, cell: int) -> int:
    """Where table cell `cell` is on `seat`'s screen, row by row from its top
    left: seat B sits across the table, so its screen is the table turned."""
    return cell if seat == "A" else 24 - cell


def as_played(rules_lines: list[str], *, cursor: bool) -> list[str]:
    """`clue S`, `pass S`, `touch R C`, `undo` as the players give them with the
    keys: clue and pass keys, undo pressed by both seats, and a touch either on
    the grid or (`cursor`) as the keys' labels say: pick word (clue), next (clue)
    and down (pass) to the word, guess (menu) (docs/buttons-only.md)."""
    out: list[str] = []
    at: dict[str, int] = {}  # each seat's cursor, screen index; starts top left
    guesser = None
    for line in rules_lines:
        verb, *args = line.split()
        if verb == "clue":
            out.append(f"press {args[0]} clue")
            guesser = other(args[0])
        elif verb == "pass":
            out.append(f"press {args[0]} pass")
        elif verb == "undo":
            out += ["press A undo", "press B undo"]
        elif verb == "touch" and not cursor:
            out.append(line)
        elif verb == "touch":
            assert guesser is not None
            target = screen_index(guesser, int(args[0]) * 5 + int(args[1]))
            here = at.get(guesser, 0)
            rights = (target % 5 - here % 5) % 5  # next: the next word, row by row
            here = (here + rights) % 25
            downs = ((target - here) // 5) % 5  # down: a row down
            out.append(f"press {guesser} clue")  # pick word
            out += [f"press {guesser} clue"] * rights + [f"press {guesser} pass"] * downs
            out.append(f"press {guesser} menu")  # guess
            at[guesser] = target
        else:
            raise ValueError(line)
    return out
