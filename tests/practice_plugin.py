"""Installs the test-only practice game (tests/keystand_practice) the way any game
packaged apart from keystand is installed (tests/plugin_install.py)."""

from __future__ import annotations

from plugin_install import TESTS, Plugin

PRACTICE = Plugin("keystand_practice", "keystand.games", "practice", "GAME")
install, environ = PRACTICE.install, PRACTICE.environ

__all__ = ["TESTS", "environ", "install"]
