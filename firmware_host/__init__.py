"""keystand: a Raspberry Pi referee and per-seat key-card screens for Codenames Duet.

The import root maps three folders (docs/design.md "Layout"): `firmware_host/` is
`keystand` (rules, views, service, CLI), `drivers/` is `keystand.drivers`,
`layouts/` is `keystand.layouts`.
"""

__version__ = "0.1.0"
