"""Display and input drivers, each real one with a simulated twin (DESIGN.md "Layout").

Imports nothing of keystand; hardware libraries only inside the real drivers.
"""
