"""Display and input drivers, each real one with a simulated twin (docs/design.md "Layout").

Imports nothing of keystand; hardware libraries only inside the real drivers.
"""
