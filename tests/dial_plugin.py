"""Installs the test-only input kind (tests/keystand_dial) the way any kind
packaged apart from keystand is installed (tests/plugin_install.py)."""

from __future__ import annotations

from plugin_install import TESTS, Plugin

DIAL = Plugin("keystand_dial", "keystand.inputs", "dial", "KIND")
install, environ = DIAL.install, DIAL.environ

__all__ = ["TESTS", "environ", "install"]
