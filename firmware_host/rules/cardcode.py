"""Card codes and the card generator.

A Duet card is an arrangement of the 25 pairs of DISTRIBUTION on the grid;
there are 25! / (3! 5! 5! 7!) = 35,620,613,892,864,000 of them (< 2**55). A
card's code is its rank among those arrangements in 11 Crockford base-32
digits plus a Luhn mod 32 check symbol, shown as `XXXX-XXXX-XXXX`. Every card
has a code, typed-in ones too; the check symbol catches any one mistyped symbol
and most swaps of two neighbours. O, I and L are read as 0, 1 and 1.

The generator draws a rank uniformly and unranks it, so every valid card is
exactly equally likely.
"""

from __future__ import annotations

import random
import secrets
from math import factorial

from .card import CELLS, DISTRIBUTION, Card, Key
from .errors import CardCodeError

_PAIRS: tuple[tuple[Key, Key], ...] = tuple(DISTRIBUTION)
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
_DIGITS = 11
_DECODE = {ch: i for i, ch in enumerate(_ALPHABET)} | {"O": 0, "I": 1, "L": 1}


def _arrangements(counts: list[int]) -> int:
    total = factorial(sum(counts))
    for c in counts:
        total //= factorial(c)
    return total


CARD_COUNT = _arrangements(list(DISTRIBUTION.values()))


def rank(card: Card) -> int:
    """The card's position, 0-based, among all cards in lexicographic order of pairs."""
    counts = list(DISTRIBUTION.values())
    index = {pair: i for i, pair in enumerate(_PAIRS)}
    r = 0
    for pos in range(CELLS):
        t = index[(card.a[pos], card.b[pos])]
        for smaller in range(t):
            if counts[smaller]:
                counts[smaller] -= 1
                r += _arrangements(counts)
                counts[smaller] += 1
        counts[t] -= 1
    return r


def unrank(r: int) -> Card:
    """The card at position `r` (0 <= r < CARD_COUNT)."""
    if not 0 <= r < CARD_COUNT:
        raise ValueError(f"card rank {r} is out of range 0..{CARD_COUNT - 1}")
    counts = list(DISTRIBUTION.values())
    a: list[Key] = []
    b: list[Key] = []
    for _ in range(CELLS):
        for t, pair in enumerate(_PAIRS):
            if not counts[t]:
                continue
            counts[t] -= 1
            n = _arrangements(counts)
            if r < n:
                a.append(pair[0])
                b.append(pair[1])
                break
            r -= n
            counts[t] += 1
    return Card(tuple(a), tuple(b))


def _luhn_sum(values: list[int], first_factor: int) -> int:
    total, factor = 0, first_factor
    for v in reversed(values):
        addend = factor * v
        total += addend // 32 + addend % 32
        factor = 3 - factor
    return total % 32


def encode(card: Card) -> str:
    value = rank(card)
    digits = []
    for _ in range(_DIGITS):
        value, d = divmod(value, 32)
        digits.append(d)
    digits.reverse()
    check = (32 - _luhn_sum(digits, 2)) % 32
    body = "".join(_ALPHABET[d] for d in [*digits, check])
    return f"{body[0:4]}-{body[4:8]}-{body[8:12]}"


def decode(code: str) -> Card:
    """The card a code names; raises CardCodeError naming what is wrong."""
    chars = [ch for ch in code.upper() if ch not in " -"]
    if len(chars) != _DIGITS + 1:
        # Classic's codes are shorter on purpose (docs/classic-rules.md): say so.
        hint = " (9 symbols is a classic card code: --game classic)" if len(chars) == 9 else ""
        raise CardCodeError(
            f"{len(chars)} symbols, expected {_DIGITS + 1} (like J6VN-GH6B-CFNE){hint}",
            code=code,
        )
    values = []
    for pos, ch in enumerate(chars, start=1):
        if ch not in _DECODE:
            raise CardCodeError(f"{ch!r} (symbol {pos}) is not a code symbol", code=code)
        values.append(_DECODE[ch])
    if _luhn_sum(values, 1) != 0:
        raise CardCodeError("the check symbol does not match: is a symbol mistyped?", code=code)
    value = 0
    for v in values[:_DIGITS]:
        value = value * 32 + v
    if value >= CARD_COUNT:
        raise CardCodeError("names no card: is a symbol mistyped?", code=code)
    return unrank(value)


def generate(seed: int | None = None) -> Card:
    """A uniformly random valid card; the same seed (0 or more) always gives the same card."""
    if seed is not None and seed < 0:
        # random.Random seeds with abs(): -5 would give the card of 5.
        raise ValueError(f"seed {seed}: expected 0 or more")
    r = secrets.randbelow(CARD_COUNT) if seed is None else random.Random(seed).randrange(CARD_COUNT)
    return unrank(r)
