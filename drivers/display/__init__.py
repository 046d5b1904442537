"""Displays: the panel interface, the timing model and the simulated panel.

Real Waveshare panels (their own module, imported only on a Pi) implement the
same `Panel` interface.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import MODELS, Panel, PanelError, PanelModel, Refresh
from .timing import TIMINGS, Timing

if TYPE_CHECKING:
    from .sim import Frame, SimPanel

__all__ = [
    "MODELS",
    "TIMINGS",
    "Frame",
    "Panel",
    "PanelError",
    "PanelModel",
    "Refresh",
    "SimPanel",
    "Timing",
]


def __getattr__(name: str) -> object:
    """The simulated panel's names, loaded when first asked for: a Pi's build
    never makes one, and its start should not pay for the module."""
    if name in ("Frame", "SimPanel"):
        from . import sim

        return getattr(sim, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
