"""Card codes and the card generator.

A Duet card is an arrangement of the 25 pairs of DISTRIBUTION on the grid;
there are 25! / (3! 5! 5! 7!) = 35,620,613,892,864,000 of them (< 2**55). A
card's code is its rank among those arrangements in 11 Crockford base-32
digits plus a Luhn mod 32 check symbol, shown as `XXXX-XXXX-XXXX`
(checkcode.py). Every card has a code, typed-in ones too.

The generator draws a rank uniformly and unranks it, so every valid card is
exactly equally likely.
"""

from __future__ import annotations

import random

from .card import CELLS, DISTRIBUTION, Card, Key
from .checkcode import arrangements as _arrangements
from .checkcode import decode as decode_number
from .checkcode import encode as encode_number
from .errors import CardCodeError

_PAIRS: tuple[tuple[Key, Key], ...] = tuple(DISTRIBUTION)
_DIGITS = 11

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


def encode(card: Card) -> str:
    return encode_number(rank(card), _DIGITS, 4)


def decode(code: str) -> Card:
    """The card a code names; raises CardCodeError naming what is wrong."""
    # Classic's codes are shorter on purpose (docs/classic-rules.md): say so.
    hints = {9: "9 symbols is a classic card code: --game classic"}
    value = decode_number(code, _DIGITS, "J6VN-GH6B-CFNE", hints)
    if value >= CARD_COUNT:
        raise CardCodeError("names no card: is a symbol mistyped?", code=code)
    return unrank(value)


def generate(seed: int | None = None) -> Card:
    """A uniformly random valid card; the same seed (0 or more) always gives the same card."""
    if seed is not None and seed < 0:
        # random.Random seeds with abs(): -5 would give the card of 5.
        raise ValueError(f"seed {seed}: expected 0 or more")
    # SystemRandom (os.urandom) is what `secrets` uses, without its import of hashlib.
    source = random.SystemRandom() if seed is None else random.Random(seed)
    r = source.randrange(CARD_COUNT)
    return unrank(r)
