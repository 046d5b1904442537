"""How long each panel takes to refresh, from its record (keystand.panel_models).

The simulated panel waits this long (times a speed factor), so latency can be
measured on a desktop and the simulator page shows what players would wait.
"""

from __future__ import annotations

from keystand.panel_models import PANELS, Timing

# Each model's refresh figures and the kinds among them that are estimates.
TIMINGS: dict[str, Timing] = {name: m.timing for name, m in PANELS.items()}
ESTIMATED: frozenset[tuple[str, str]] = frozenset(
    (name, kind) for name, m in PANELS.items() for kind in m.timing.estimated
)

# Seconds to wait around a hardware reset before the controller's BUSY line takes
# over (`PanelHal.reset_wait`): the datasheet's figure, why in panel_models.
RESET_WAIT: dict[str, float] = {name: m.reset_wait for name, m in PANELS.items()}

__all__ = ["ESTIMATED", "RESET_WAIT", "TIMINGS", "Timing"]
