"""The root of every error class keystand defines: `KeystandError`.

Most also derive from the builtin that fits (`ValueError` for malformed input,
`OSError` for a device or file that refuses), so a caller may catch either. A
bad argument (a caller's mistake: a panel model, a rotation, a seed) raises the
plain builtin instead (docs/design.md "Layout"). This module imports nothing,
so every layer may raise from it: the rules (standard library only), the
drivers and the layouts (which import nothing else of keystand) and the host.
"""

from __future__ import annotations


class KeystandError(Exception):
    """Root of every error class keystand defines."""


__all__ = ["KeystandError"]
