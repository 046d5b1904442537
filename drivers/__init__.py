"""Display and input drivers, each real one with a simulated twin (docs/design.md "Layout").

Imports nothing of keystand; hardware libraries only inside the real drivers.
"""

# How the Pi's hardware libraries (lgpio, spidev, smbus2, pyserial) are installed:
# keystand is no PyPI package, so `pip install 'keystand[pi]'` would look for
# somebody else's. Every "not installed" line says this.
PI_INSTALL = "pip install '.[pi]' in keystand's checkout (systemd/install.sh does)"
