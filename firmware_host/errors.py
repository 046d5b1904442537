"""The root of every error keystand raises on purpose: `KeystandError`.

Each leaf also derives from the builtin that fits (`ValueError` for malformed
input, `OSError` for a device or file that refuses), so a caller may catch
either. This module imports nothing, so every layer may raise from it: the
rules (standard library only), the drivers and the layouts (which import
nothing else of keystand) and the host.
"""

from __future__ import annotations


class KeystandError(Exception):
    """Root of every error keystand raises on purpose."""


__all__ = ["KeystandError"]
