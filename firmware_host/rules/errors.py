"""The leaves the rules raise, under keystand's exception root (`keystand.errors`).

Every error class keystand defines derives from `KeystandError`; each leaf here
also derives from `ValueError` (malformed input), so callers may catch either. A
bad argument (a rank or a seed out of range) raises the plain `ValueError`.
Rules refusing a well-formed input is not an error: that comes back as a
`Rejection` (see `core.py`).
"""

from __future__ import annotations

from ..errors import KeystandError


class CardError(KeystandError, ValueError):
    """A key card's text or code is malformed or breaks the distribution.

    `side` is "A", "B" or None (the card as a whole); `detail` says what is
    wrong in words a player can act on; `span` is the (start, end) of the card
    text it is about (one character, or a side), or None (the card as a whole, or
    no text: a code), so a reader of a file can name the line.
    """

    def __init__(
        self, detail: str, *, side: str | None = None, span: tuple[int, int] | None = None
    ) -> None:
        self.detail = detail
        self.side = side
        self.span = span
        super().__init__(f"side {side}: {detail}" if side else detail)


class CardCodeError(CardError):
    """A card code that does not decode to a card (typo, wrong length)."""

    def __init__(self, detail: str, *, code: str) -> None:
        self.code = code
        super().__init__(f"card code {code!r}: {detail}")


class MissionError(KeystandError, ValueError):
    """A mission that is not `T-M` with 1 <= T <= 25 and 0 <= M <= T."""

    def __init__(self, detail: str, *, text: str) -> None:
        self.text = text
        self.detail = detail
        super().__init__(f"mission {text!r}: {detail}")


class EventError(KeystandError, ValueError):
    """An event that is malformed (a cell off the grid, an unknown seat)."""
