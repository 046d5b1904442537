"""Inputs: the events every input driver emits, the script input and the keyboard.

Drivers put events on a queue the service reads; they know nothing of the rules.
"""

from .base import Emit, Health, HealthReport, InputDriver, InputError, Report
from .events import Act, InputEvent, KeyName, Press, Touch, parse_line
from .script import ScriptInput, ScriptLineError, parse_script

__all__ = [
    "Act",
    "Emit",
    "Health",
    "HealthReport",
    "InputDriver",
    "InputError",
    "InputEvent",
    "KeyName",
    "Press",
    "Report",
    "ScriptInput",
    "ScriptLineError",
    "Touch",
    "parse_line",
    "parse_script",
]
