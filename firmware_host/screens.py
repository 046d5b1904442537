"""What each seat's panel shows now: the stand -> a view -> a layout -> an image.

The game goes through `views.for_seat` (the secrecy boundary); a seat in its
menu sees the menu, drawn from the stand's settings only (no key).
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from keystand.drivers.display import Panel

from . import layouts, views
from .rules import Seat
from .stand import Stand


def spec(panel: Panel) -> layouts.PanelSpec:
    return layouts.panel(panel.model.name, panel.rotation)


def render(stand: Stand, seat: Seat, panel: Panel) -> Image.Image:
    lang = stand.settings.lang_of(seat)
    if seat in stand.menus or stand.state is None:
        view: Any = views.neutral(
            layouts.Neutral.MENU if seat in stand.menus else layouts.Neutral.IDLE
        )
    else:
        view = views.for_seat(stand.state, seat)
    return layouts.render(view, spec(panel), lang)


def blank(stand: Stand, seat: Seat, panel: Panel) -> Image.Image:
    """The picture left on a panel when the service stops: no key, no game."""
    return layouts.render(
        views.neutral(layouts.Neutral.OFF), spec(panel), stand.settings.lang_of(seat)
    )


def status(service: Any) -> dict[str, Any]:
    """The public state for the simulator page's status line."""
    from .cli import state_json

    stand = service.stand
    return {
        "game": stand.store.game_id,
        "state": state_json(stand.state) if stand.state else None,
        "error": service.stats.last_error,
    }
