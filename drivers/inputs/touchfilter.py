"""Touch filtering shared by both grids, and the grid's orientation on the table.

A grid (MPR121 chips, or the serial controller) reports which cells feel a
contact, sample after sample. Players do not touch like a test script: a hand
hovers before it lands, a palm or a sleeve lies over several cards, a finger
trembles on a card and a double tap arrives as two contacts. `TouchFilter`
turns the samples into touches by these rules:

- An *episode* is a stretch of samples with any contact; it ends when the grid
  is clear. An episode yields at most one touch, so a finger that slides on to
  the next card, or a palm lifting off, never makes a second one.
- A touch counts when exactly one cell has been the only contact for `dwell`
  seconds without a break. Shorter is a hover.
- Several cells at once for `palm` seconds or longer spend the episode: a palm.
  A shorter flicker of other cells (electrical noise) neither spends it nor
  breaks the dwell of a finger that stays; the touch counts on a sample that
  has the finger's cell alone.
- A contact on the cell that last counted, starting less than `bounce` seconds
  after that cell was last let go, is a bounce, never a second touch. A bounce
  keeps the window open (a drumming finger is one touch); a blip shorter than
  the dwell does not (noise on the wire cannot swallow the next real touch).
- A cell held for `stuck` seconds (a cup on a card) is left out of the contacts
  until it is let go, so it does not turn every later touch into a palm.
- A grid that is lost (unplugged, silent, a chip that stops answering) cannot
  tell what its cells feel; its driver feeds those cells as `unknown`. An
  unknown cell keeps its last known contact: losing sight of a finger is not
  seeing it lift, so the episode it is part of goes on. When the grid is back,
  its full state continues that episode: a finger that rested across the gap
  (or slid on) is spent as it was, and only a grid seen clear ends it. So a
  reconnect re-arms no cell whose contact never lifted. No touch counts on a
  cell the filter cannot see: a contact's dwell starts when it is seen.

Times are seconds from `clock` (or the `at` the caller passes); nothing here
sleeps, so a test feeds samples with made-up times.

Coordinates: a grid names its cells (row, col) as wired; the table names them
as seat A sees the cards, row 0 farthest from seat A (docs/design.md). `Orientation`
maps one to the other. A grid is `rows` x `cols` (the game's grid, which the host
passes as two numbers; `size` is the side of a square one, 5 by default).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Cell = tuple[int, int]  # (row, col)

SIZE = 5  # the side of the default grid, Duet's and classic's 5x5
EPS = 1e-9  # times that differ by less are equal (sums of float steps drift)


def check_cell(cell: Cell, rows: int = SIZE, cols: int | None = None) -> Cell:
    """`cell` as a (row, col) pair of ints inside a `rows` x `cols` grid (square
    when `cols` is None), or ValueError naming it."""
    cols = rows if cols is None else cols
    try:
        row, col = cell
    except (TypeError, ValueError):
        raise ValueError(f"cell {cell!r}: expected (row, col)") from None
    if not (isinstance(row, int) and isinstance(col, int)):
        raise ValueError(f"cell {cell!r}: row and column are whole numbers")
    if not (0 <= row < rows and 0 <= col < cols):
        if rows == cols:
            raise ValueError(f"cell {cell!r}: rows and columns are 0..{rows - 1}")
        raise ValueError(f"cell {cell!r}: rows are 0..{rows - 1}, columns 0..{cols - 1}")
    return (row, col)


def _side(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"grid {name} {value!r}: a whole number from 1")
    return value


class Outcome(enum.Enum):
    """How an episode of contact ended up."""

    TOUCH = "touch"
    HOVER = "hover"
    PALM = "palm"
    BOUNCE = "bounce"


@dataclass
class FilterStats:
    """Episodes by outcome since the filter was made (for `keystand doctor` and tests)."""

    touch: int = 0
    hover: int = 0
    palm: int = 0
    bounce: int = 0
    stuck: int = 0  # cells left out because they were held too long

    def add(self, outcome: Outcome) -> None:
        setattr(self, outcome.value, getattr(self, outcome.value) + 1)


@dataclass
class _Episode:
    started: float
    candidate: Cell | None = None
    since: float = 0.0  # when the candidate became the only contact
    several_since: float | None = None  # when several cells began, in this run
    outcome: Outcome | None = None  # set once the episode is spent
    gap: float = float("inf")  # how long the last counted cell was free before this contact
    seen_last: float | None = None  # the last sample here with the last counted cell


class TouchFilter:
    """Samples of contact sets in, touches out (grid coordinates)."""

    def __init__(
        self,
        *,
        dwell: float = 0.08,
        palm: float = 0.04,
        bounce: float = 0.5,
        stuck: float | None = 10.0,
        size: int = SIZE,
        rows: int | None = None,
        cols: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`rows` and `cols` give the grid's shape (each `size` unless given)."""
        for name, value in (("dwell", dwell), ("palm", palm), ("bounce", bounce)):
            if isinstance(value, bool) or not (isinstance(value, int | float) and 0 <= value <= 60):
                raise ValueError(f"touch filter {name} {value!r}: seconds from 0 to 60")
        if stuck is not None and (
            isinstance(stuck, bool) or not (isinstance(stuck, int | float) and stuck > dwell)
        ):
            raise ValueError(f"touch filter stuck {stuck!r}: seconds, longer than dwell {dwell}")
        self.dwell = float(dwell)
        self.palm = float(palm)
        self.bounce = float(bounce)
        self.stuck = None if stuck is None else float(stuck)
        self.rows = _side("rows", size if rows is None else rows)
        self.cols = _side("cols", size if cols is None else cols)
        self.clock = clock
        self.stats = FilterStats()
        self._raw: frozenset[Cell] = frozenset()
        self._held_since: dict[Cell, float] = {}
        self._stuck: set[Cell] = set()
        self._episode: _Episode | None = None
        self._last: Cell | None = None  # the cell that last counted
        self._last_seen = float("-inf")  # when it was last let go (or counted)

    @property
    def every_cell(self) -> frozenset[Cell]:
        """All the grid's cells: the `unknown` of a sample while the whole grid
        is lost."""
        return frozenset((r, c) for r in range(self.rows) for c in range(self.cols))

    @property
    def idle(self) -> bool:
        """No contact and no episode: the next contact starts a new one."""
        return self._episode is None and not self._raw

    @property
    def settled(self) -> bool:
        """Nothing left to time: no episode, and no contact but stuck ones (a cup
        left on a card). Until the contacts change no sample can count a touch,
        so a driver may wait for the grid's next change instead of sampling."""
        return self._episode is None and self._raw <= self._stuck

    def feed(
        self, cells: Iterable[Cell], at: float | None = None, *, unknown: Iterable[Cell] = ()
    ) -> Cell | None:
        """One sample: the cells in contact now, and the cells the grid cannot
        tell now (lost: they keep their last known contact). Returns the grid
        cell of a touch that counts with this sample, else None."""
        now = self.clock() if at is None else at
        dark = frozenset(check_cell(c, self.rows, self.cols) for c in unknown)
        seen = frozenset(check_cell(c, self.rows, self.cols) for c in cells) - dark
        raw = seen | (self._raw & dark)
        for cell in self._raw - raw:
            del self._held_since[cell]
            self._stuck.discard(cell)
        for cell in raw - self._raw:
            self._held_since[cell] = now
        self._raw = raw
        if self.stuck is not None:
            for cell in raw - self._stuck:
                if now - self._held_since[cell] >= self.stuck - EPS:
                    self._stuck.add(cell)
                    self.stats.stuck += 1
        return self._step(raw - self._stuck, now, dark)

    def tick(self, at: float | None = None) -> Cell | None:
        """The same contacts as the last sample, at a later time (a grid that
        reports only changes still needs the dwell to run out)."""
        return self.feed(self._raw, at)

    def _step(self, contacts: frozenset[Cell], now: float, dark: frozenset[Cell]) -> Cell | None:
        ep = self._episode
        if not contacts:
            if ep is not None:
                self._episode = None
                self.stats.add(ep.outcome or Outcome.HOVER)
                # Only a contact that lasted the dwell holds the bounce window
                # open; a blip of noise on that cell does not.
                if ep.outcome in (Outcome.TOUCH, Outcome.BOUNCE) and ep.seen_last is not None:
                    self._last_seen = ep.seen_last
            return None
        if ep is None:
            ep = self._episode = _Episode(started=now)
        if self._last in contacts:
            if ep.seen_last is None:  # it joins this episode now
                ep.gap = now - self._last_seen
            ep.seen_last = now
        if ep.outcome is not None:
            return None
        if len(contacts) > 1:
            if ep.candidate not in contacts or ep.candidate in dark:
                ep.candidate = None
            if ep.several_since is None:
                ep.several_since = now
            if now - ep.several_since >= self.palm - EPS:
                ep.outcome = Outcome.PALM
            return None
        ep.several_since = None
        (cell,) = contacts
        if cell in dark:  # its last known contact, not seen now: no dwell runs
            ep.candidate = None
            return None
        if cell != ep.candidate:
            ep.candidate, ep.since = cell, now
        if now - ep.since < self.dwell - EPS:
            return None
        if cell == self._last and ep.gap < self.bounce - EPS:
            ep.outcome = Outcome.BOUNCE
            return None
        ep.outcome = Outcome.TOUCH
        self._last, self._last_seen, ep.seen_last = cell, now, now
        return cell


@dataclass(frozen=True)
class Orientation:
    """How the grid lies on the table: mirrored or not, then turned.

    `to_table` first mirrors the grid's columns (col -> cols-1-col) when
    `mirror`, then turns the picture a quarter clockwise `turns` times, each
    turn taking (row, col) of an R x C picture to (col, R-1-row) of a C x R one;
    the result is the table cell as seat A reads the cards. Whether a mat is
    mirrored is fixed when it is built (which side of the electrodes faces up,
    which way the strips run), so it belongs in the profile; the turns change
    whenever the mat is laid down again, so one calibration touch finds them
    (`calibrated`).

    A mat of `rows` x `cols` cells lies under a table of the same shape, the
    game's. A quarter turn would swap its rows and columns, so a mat that is not
    square turns only by half turns (0 or 2): laid across the table its cells
    could not line up with the words, and calibrating it there is refused with a
    line that says to lay it along the table. Its mirror is the profile's, as
    for a square mat.
    """

    turns: int = 0
    mirror: bool = False
    rows: int = SIZE
    cols: int = SIZE

    def __post_init__(self) -> None:
        if self.turns not in (0, 1, 2, 3):
            raise ValueError(f"orientation turns {self.turns!r}: 0, 1, 2 or 3 quarter turns")
        if not isinstance(self.mirror, bool):
            raise ValueError(f"orientation mirror {self.mirror!r}: true or false")
        _side("rows", self.rows)
        _side("cols", self.cols)
        if self.turns % 2 and not self.square:
            raise ValueError(
                f"orientation turns {self.turns}: a {self.rows}x{self.cols} grid turns only "
                "by half turns (0 or 2), a quarter turn would lay it across the table"
            )

    @property
    def square(self) -> bool:
        return self.rows == self.cols

    @property
    def allowed_turns(self) -> tuple[int, ...]:
        """The turns a mat of this shape may lie at: all four if square, else half turns."""
        return (0, 1, 2, 3) if self.square else (0, 2)

    def to_table(self, cell: Cell) -> Cell:
        """The table cell a grid cell lies under."""
        row, col = check_cell(cell, self.rows, self.cols)
        rows, cols = self.rows, self.cols
        if self.mirror:
            col = cols - 1 - col
        for _ in range(self.turns):
            row, col, rows, cols = col, rows - 1 - row, cols, rows
        return (row, col)

    def to_grid(self, cell: Cell) -> Cell:
        """The grid cell under a table cell (the inverse of `to_table`)."""
        row, col = check_cell(cell, self.rows, self.cols)  # a half turn keeps the shape
        rows, cols = self.rows, self.cols
        for _ in range(self.turns):
            row, col, rows, cols = cols - 1 - col, row, cols, rows
        if self.mirror:
            col = cols - 1 - col
        return (row, col)

    @classmethod
    def from_corner(
        cls,
        grid_cell: Cell,
        *,
        mirror: bool = False,
        size: int = SIZE,
        rows: int | None = None,
        cols: int | None = None,
    ) -> Orientation:
        """The orientation under which `grid_cell` (where the calibration touch
        landed) is seat A's top-left word, table (0, 0). Only a corner can be;
        on a grid that is not square, only a corner a half turn can bring there."""
        shape = cls(0, mirror, size if rows is None else rows, size if cols is None else cols)
        check_cell(grid_cell, shape.rows, shape.cols)
        for turns in shape.allowed_turns:
            candidate = cls(turns, mirror, shape.rows, shape.cols)
            if candidate.to_table(grid_cell) == (0, 0):
                return candidate
        r, c = grid_cell
        if r in (0, shape.rows - 1) and c in (0, shape.cols - 1):  # a corner a quarter turn away
            raise ValueError(
                f"calibration touch on grid cell {grid_cell!r}: a {shape.rows}x{shape.cols} "
                "grid lies along the table, never across it (or the profile's mirror is "
                "wrong); lay it so and touch seat A's top-left word"
            )
        raise ValueError(
            f"calibration touch on grid cell {grid_cell!r}: not a corner; touch seat A's "
            "top-left word"
        )

    @classmethod
    def from_corners(
        cls,
        top_left: Cell,
        top_right: Cell,
        *,
        size: int = SIZE,
        rows: int | None = None,
        cols: int | None = None,
    ) -> Orientation:
        """Turns and mirror from two calibration touches (grid cells): seat A's
        top-left word, then its top-right word. For a mat whose mirror is not
        known from its build."""
        shape = cls(0, False, size if rows is None else rows, size if cols is None else cols)
        for mirror in (False, True):
            for turns in shape.allowed_turns:
                candidate = cls(turns, mirror, shape.rows, shape.cols)
                corners = candidate.to_table(top_left), candidate.to_table(top_right)
                if corners == ((0, 0), (0, shape.cols - 1)):
                    return candidate
        raise ValueError(
            f"calibration touches on grid cells {top_left!r} and {top_right!r}: not two "
            "corners along one side; touch seat A's top-left word, then its top-right word"
        )

    def calibrated(self, table_cell: Cell) -> Orientation:
        """A calibration touch as the grid reported it under this orientation
        (table cell `table_cell`) -> the orientation that makes it (0, 0),
        keeping the mirror and the grid's shape."""
        return Orientation.from_corner(
            self.to_grid(table_cell), mirror=self.mirror, rows=self.rows, cols=self.cols
        )

    def __str__(self) -> str:
        return f"{self.turns * 90}" + (" mirrored" if self.mirror else "")

    @classmethod
    def parse(cls, text: str, *, rows: int = SIZE, cols: int = SIZE) -> Orientation:
        """The inverse of `str`: '0', '90', '180', '270', each optionally followed
        by 'mirrored' (the form stored in the state dir and shown in the menu), for
        a `rows` x `cols` grid (a quarter turn only for a square one)."""
        words = text.split()
        if words and words[0] in ("0", "90", "180", "270") and words[1:] in ([], ["mirrored"]):
            return cls(int(words[0]) // 90, len(words) == 2, rows, cols)
        raise ValueError(f"orientation {text[:40]!r}: expected 0, 90, 180 or 270 [mirrored]")
