"""Classic card codes and the classic card generator.

For each starting team there are 25! / (9! 8! 7! 1!) = 210,344,706,000
arrangements of the keys on the grid, so 420,689,412,000 classic cards (< 32**8).
A card's rank counts the red-starting cards first, then the blue-starting ones,
each in lexicographic order of keys (R, U, ., X). Its code is the rank in 8
Crockford base-32 digits plus a Luhn mod 32 check symbol, shown as `XXX-XXX-XXX`:
the same alphabet and check as a Duet code (checkcode.py), and three symbols
shorter, so one game's code is never taken for the other's.

The generator draws a rank uniformly and unranks it, so every valid card is
exactly equally likely.
"""

from __future__ import annotations

import random
import secrets

from .card import CELLS
from .checkcode import arrangements as _arrangements
from .checkcode import decode as decode_number
from .checkcode import encode as encode_number
from .classic_card import (
    ASSASSINS,
    BYSTANDERS,
    OTHER_AGENTS,
    STARTING_AGENTS,
    ClassicCard,
    ClassicKey,
    Team,
)
from .errors import CardCodeError

_DIGITS = 8
_KEYS: tuple[ClassicKey, ...] = tuple(ClassicKey)  # R, U, ., X: the order of ranks
_TEAMS: tuple[Team, ...] = (Team.RED, Team.BLUE)


def _counts(starting: Team) -> list[int]:
    """How many of each key (in _KEYS order) a card of `starting` has."""
    per_key = {
        starting.key: STARTING_AGENTS,
        starting.other.key: OTHER_AGENTS,
        ClassicKey.BYSTANDER: BYSTANDERS,
        ClassicKey.ASSASSIN: ASSASSINS,
    }
    return [per_key[k] for k in _KEYS]


PER_TEAM = _arrangements(_counts(Team.RED))
CLASSIC_CARD_COUNT = 2 * PER_TEAM


def rank(card: ClassicCard) -> int:
    """The card's position, 0-based, among all classic cards (see the module docstring)."""
    counts = _counts(card.starting)
    r = _TEAMS.index(card.starting) * PER_TEAM
    for key in card.keys:
        t = _KEYS.index(key)
        for smaller in range(t):
            if counts[smaller]:
                counts[smaller] -= 1
                r += _arrangements(counts)
                counts[smaller] += 1
        counts[t] -= 1
    return r


def unrank(r: int) -> ClassicCard:
    """The card at position `r` (0 <= r < CLASSIC_CARD_COUNT)."""
    if not 0 <= r < CLASSIC_CARD_COUNT:
        raise ValueError(f"classic card rank {r} is out of range 0..{CLASSIC_CARD_COUNT - 1}")
    team, r = divmod(r, PER_TEAM)
    counts = _counts(_TEAMS[team])
    keys: list[ClassicKey] = []
    for _ in range(CELLS):
        for t, key in enumerate(_KEYS):
            if not counts[t]:
                continue
            counts[t] -= 1
            n = _arrangements(counts)
            if r < n:
                keys.append(key)
                break
            r -= n
            counts[t] += 1
    return ClassicCard(tuple(keys))


def encode(card: ClassicCard) -> str:
    return encode_number(rank(card), _DIGITS, 3)


def decode(code: str) -> ClassicCard:
    """The card a code names; raises CardCodeError naming what is wrong."""
    value = decode_number(code, _DIGITS, "90H-6BC-FNX", {12: "12 symbols is a Duet card code"})
    if value >= CLASSIC_CARD_COUNT:
        raise CardCodeError("names no classic card: is a symbol mistyped?", code=code)
    return unrank(value)


def generate(rng: random.Random | None = None, *, starting: Team | None = None) -> ClassicCard:
    """A uniformly random classic card (of `starting`, if given). The same seeded
    `rng` always gives the same card; without one the draw is from `secrets`."""
    count = PER_TEAM if starting else CLASSIC_CARD_COUNT
    r = secrets.randbelow(count) if rng is None else rng.randrange(count)
    if starting:
        r += _TEAMS.index(starting) * PER_TEAM
    return unrank(r)
