"""The stand: what each input means now (core.py), and the parts it keeps, each
with its own state: the undo agreement, the open menus, the turn timer,
calibration, faults, hints, a seat's own choosing, the saved settings, and the
redraw counter they move."""

from ..menu import Item, Menu, RecordEntry, items_of
from ..settings import LANGUAGES, SAVE_RETRY, UNDO_WINDOW, Settings
from .core import Stand
from .faults import Repair
from .hints import LEFT_SHOWN
from .hints import SHOWN as REFUSAL_SHOWN
from .undo import UndoRequest

# The menu's and the settings' names, as the stand has always offered them.
__all__ = [
    "LANGUAGES",
    "LEFT_SHOWN",
    "REFUSAL_SHOWN",
    "SAVE_RETRY",
    "UNDO_WINDOW",
    "Item",
    "Menu",
    "RecordEntry",
    "Repair",
    "Settings",
    "Stand",
    "UndoRequest",
    "items_of",
]
