"""Displays: the panel interface, the timing model and the simulated panel.

Real Waveshare panels (their own module, imported only on a Pi) implement the
same `Panel` interface.
"""

from .base import MODELS, Panel, PanelError, PanelModel, Refresh
from .sim import Frame, SimPanel
from .timing import TIMINGS, Timing

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
