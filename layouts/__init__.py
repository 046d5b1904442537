"""Pillow renderers from a seat view and a panel spec to a 1-bit image (DESIGN.md "Layout").

Imports nothing of keystand: it defines the seat view it draws.
"""
