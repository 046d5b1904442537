"""The arithmetic both games' card codes share: counting arrangements, and a
number as Crockford base-32 digits with a Luhn mod 32 check symbol.

The check symbol catches any one mistyped symbol and most swaps of two
neighbours; O, I and L are read as 0, 1 and 1. Each game's code module says
how many digits, how they are grouped, and which number names which card.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import factorial

from .errors import CardCodeError

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
_DECODE = {ch: i for i, ch in enumerate(ALPHABET)} | {"O": 0, "I": 1, "L": 1}


def arrangements(counts: list[int]) -> int:
    """In how many orders the items, `counts[i]` of kind i, can be laid out."""
    total = factorial(sum(counts))
    for c in counts:
        total //= factorial(c)
    return total


def _luhn_sum(values: list[int], first_factor: int) -> int:
    total, factor = 0, first_factor
    for v in reversed(values):
        addend = factor * v
        total += addend // 32 + addend % 32
        factor = 3 - factor
    return total % 32


def encode(value: int, digits: int, group: int) -> str:
    """`value` in `digits` base-32 digits and a check symbol, in groups of `group`."""
    out = []
    for _ in range(digits):
        value, d = divmod(value, 32)
        out.append(d)
    out.reverse()
    check = (32 - _luhn_sum(out, 2)) % 32
    body = "".join(ALPHABET[d] for d in [*out, check])
    return "-".join(body[i : i + group] for i in range(0, len(body), group))


def decode(code: str, digits: int, example: str, hints: Mapping[int, str]) -> int:
    """The number a code of `digits` digits and a check symbol names; CardCodeError
    names what is wrong (`hints`: a word for a code of another length)."""
    chars = [ch for ch in code.upper() if ch not in " -"]
    if len(chars) != digits + 1:
        hint = f" ({hints[len(chars)]})" if len(chars) in hints else ""
        raise CardCodeError(
            f"{len(chars)} symbols, expected {digits + 1} (like {example}){hint}", code=code
        )
    values = []
    for pos, ch in enumerate(chars, start=1):
        if ch not in _DECODE:
            raise CardCodeError(f"{ch!r} (symbol {pos}) is not a code symbol", code=code)
        values.append(_DECODE[ch])
    if _luhn_sum(values, 1) != 0:
        raise CardCodeError("the check symbol does not match: is a symbol mistyped?", code=code)
    value = 0
    for v in values[:digits]:
        value = value * 32 + v
    return value
