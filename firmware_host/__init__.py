"""keystand: a Raspberry Pi referee and per-seat key-card screens for Codenames games
(Duet and classic Codenames ship with it; another is one package: docs/games.md).

The import root maps three folders (docs/design.md "Layout"): `firmware_host/` is
`keystand` (rules, games and their views, the stand, service, CLI), `drivers/` is
`keystand.drivers`, `layouts/` is `keystand.layouts`.
"""

__version__ = "0.1.0"
