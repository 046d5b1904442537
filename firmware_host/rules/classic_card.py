"""Classic Codenames key cards: the teams, the one side the spymasters see, the counts.

The card text is docs/design.md\'s "Contracts": 25 characters in table order as
the spymasters see the grid (index `5 * row + col`, row 0 farthest from them),
`R` red agent, `U` blue agent, `.` bystander, `X` assassin; spaces and newlines
between characters are ignored. A card has 9 agents of the starting team's colour,
8 of the other's, 7 bystanders and 1 assassin, so the card itself names the team
that starts (the printed card shows it with the four triangles on its border).
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass

from .card import CELLS, SIZE
from .errors import CardError

STARTING_AGENTS = 9
OTHER_AGENTS = 8
BYSTANDERS = 7
ASSASSINS = 1


class Team(enum.Enum):
    """One of the two teams; the value is the word of the event text and the JSON."""

    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Team:
        return Team.BLUE if self is Team.RED else Team.RED

    @property
    def key(self) -> ClassicKey:
        """The key-card letter of this team's agents."""
        return ClassicKey.RED if self is Team.RED else ClassicKey.BLUE

    @classmethod
    def parse(cls, text: str) -> Team:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"team {text!r}: expected red or blue") from None

    def __repr__(self) -> str:
        return f"Team.{self.name}"


class ClassicKey(enum.Enum):
    """What the classic key card says about one word."""

    RED = "R"
    BLUE = "U"
    BYSTANDER = "."
    ASSASSIN = "X"

    @property
    def team(self) -> Team | None:
        """The team whose agent this is, or None for a bystander or the assassin."""
        if self is ClassicKey.RED:
            return Team.RED
        if self is ClassicKey.BLUE:
            return Team.BLUE
        return None

    def __repr__(self) -> str:
        return f"ClassicKey.{self.name}"


_NAMES = {
    ClassicKey.RED: "red agent",
    ClassicKey.BLUE: "blue agent",
    ClassicKey.BYSTANDER: "bystander",
    ClassicKey.ASSASSIN: "assassin",
}
_LEGEND = "R (red agent), U (blue agent), . (bystander) or X (assassin)"


def _count(n: int, key: ClassicKey) -> str:
    return f"{n} {_NAMES[key]}{'' if n == 1 else 's'}"


def _cells(keys: tuple[ClassicKey, ...], key: ClassicKey) -> str:
    return ", ".join(str(i) for i, k in enumerate(keys) if k is key)


def _parse_keys(text: str) -> tuple[ClassicKey, ...]:
    if "/" in text:
        raise CardError(
            "a classic card is one side of 25 cells; this text has a '/' (is it a Duet card?)"
        )
    keys: list[ClassicKey] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        try:
            keys.append(ClassicKey(ch.upper()))
        except ValueError:
            hint = " (blue is U)" if ch.upper() == "B" else ""
            raise CardError(
                f"character {ch!r} at cell {len(keys)} is not {_LEGEND}{hint}", span=(i, i + 1)
            ) from None
    return tuple(keys)


@dataclass(frozen=True)
class ClassicCard:
    """A classic key card: what it says of each cell, in table order.

    Construct through `ClassicCard.parse`, `ClassicCard.from_code` or
    `classic_code.generate`; the constructor checks the counts too, so no invalid
    card exists.
    """

    keys: tuple[ClassicKey, ...]

    def __post_init__(self) -> None:
        keys = self.keys
        if len(keys) != CELLS:
            raise CardError(f"{len(keys)} cells, expected {CELLS}")
        counts = Counter(keys)
        # The assassin and the bystanders first: a wrong count of them is the
        # simplest thing to name, and once they are right the agents add up to 17.
        for key, expected in ((ClassicKey.ASSASSIN, ASSASSINS), (ClassicKey.BYSTANDER, BYSTANDERS)):
            if counts[key] != expected:
                where = f" (cells {_cells(keys, key)})" if counts[key] else ""
                raise CardError(f"{_count(counts[key], key)}{where}, expected {expected}")
        red, blue = counts[ClassicKey.RED], counts[ClassicKey.BLUE]
        if {red, blue} != {STARTING_AGENTS, OTHER_AGENTS}:
            raise CardError(
                f"{_count(red, ClassicKey.RED)} and {_count(blue, ClassicKey.BLUE)}, expected "
                f"{STARTING_AGENTS} of the starting team's colour and {OTHER_AGENTS} of the other"
            )

    @classmethod
    def parse(cls, text: str) -> ClassicCard:
        """Read the card text: 25 of R U . X, spaces and newlines ignored."""
        return cls(_parse_keys(text))

    @property
    def starting(self) -> Team:
        """The team that gives the first clue: the one with 9 agents."""
        red = sum(1 for k in self.keys if k is ClassicKey.RED)
        return Team.RED if red == STARTING_AGENTS else Team.BLUE

    def key(self, cell: int) -> ClassicKey:
        return self.keys[cell]

    def agents(self, team: Team) -> frozenset[int]:
        """The cells of `team`'s agents."""
        return frozenset(i for i, k in enumerate(self.keys) if k is team.key)

    @property
    def assassin(self) -> int:
        return self.keys.index(ClassicKey.ASSASSIN)

    @property
    def text(self) -> str:
        """The card text, rows of five separated by spaces (spaces are ignored on input)."""
        s = "".join(k.value for k in self.keys)
        return " ".join(s[i : i + SIZE] for i in range(0, CELLS, SIZE))

    @property
    def code(self) -> str:
        from .classic_code import encode

        return encode(self)

    @classmethod
    def from_code(cls, code: str) -> ClassicCard:
        from .classic_code import decode

        return decode(code)

    def __repr__(self) -> str:
        return f"ClassicCard.parse({self.text!r})"
