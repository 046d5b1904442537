"""Duet key cards: the two sides, their text form, the distribution check.

Both sides are stored in table order (docs/design.md "Contracts"): index
`5 * row + col` of the table as seat A sees it. Seat B's screen turns its side
by a half turn for display; the rules never need to.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass

from ..grid import Grid
from .errors import CardError

GRID = Grid(5, 5)  # Duet's grid, and classic's
CELLS = GRID.cells
SIZE = GRID.rows  # a square grid: rows and columns alike


class Seat(enum.Enum):
    """One of the two seats at the table; seat B sits opposite seat A."""

    A = "A"
    B = "B"

    @property
    def partner(self) -> Seat:
        return Seat.B if self is Seat.A else Seat.A

    @classmethod
    def parse(cls, text: str) -> Seat:
        try:
            return cls(text.strip().upper())
        except ValueError:
            raise ValueError(f"seat {text!r}: expected A or B") from None

    def __repr__(self) -> str:
        return f"Seat.{self.name}"


class Key(enum.Enum):
    """What one side of the key card says about one word."""

    AGENT = "G"
    ASSASSIN = "X"
    BYSTANDER = "."

    def __repr__(self) -> str:
        return f"Key.{self.name}"


_KEY_NAMES = {Key.AGENT: "agent", Key.ASSASSIN: "assassin", Key.BYSTANDER: "bystander"}

# The pairs (side A, side B) every Duet card has, and how many of each
# (docs/rules.md "The table and the key card"; the diagram of the Russian rulebook).
DISTRIBUTION: dict[tuple[Key, Key], int] = {
    (Key.AGENT, Key.AGENT): 3,
    (Key.AGENT, Key.BYSTANDER): 5,
    (Key.BYSTANDER, Key.AGENT): 5,
    (Key.AGENT, Key.ASSASSIN): 1,
    (Key.ASSASSIN, Key.AGENT): 1,
    (Key.ASSASSIN, Key.ASSASSIN): 1,
    (Key.ASSASSIN, Key.BYSTANDER): 1,
    (Key.BYSTANDER, Key.ASSASSIN): 1,
    (Key.BYSTANDER, Key.BYSTANDER): 7,
}
PER_SIDE = {Key.AGENT: 9, Key.ASSASSIN: 3, Key.BYSTANDER: 13}
AGENTS_TO_FIND = 15


def cell(row: int, col: int) -> int:
    """The table cell index of (row, col) on the 5x5 grid, both 0..4."""
    if not GRID.contains(row, col):
        raise ValueError(
            f"cell ({row}, {col}) is off the {GRID} grid (rows and columns are 0..{SIZE - 1})"
        )
    return GRID.cell(row, col)


def row_col(index: int) -> tuple[int, int]:
    return GRID.row_col(index)


def _parse_side(text: str, side: str, start: int) -> tuple[Key, ...]:
    """One side's keys; `start` is where `text` begins in the card text (for the
    error's span)."""
    keys: list[Key] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        try:
            keys.append(Key(ch.upper()))
        except ValueError:
            raise CardError(
                f"character {ch!r} at cell {len(keys)} is not G (agent), X (assassin) "
                "or . (bystander)",
                side=side,
                span=(start + i, start + i + 1),
            ) from None
    if len(keys) != CELLS:
        raise CardError(
            f"{len(keys)} cells, expected {CELLS}", side=side, span=(start, start + len(text))
        )
    return tuple(keys)


@dataclass(frozen=True)
class Card:
    """A Duet key card: what seat A's side and seat B's side say of each cell.

    Construct through `Card.parse`, `Card.from_code` or `generate`; the
    constructor checks the distribution too, so no invalid card exists.
    """

    a: tuple[Key, ...]
    b: tuple[Key, ...]

    def __post_init__(self) -> None:
        for name, side in (("A", self.a), ("B", self.b)):
            if len(side) != CELLS:
                raise CardError(f"{len(side)} cells, expected {CELLS}", side=name)
            counts = Counter(side)
            for key, expected in PER_SIDE.items():
                if counts[key] != expected:
                    raise CardError(
                        f"{counts[key]} {_KEY_NAMES[key]}s, expected {expected}", side=name
                    )
        pairs = Counter(zip(self.a, self.b, strict=True))
        for (ka, kb), expected in DISTRIBUTION.items():
            if pairs[(ka, kb)] != expected:
                where = [i for i in range(CELLS) if (self.a[i], self.b[i]) == (ka, kb)]
                raise CardError(
                    f"{pairs[(ka, kb)]} cells are {_KEY_NAMES[ka]} on side A and "
                    f"{_KEY_NAMES[kb]} on side B, expected {expected}"
                    + (f" (cells {', '.join(map(str, where))})" if where else "")
                )

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read the card text of docs/design.md: `side A / side B`, 25 of G X . each."""
        parts = text.split("/")
        if len(parts) != 2:
            raise CardError(
                f"a Duet card is two sides separated by one '/', found {len(parts) - 1} '/'"
            )
        spans = {"A": (0, len(parts[0])), "B": (len(parts[0]) + 1, len(text))}
        a = _parse_side(parts[0], "A", spans["A"][0])
        b = _parse_side(parts[1], "B", spans["B"][0])
        try:
            return cls(a, b)
        except CardError as e:  # a side's counts: the side's text is where
            if e.side is None:
                raise
            raise CardError(e.detail, side=e.side, span=spans[e.side]) from None

    @property
    def text(self) -> str:
        """The card text, rows of five separated by spaces (spaces are ignored on input)."""

        def side(keys: tuple[Key, ...]) -> str:
            s = "".join(k.value for k in keys)
            return " ".join(s[i : i + SIZE] for i in range(0, CELLS, SIZE))

        return f"{side(self.a)} / {side(self.b)}"

    def side(self, seat: Seat) -> tuple[Key, ...]:
        """What `seat` sees on its own side, in table order."""
        return self.a if seat is Seat.A else self.b

    def agents(self, seat: Seat) -> frozenset[int]:
        """The cells `seat` wants its partner to guess."""
        return frozenset(i for i, k in enumerate(self.side(seat)) if k is Key.AGENT)

    @property
    def all_agents(self) -> frozenset[int]:
        return self.agents(Seat.A) | self.agents(Seat.B)

    @property
    def code(self) -> str:
        from .cardcode import encode

        return encode(self)

    @classmethod
    def from_code(cls, code: str) -> Card:
        from .cardcode import decode

        return decode(code)

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"
