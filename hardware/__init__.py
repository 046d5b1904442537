"""The build profiles (`*.toml`), installed with keystand as package data so
`keystand run --profile NAME` finds them from a wheel as from a checkout.
The wiring and the controller firmware in this folder are not Python."""
